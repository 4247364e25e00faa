// The remote embedder: POST /v1/embeddings to OpenAI, Mistral or the owner's
// custom endpoint through the device's HTTP client, each in its own request
// shape and within its own batch limits (embed-wire.ts). Every answer is
// checked (one vector per text, each index once, finite numbers, one width)
// and brought to the configured dims: as answered, or reduced by the fixed
// projection of embed-reduce.ts when the model answers more and cannot be
// asked for fewer; fewer than configured is refused.
//
// Keys and budgets come from an EmbeddingKeys source (keys.ts: the provider
// settings and the usage ledger). A key never goes over plain http:// (a
// plain-HTTP custom endpoint runs keyless) and is never put in an error. A
// provider at or past its monthly token budget is refused before anything is
// sent; every answer's input tokens count against its provider. Every failure
// is an EmbedError whose message an owner can read; nothing is half done (a
// call embeds all its texts or throws).

import type { HttpClient } from '../net/http/client.ts';
import { capBytes } from '../util/cap.ts';
import { jsonBody, parseJson } from '../util/json.ts';
import { cleanBase, isPlainHttp } from '../net/url.ts';
import { decode } from '../util/utf8.ts';
import { errorText, leaksKey } from '../providers/index.ts';
import { EmbedError, type Embedder, type EmbeddingConfig } from './embedder.ts';
import { reduceVector } from './embed-reduce.ts';
import {
  answerTokens,
  answerVectors,
  batches,
  configProblem,
  embeddingRequest,
  expectedWidth,
  familyOf,
  modelFacts,
  providerLabel,
  UNKNOWN_WIDTH,
  wireText,
  type EmbedFamily,
} from './embed-wire.ts';

export interface EmbeddingEndpoint {
  /** e.g. https://api.example.com (the path /v1/embeddings is appended). */
  baseUrl: string;
  key: string | null;
}

/**
 * Where a provider's embeddings endpoint and key come from, and where its
 * spending is counted (keys.ts makes the device's from the provider settings
 * and the usage ledger).
 */
export interface EmbeddingKeys {
  /** The provider's endpoint and key; null when it has none on this device. */
  endpoint(provider: string): EmbeddingEndpoint | null;
  /** Why no call may go to the provider now (its monthly budget is used up), or null. Absent: no budgets. */
  refusal?(provider: string): string | null;
  /** Counts an answer's input tokens against the provider. Absent: not counted. */
  spent?(provider: string, inputTokens: number): void;
}

export const NO_KEYS: EmbeddingKeys = { endpoint: () => null };

/** A request's whole exchange. */
export const EMBED_TIMEOUT_MS = 30_000;
/** Longest provider message kept in an error. */
const WORDS_MAX = 200;

