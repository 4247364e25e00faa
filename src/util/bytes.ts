// Byte-array helpers shared by the wire code (multipart bodies, tunnel
// frames, downloaded images).

/** One array holding the parts in order. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
