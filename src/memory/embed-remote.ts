// The remote embedder: an OpenAI-compatible POST <base>/v1/embeddings
// through the device's HTTP client, used when the configured provider has
// an endpoint (and, over https, a key). Keys come from an EmbeddingKeys
// source (the provider settings) and are never logged or sent over plain
// http:// (spec: a plain-HTTP custom endpoint runs keyless).

import type { HttpClient } from '../net/http/client.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode } from '../util/utf8.ts';
import { EmbedError, type Embedder, type EmbeddingConfig } from './embedder.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const TRAILING_SLASHES = /\/+$/;

export interface EmbeddingEndpoint {
  /** e.g. https://api.example.com (the path /v1/embeddings is appended). */
  baseUrl: string;
  key: string | null;
}

/** Where a provider's embeddings endpoint and key come from (null: not usable on this device). */
export interface EmbeddingKeys {
  endpoint(provider: string): EmbeddingEndpoint | null;
}

export const NO_KEYS: EmbeddingKeys = { endpoint: () => null };

/** Texts per request: keeps a re-embed of thousands of memories to a few hundred calls. */
export const REMOTE_BATCH = 32;
const TIMEOUT_MS = 30_000;

export class RemoteEmbedder implements Embedder {
  constructor(
    readonly config: EmbeddingConfig,
    private readonly client: HttpClient,
    private readonly keys: EmbeddingKeys,
  ) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += REMOTE_BATCH) out.push(...(await this.batch(texts.slice(i, i + REMOTE_BATCH))));
    return out;
  }

  private async batch(texts: string[]): Promise<Float32Array[]> {
    const ep = this.keys.endpoint(this.config.provider);
    if (!ep) throw new EmbedError(`embedding provider ${this.config.provider} has no endpoint or key on this device`);
    const base = ep.baseUrl.replace(TRAILING_SLASHES, '');
    const https = base.startsWith('https://');
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (ep.key && https) headers['Authorization'] = `Bearer ${ep.key}`;
    const res = await this.client.request({
      method: 'POST',
      url: `${base}/v1/embeddings`,
      headers,
      body: stringify({ model: this.config.model, input: texts, dimensions: this.config.dims, encoding_format: 'float' }),
      timeoutMs: TIMEOUT_MS,
      maxBodyBytes: 4 * 1024 * 1024,
    });
    if (!res.ok) throw new EmbedError(`embedding request failed (${res.error}): ${res.message}`);
    const { status, body } = res.response;
    if (status !== 200) throw new EmbedError(`embedding provider answered HTTP ${status}`);
    const parsed = parseJson(decode(body));
    const data = parsed.ok && isPlainObject(parsed.value) ? parsed.value['data'] : undefined;
    if (!Array.isArray(data) || data.length !== texts.length) throw new EmbedError('embedding provider gave a malformed answer');
    const out: Float32Array[] = new Array(texts.length);
    data.forEach((item: unknown, n: number) => {
      const index = isPlainObject(item) && typeof item['index'] === 'number' ? item['index'] : n;
      const emb = isPlainObject(item) ? item['embedding'] : undefined;
      if (!Array.isArray(emb) || emb.length !== this.config.dims || !Number.isInteger(index) || index < 0 || index >= texts.length)
        throw new EmbedError(`embedding provider gave vectors that are not ${this.config.dims} numbers`);
      const v = new Float32Array(this.config.dims);
      for (let i = 0; i < v.length; i++) {
        const x = emb[i];
        if (typeof x !== 'number' || !Number.isFinite(x)) throw new EmbedError('embedding provider gave a non-number');
        v[i] = x;
      }
      out[index] = v;
    });
    if (out.some((v) => !v)) throw new EmbedError('embedding provider gave a malformed answer');
    return out;
  }
}
