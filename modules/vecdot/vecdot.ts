// The int8 vector hotspot's API: dot products and top-k cosine over a packed
// int8 matrix. Three implementations share it bit for bit: the C in
// vecdot.c (through __native on XS), and the pure TypeScript fallback here.
// (Skeleton: the helper completing modules/ fills in the bodies.)

export interface VecdotApi {
  readonly native: boolean;
  /** Integer dot product over the shorter of the two lengths. */
  dot(a: Int8Array, b: Int8Array): number;
  /**
   * Top-k cosine similarity of query against each row of matrix (rows x dims,
   * row-major). norms[i] is the L2 norm of row i (0 skips the row); qnorm the
   * query's. Score = fround(dot / (norms[i] * qnorm)), computed in double.
   * Writes the best k in descending score (ties: lower row first) into
   * outIdx/outScore and returns how many were written (min(k, rows kept)).
   */
  topk(
    matrix: Int8Array,
    rows: number,
    dims: number,
    norms: Float32Array,
    query: Int8Array,
    qnorm: number,
    k: number,
    outIdx: Int32Array,
    outScore: Float32Array,
  ): number;
}
