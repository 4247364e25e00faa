// Typed-array columns that grow in place of a JavaScript array per row: the
// memory index keeps every per-row field this way (vector-index.ts,
// term-pool.ts, content-places.ts).

export type Column = Int8Array | Uint8Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/** A copy of a with room for n entries. */
export function grown<T extends Column>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}
