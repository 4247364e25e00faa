// The provider emulator's embeddings (POST /v1/embeddings, tools/provider-emulator.mjs):
// which models each service has and how wide their vectors are, the vectors
// themselves, and the answers in each service's shape. What each service
// refuses is in tools/provider-rules.mjs (checkEmbeddings).
//
// Vectors are deterministic from the text and the model, and carry lexical
// similarity: each word (lowercased, function words out, a plural s off) and its character
// trigrams are hashed into signed buckets (feature hashing), then the vector
// is L2-normalized, as the services' vectors are. Texts that share words score
// a high cosine, unrelated texts near zero, so a search through the device's
// memory finds related text. A model's name seeds the hash: two models'
// vectors are not comparable, as real ones are not.
//
// Answers:
//   openai, custom  CreateEmbeddingResponse {object 'list', data [{object 'embedding',
//                   index, embedding}], model, usage {prompt_tokens, total_tokens}}
//                   (openai 6.49 resources/embeddings.d.ts); encoding_format base64
//                   gives each vector as base64 of little-endian float32, which the
//                   SDK asks for by default and decodes
//   mistral         EmbeddingResponse {id, object, model, usage {prompt_tokens,
//                   total_tokens, completion_tokens 0}, data [{object, embedding, index}]}
//                   (@mistralai/mistralai 2.7 models/components/embeddingresponse.ts)

import { randomBytes } from 'node:crypto';

/**
 * The models each service serves: width (numbers per vector by default), and
 * how many may be asked for (dimensions for OpenAI, output_dimension for
 * Mistral; askMax 0: the model cannot be asked). OpenAI: text-embedding-3-small
 * 1536, -large 3072, ada-002 1536 (embeddings guide; "dimensions ... only
 * supported in text-embedding-3 and later models"). Mistral: mistral-embed
 * 1024 (text embeddings guide), codestral-embed 1536 by default, output_dimension
 * up to 3072 (code embeddings guide). A custom server takes any model: a
 * text-embedding-3 one as OpenAI's, any other 768 wide, not askable.
 */
export const EMBEDDING_MODELS = {
  openai: {
    'text-embedding-3-small': { width: 1536, askMax: 1536 },
    'text-embedding-3-large': { width: 3072, askMax: 3072 },
    'text-embedding-ada-002': { width: 1536, askMax: 0 },
  },
  mistral: {
    'mistral-embed': { width: 1024, askMax: 0 },
    'codestral-embed': { width: 1536, askMax: 3072 },
  },
};
export const CUSTOM_WIDTH = 768;

/** The model's facts for a family, or null when the service has no such model. */
export function embeddingModel(family, model) {
  if (typeof model !== 'string') return null;
  if (family === 'custom') return EMBEDDING_MODELS.openai[model] ?? { width: CUSTOM_WIDTH, askMax: 0 };
  return EMBEDDING_MODELS[family]?.[model] ?? null;
}

/**
 * Tokens the emulator counts for one input: UTF-8 bytes plus two (a string),
 * or the number of token ids (an array). It is the bound the device batches by
 * (src/memory/embed-wire.ts tokenBound), at or above what a byte-level
 * tokenizer counts: the emulator refuses at least what the services refuse.
 */
export function inputTokens(input) {
  return typeof input === 'string' ? Buffer.byteLength(input) + 2 : Array.isArray(input) ? input.length : 0;
}

/** The inputs of a request body as a list (a single string or token array is one input). */
export function inputList(input) {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length && input.every((x) => typeof x === 'number')) return [input];
  return Array.isArray(input) ? input : [];
}

function fnv(text, seed) {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (const b of Buffer.from(text)) {
    h ^= b;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const WORD = /[\p{L}\p{N}]+/gu;
/** Function words carry no topic: left out, as a real model all but ignores them for similarity. */
const STOP = new Set('a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its me my no not of on or our she so than that the their them then there these they this those to too us was we were what when where which who why will with would you your'.split(' '));

/** The emulator's vector for one input (text, or token ids), width numbers, unit length. */
export function emulatedVector(input, width, model) {
  const seed = fnv(String(model), 0x9e3779b9);
  const v = new Float64Array(width);
  const add = (feature, weight) => {
    const h = fnv(feature, seed);
    v[h % width] += h & 0x80000000 ? -weight : weight;
  };
  const words = typeof input === 'string' ? (input.toLowerCase().match(WORD) ?? []).filter((w) => !STOP.has(w)) : input.map((t) => `#${t}`);
  for (const raw of words) {
    const w = raw.length > 3 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw;
    add(`w:${w}`, 1);
    const padded = `^${w}$`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.4);
  }
  if (!words.length) add(`x:${String(input)}`, 1);
  let norm = 0;
  for (const x of v) norm += x * x;
  const k = 1 / Math.sqrt(norm);
  return Array.from(v, (x) => Number((x * k).toPrecision(8)));
}

/** A vector as the base64 of its little-endian float32 bytes (encoding_format base64). */
export function base64Vector(vector) {
  return Buffer.from(Float32Array.from(vector).buffer).toString('base64');
}

function hexId(prefix) {
  return prefix + randomBytes(16).toString('hex');
}

/**
 * The answer to an accepted request body: width is the numbers per vector
 * (the model's, or the dimensions asked for). vectors (a behaviour's) replace
 * the computed ones, for tests of a provider that answers wrongly.
 */
export function embeddingAnswer(family, body, width, { vectors } = {}) {
  const inputs = inputList(body.input);
  const tokens = inputs.reduce((n, x) => n + inputTokens(x), 0);
  const base64 = body.encoding_format === 'base64';
  const data = inputs.map((x, index) => {
    const embedding = vectors?.[index] ?? emulatedVector(x, width, body.model);
    return { object: 'embedding', index, embedding: base64 ? base64Vector(embedding) : embedding };
  });
  if (family === 'mistral') return { id: hexId(''), object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens, completion_tokens: 0 } };
  return { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}
