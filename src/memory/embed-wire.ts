// The remote embedders' wire, provider by provider, with no I/O: the request
// body of POST /v1/embeddings in each service's own shape, what each model
// can be asked for, how texts are cut into batches within each service's
// limits, and reading an answer (vectors by index, the input tokens it
// reports). RemoteEmbedder (embed-remote.ts) sends and checks; this file says
// what goes on the wire. Sources of every figure: docs/decisions.md, "Remote
// embeddings".
//
//   openai   openai 6.49 EmbeddingCreateParams {model, input, dimensions?,
//            encoding_format?}; dimensions "only supported in text-embedding-3
//            and later models" (text-embedding-ada-002 answers 400 "This model
//            does not support specifying dimensions.")
//   mistral  @mistralai/mistralai 2.7 EmbeddingRequest, on the wire {model,
//            input, output_dimension?, output_dtype?, encoding_format?}: no
//            'dimensions' (the API refuses fields it does not know, 422
//            extra_forbidden); output_dimension and output_dtype are Codestral
//            Embed's options; mistral-embed always answers 1024 numbers
//   custom   OpenAI's shape at the owner's base URL; dimensions only for a
//            text-embedding-3 model (other servers may refuse the field)

import { capBytes } from '../util/cap.ts';
import { isPlainObject } from '../util/json.ts';
import { utf8Length } from '../util/utf8.ts';
import type { EmbeddingConfig } from './embedder.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const OPENAI_3 = /^text-embedding-3-/;
const OPENAI_3_SMALL = /^text-embedding-3-small(?:$|-)/;
const OPENAI_3_LARGE = /^text-embedding-3-large(?:$|-)/;
const OPENAI_ADA = /^text-embedding-ada-002(?:$|-)/;
const MISTRAL_EMBED = /^mistral-embed(?:$|-)/;
const CODESTRAL_EMBED = /^codestral-embed(?:$|-)/;

export type EmbedFamily = 'openai' | 'mistral' | 'custom';

/** The wire a provider's embeddings take; null when the device knows no embeddings endpoint for it. */
export function familyOf(provider: string): EmbedFamily | null {
  return provider === 'openai' || provider === 'mistral' || provider === 'custom' ? provider : null;
}

/** How a provider is named to the owner. */
export function providerLabel(provider: string): string {
  return provider === 'custom' ? 'the custom endpoint' : provider;
}

export interface BatchLimits {
  /** Texts in one request. */
  inputs: number;
  /** Tokens in one request, summed over its texts (counted as tokenBound()). */
  tokens: number;
  /** Tokens of one text: a longer text is cut to this many UTF-8 bytes before it is sent. */
  perInput: number;
}

/**
 * Each service's limits. openai: EmbeddingCreateParams.input ("must not
 * exceed the max input tokens for the model (8192 tokens for all embedding
 * models) ... any array must be 2048 dimensions or less ... a maximum of
 * 300,000 tokens summed across all inputs in a single request"). mistral:
 * not documented; the API answers "Too many tokens in batch. Max is 16384"
 * and "Too many inputs in request, split into more batches." past 256 texts,
 * and mistral-embed reads 8192 tokens. custom: unknown, so Mistral's, the
 * stricter of the two.
 */
export const LIMITS: Readonly<Record<EmbedFamily, BatchLimits>> = {
  openai: { inputs: 2048, tokens: 300_000, perInput: 8192 },
  mistral: { inputs: 256, tokens: 16_384, perInput: 8192 },
  custom: { inputs: 256, tokens: 16_384, perInput: 8192 },
};

/** The device's own ceiling: texts in one request. */
export const DEVICE_BATCH = 32;
/** Numbers in one answer (the answer is parsed whole: about 22 bytes of JSON a number, 32 K numbers ~ 700 KB). */
export const ANSWER_NUMBERS = 32 * 1024;
/** Width assumed for a model the device does not know, when sizing batches and answers. */
export const UNKNOWN_WIDTH = 3072;

/**
 * An upper bound of a text's tokens under any byte-level tokenizer (every
 * token covers at least one UTF-8 byte), plus two for a start token and a
 * leading-space marker: batching by it never passes a service's token limit.
 */
export function tokenBound(text: string): number {
  return utf8Length(text) + 2;
}

export interface ModelFacts {
  /** Numbers per vector when not asked for fewer (null: not known to the device). */
  width: number | null;
  /** The request field that asks for fewer numbers (null: the model cannot be asked). */
  ask: 'dimensions' | 'output_dimension' | null;
  /** The most numbers the field may ask for (null: not known). */
  max: number | null;
}

/** What the device knows of a model on a provider's wire. */
export function modelFacts(family: EmbedFamily, model: string): ModelFacts {
  if (family === 'mistral') {
    if (MISTRAL_EMBED.test(model)) return { width: 1024, ask: null, max: null };
    // Codestral Embed: 1536 by default, output_dimension up to 3072 (Mistral's code embeddings guide).
    if (CODESTRAL_EMBED.test(model)) return { width: 1536, ask: 'output_dimension', max: 3072 };
    return { width: null, ask: null, max: null };
  }
  if (OPENAI_3_SMALL.test(model)) return { width: 1536, ask: 'dimensions', max: 1536 };
  if (OPENAI_3_LARGE.test(model)) return { width: 3072, ask: 'dimensions', max: 3072 };
  if (OPENAI_3.test(model)) return { width: null, ask: 'dimensions', max: null };
  if (OPENAI_ADA.test(model)) return { width: 1536, ask: null, max: null };
  return { width: null, ask: null, max: null };
}

