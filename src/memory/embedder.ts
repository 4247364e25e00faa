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
/** The feature-hashing embedder (embed-offline.ts): words, not meaning; what runs when the image has no table. */
export const HASH_MODEL = 'hash-ngram-1';
/** The embedding of an image without the static table (the table's own model is the default where it ships: memory.ts). */
export const HASH_EMBEDDING: EmbeddingConfig = { provider: OFFLINE_PROVIDER, model: HASH_MODEL, dims: DEFAULT_DIMS };

/** Thrown when an embedding cannot be made (no key, network, bad answer). */
export class EmbedError extends Error {}

export interface Embedder {
  readonly config: EmbeddingConfig;
  /**
   * The mean direction of texts under this embedder (the average of their unit
   * vectors), when known: a query's dot with it is the cosine the query can
   * expect with an unrelated text, and the similarity shown is calibrated by
   * it (ranking.ts), so vectors that share a common direction are not read as
   * "all alike". Without it the cosine is shown as it is.
   */
  readonly mean?: Float32Array;
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

/** Checks a configuration's shape against the offline models this image has; returns an error sentence or null. */
export function checkEmbeddingConfig(c: EmbeddingConfig, offlineModels: readonly string[] = [HASH_MODEL]): string | null {
  if (!PROVIDER_ID.test(c.provider)) return 'provider must be 1-15 characters of a-z 0-9 _ -';
  if (!MODEL_ID.test(c.model)) return 'model must be 1-63 characters without spaces';
  if (!Number.isInteger(c.dims) || c.dims < MIN_DIMS || c.dims > MAX_DIMS || c.dims % 4 !== 0)
    return `dims must be a multiple of 4 from ${MIN_DIMS} to ${MAX_DIMS}`;
  if (c.provider === OFFLINE_PROVIDER && !offlineModels.includes(c.model)) return `the offline models of this firmware are ${offlineModels.join(', ')}`;
  return null;
}
