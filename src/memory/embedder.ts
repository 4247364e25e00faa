// What turns text into a vector: the embedding configuration (provider,
// model, dims; set once, and changing it wipes and re-embeds the store) and
// the Embedder interface that the offline and the remote embedders share.

import { DEFAULT_DIMS, MAX_DIMS, MIN_DIMS } from './limits.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const PROVIDER_ID = /^[a-z0-9_-]{1,15}$/;
const MODEL_ID = /^[A-Za-z0-9._:/-]{1,63}$/;

export interface EmbeddingConfig {
  /** 'offline' (on the device, no network) or a provider id with an embeddings endpoint. */
  provider: string;
  model: string;
  dims: number;
}

export const OFFLINE_PROVIDER = 'offline';
export const OFFLINE_MODEL = 'hash-ngram-1';
export const DEFAULT_EMBEDDING: EmbeddingConfig = { provider: OFFLINE_PROVIDER, model: OFFLINE_MODEL, dims: DEFAULT_DIMS };

/** Thrown when an embedding cannot be made (no key, network, bad answer). */
export class EmbedError extends Error {}

export interface Embedder {
  readonly config: EmbeddingConfig;
  /** One vector of config.dims per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** The identity written into the store's files: vectors of another identity are not comparable. */
export function embeddingId(c: EmbeddingConfig): string {
  return `${c.provider}/${c.model}/${c.dims}`;
}

export function sameEmbedding(a: EmbeddingConfig, b: EmbeddingConfig): boolean {
  return embeddingId(a) === embeddingId(b);
}

/** Checks a configuration's shape; returns an error sentence or null. */
export function checkEmbeddingConfig(c: EmbeddingConfig): string | null {
  if (!PROVIDER_ID.test(c.provider)) return 'provider must be 1-15 characters of a-z 0-9 _ -';
  if (!MODEL_ID.test(c.model)) return 'model must be 1-63 characters without spaces';
  if (!Number.isInteger(c.dims) || c.dims < MIN_DIMS || c.dims > MAX_DIMS || c.dims % 4 !== 0)
    return `dims must be a multiple of 4 from ${MIN_DIMS} to ${MAX_DIMS}`;
  if (c.provider === OFFLINE_PROVIDER && c.model !== OFFLINE_MODEL) return `the offline embedder's model is ${OFFLINE_MODEL}`;
  return null;
}