/** Why a configuration cannot be served by its model, before anything is sent; null when it may be. */
export function configProblem(c: EmbeddingConfig, facts: ModelFacts): string | null {
  if (facts.ask && facts.max !== null && c.dims > facts.max)
    return `${c.model} makes at most ${facts.max} numbers per text, and the embedding is configured for ${c.dims}: choose ${facts.max} dimensions or fewer`;
  if (!facts.ask && facts.width !== null && facts.width < c.dims)
    return `${c.model} makes ${facts.width} numbers per text, fewer than the ${c.dims} the embedding is configured for: choose ${facts.width} dimensions or fewer`;
  return null;
}

/** The body of one POST /v1/embeddings, in the provider's own shape. */
export function embeddingRequest(family: EmbedFamily, c: EmbeddingConfig, texts: string[]): Record<string, unknown> {
  const facts = modelFacts(family, c.model);
  if (family === 'mistral') {
    const body: Record<string, unknown> = { model: c.model, input: texts, encoding_format: 'float' };
    if (facts.ask === 'output_dimension') {
      body['output_dimension'] = c.dims;
      body['output_dtype'] = 'float';
    }
    return body;
  }
  const body: Record<string, unknown> = { model: c.model, input: texts, encoding_format: 'float' };
  if (facts.ask === 'dimensions') body['dimensions'] = c.dims;
  return body;
}

/** Numbers per vector the answer should carry: the configured dims when asked for, else the model's width. */
export function expectedWidth(family: EmbedFamily, c: EmbeddingConfig): number | null {
  const facts = modelFacts(family, c.model);
  return facts.ask ? c.dims : facts.width;
}

/**
 * Texts cut into requests: each text at most perInput bytes (so at most
 * perInput tokens), each request within the service's inputs and tokens, the
 * device's DEVICE_BATCH and an answer of at most ANSWER_NUMBERS numbers.
 * Returns the batches as lists of indexes into texts.
 */
export function batches(texts: readonly string[], family: EmbedFamily, width: number | null): number[][] {
  const lim = LIMITS[family];
  const most = Math.max(1, Math.min(DEVICE_BATCH, lim.inputs, Math.floor(ANSWER_NUMBERS / (width ?? UNKNOWN_WIDTH))));
  const out: number[][] = [];
  let cur: number[] = [];
  let tokens = 0;
  texts.forEach((t, i) => {
    const n = tokenBound(t);
    if (cur.length && (cur.length >= most || tokens + n > lim.tokens)) {
      out.push(cur);
      cur = [];
      tokens = 0;
    }
    cur.push(i);
    tokens += n;
  });
  if (cur.length) out.push(cur);
  return out;
}

/** A text as it is sent: cut to the service's per-text limit on a character boundary. */
export function wireText(text: string, family: EmbedFamily): string {
  return capBytes(text, LIMITS[family].perInput);
}

/** The input tokens an answer reports (OpenAI {prompt_tokens, total_tokens}; Mistral's UsageInfo), or null. */
export function answerTokens(answer: unknown): number | null {
  if (!isPlainObject(answer) || !isPlainObject(answer['usage'])) return null;
  const u = answer['usage'];
  const n = typeof u['prompt_tokens'] === 'number' ? u['prompt_tokens'] : u['total_tokens'];
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
}

/**
 * The vectors of an answer to `count` texts, in the order of the texts, all of
 * one width; or a sentence saying what is wrong with it (`who` names the provider).
 */
export function answerVectors(answer: unknown, count: number, who: string): number[][] | string {
  const data = isPlainObject(answer) ? answer['data'] : undefined;
  if (!Array.isArray(data)) return `${who} answered something that is not a list of embeddings`;
  if (data.length !== count) return `${who} answered ${data.length} vectors for ${count} texts`;
  const out: Array<number[] | undefined> = new Array(count);
  let width = -1;
  for (const item of data as unknown[]) {
    const index = isPlainObject(item) ? item['index'] : undefined;
    const emb = isPlainObject(item) ? item['embedding'] : undefined;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || out[index])
      return `${who} answered a vector with a missing, repeated or out-of-range index`;
    if (!Array.isArray(emb) || emb.length === 0) return `${who} answered an embedding that is not a list of numbers`;
    for (const x of emb as unknown[]) if (typeof x !== 'number' || !Number.isFinite(x)) return `${who} answered an embedding with something other than finite numbers in it`;
    if (width >= 0 && emb.length !== width) return `${who} answered vectors of different lengths (${width} and ${emb.length} numbers)`;
    width = emb.length;
    out[index] = emb as number[];
  }
  return out as number[][];
}