export class RemoteEmbedder implements Embedder {
  constructor(
    readonly config: EmbeddingConfig,
    private readonly client: Pick<HttpClient, 'request'>,
    private readonly keys: EmbeddingKeys,
  ) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const c = this.config;
    const family = familyOf(c.provider);
    if (!family) throw new EmbedError(`${c.provider} has no embeddings endpoint on this device: use openai, mistral or the custom endpoint`);
    const problem = configProblem(c, modelFacts(family, c.model));
    if (problem) throw new EmbedError(problem);
    const out: Float32Array[] = new Array(texts.length);
    // An empty text means nothing and the services refuse it ("'$.input' is invalid"): it is the zero vector, unsent.
    const sent: number[] = [];
    const wire: string[] = [];
    texts.forEach((t, i) => {
      if (t.trim() === '') out[i] = new Float32Array(c.dims);
      else {
        sent.push(i);
        wire.push(wireText(t, family));
      }
    });
    for (const batch of batches(wire, family, expectedWidth(family, c))) {
      const vectors = await this.request(family, batch.map((k) => wire[k]!));
      batch.forEach((k, n) => (out[sent[k]!] = vectors[n]!));
    }
    return out;
  }

  /** One POST /v1/embeddings: the vectors of texts, in order, at the configured dims. */
  private async request(family: EmbedFamily, texts: string[]): Promise<Float32Array[]> {
    const c = this.config;
    const who = providerLabel(c.provider);
    const ep = this.keys.endpoint(c.provider);
    if (!ep)
      throw new EmbedError(c.provider === 'custom' ? 'the custom endpoint has no base URL set: set it on the web page' : `no ${c.provider} key is set: add it on the web page to embed with ${c.provider}`);
    const refused = this.keys.refusal?.(c.provider) ?? null;
    if (refused) throw new EmbedError(refused);
    const base = cleanBase(ep.baseUrl);
    if (!base) throw new EmbedError(`${who} has no usable base URL (an http or https URL is needed)`);
    const url = `${base}/v1/embeddings`;
    const plain = isPlainHttp(url);
    // A key never goes over plain http://: a keyed provider there is refused, the custom endpoint runs keyless.
    if (plain && c.provider !== 'custom') throw new EmbedError(`refusing to send the ${c.provider} key over plain http: its endpoint must be https`);
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (ep.key && !plain) headers['Authorization'] = `Bearer ${ep.key}`;
    if (leaksKey(url, headers, ep.key)) throw new EmbedError(`refusing to send the ${c.provider} key over plain http`);
    const width = expectedWidth(family, c) ?? UNKNOWN_WIDTH;
    const res = await this.client.request({
      method: 'POST',
      url,
      headers,
      body: jsonBody(embeddingRequest(family, c, texts)),
      timeoutMs: EMBED_TIMEOUT_MS,
      // The answer's JSON: about 22 bytes a number, with room for a model wider than expected.
      maxBodyBytes: Math.max(256 * 1024, texts.length * width * 32),
    });
    if (!res.ok) throw new EmbedError(clientFailure(who, res.error, res.message, ep.key));
    const { status, body } = res.response;
    if (status < 200 || status > 299) throw new EmbedError(statusFailure(who, c.provider, status, body, ep.key));
    const parsed = parseJson(decode(body));
    const answer = parsed.ok ? parsed.value : undefined;
    // Counted as soon as it is read: the provider charged for it, whatever comes next.
    const tokens = answerTokens(answer);
    if (tokens) this.keys.spent?.(c.provider, tokens);
    const vectors = answerVectors(answer, texts.length, who);
    if (typeof vectors === 'string') throw new EmbedError(vectors);
    return vectors.map((v) => this.fit(family, v, who));
  }

  /** A vector at the configured dims: as answered, or reduced when the model could not be asked for fewer. */
  private fit(family: EmbedFamily, v: number[], who: string): Float32Array {
    const c = this.config;
    if (v.length === c.dims) return Float32Array.from(v);
    if (v.length < c.dims)
      throw new EmbedError(`${who} answered vectors of ${v.length} numbers, fewer than the ${c.dims} the embedding is configured for: choose ${v.length} dimensions or fewer for ${c.model}`);
    if (modelFacts(family, c.model).ask) throw new EmbedError(`${who} answered ${v.length} numbers per text though ${c.dims} were asked for`);
    return reduceVector(v, c.dims);
  }
}

/** A failed exchange in an owner's words. */
function clientFailure(who: string, kind: string, message: string, key: string | null): string {
  if (kind === 'timeout') return `${who} did not answer the embedding request within ${EMBED_TIMEOUT_MS / 1000} s`;
  if (kind === 'too-large') return `${who} answered more than the device can read at once (its vectors are wider than expected)`;
  if (kind === 'bad-url') return `${who} has no usable base URL (${scrub(message, key)})`;
  return `could not reach ${who} for embeddings (${kind}: ${scrub(message, key)})`;
}

/** A non-2xx answer in an owner's words; the provider's own words after them (never a key). */
function statusFailure(who: string, provider: string, status: number, body: Uint8Array, key: string | null): string {
  // A refused key is named, never quoted: OpenAI's 401 echoes part of it.
  if (status === 401 || status === 403) return `${who} refused the key (HTTP ${status}): check the ${provider} key on the web page`;
  const words = scrub(errorText(body), key);
  const said = words ? `: ${words}` : '';
  if (status === 429) return `${who} is limiting embedding requests (HTTP 429)${said}; try again later`;
  if (status >= 500) return `${who} had a server error embedding (HTTP ${status})${said}`;
  return `${who} refused the embedding request (HTTP ${status})${said}`;
}

function scrub(text: string, key: string | null): string {
  const t = key ? text.split(key).join('[key]') : text;
  return capBytes(t.trim(), WORDS_MAX);
}

