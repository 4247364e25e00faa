// Fewer numbers from a wider vector, the same way on every device and every
// boot: used when a provider answers more numbers than the embedding is
// configured for and cannot be asked for fewer (mistral-embed answers 1024).
//
// A count sketch (a sparse random projection; Charikar, Chen and
// Farach-Colton 2002; Weinberger et al. 2009, "Feature hashing"): input
// coordinate j is added to output bucket b(j) with sign s(j), both from a
// fixed seeded hash of j. With b and s uniform and independent, E[<Rx, Ry>]
// = <x, y> (the cross terms cancel in expectation), so inner products, norms
// and hence cosine similarity are preserved in expectation, with the spread a
// dense random projection has (about (1 - cos^2) / sqrt(dims) for a cosine:
// 0.05 rms from 1024 to 256 numbers, test/unit/memory/embed-reduce.test.ts). Unlike
// truncation (which keeps only the first numbers, meaningful for Matryoshka
// models alone) it uses every number the provider sent; unlike a dense
// projection it costs one add per input number and needs no matrix in RAM.
// The result is L2-normalized, as the services' own vectors are.
//
// The seed and the hash are part of the stored vectors' meaning: changing
// either makes every reduced vector incomparable with the stored ones, so it
// would need a new embedding identity (docs/decisions.md, "Remote embeddings").

/** The projection's seed (fixed forever for this identity). */
export const REDUCE_SEED = 0x5eed_0e3b;

/** murmur3's finalizer: spreads j's bits so bucket and sign are independent. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The input coordinate's bucket hash: bit 0 is the sign, the rest choose the bucket. */
function coordHash(j: number): number {
  return mix((Math.imul(j + 1, 0x9e3779b1) ^ REDUCE_SEED) >>> 0);
}

/** v (any width above dims) projected to dims numbers, unit length (all zeros stays all zeros). */
export function reduceVector(v: ArrayLike<number>, dims: number): Float32Array {
  // Sums in doubles, in input order: the same bits on every engine (IEEE 754).
  const acc: number[] = new Array(dims).fill(0);
  for (let j = 0; j < v.length; j++) {
    const h = coordHash(j);
    const b = (h >>> 1) % dims;
    acc[b]! += h & 1 ? -v[j]! : v[j]!;
  }
  let norm = 0;
  for (const x of acc) norm += x * x;
  const out = new Float32Array(dims);
  if (norm === 0) return out;
  const k = 1 / Math.sqrt(norm);
  for (let i = 0; i < dims; i++) out[i] = acc[i]! * k;
  return out;
}
