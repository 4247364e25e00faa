// The int8 vector hotspot's API: dot products and top-k cosine over a packed
// int8 matrix. Three implementations share it bit for bit: the C in
// vecdot.c (through __native on XS), and the pure TypeScript fallback here.
//
// Exact semantics (both implementations):
// - dot: the exact integer sum of a[i] * b[i] over the shorter length,
//   reduced modulo 2^32 to an int32 (only matters past 131072 elements).
// - topk: score_i = Math.fround(dot_i / (norms[i] * qnorm)), every operation
//   an IEEE double operation; rows whose norm is 0 or whose score is NaN are
//   skipped; results by score descending, ties by lower row index; returns 0
//   when k, rows or qnorm is 0 (or qnorm is NaN); k larger than rows is
//   clamped. Errors (RangeError): a negative rows/dims/k, matrix shorter than
//   rows * dims, norms shorter than rows, query shorter than dims, outIdx or
//   outScore shorter than k.
//
// Runs on XS: ES2022 only, no host globals. The host passes the __native
// object to vecdotNative(); nothing here reads globals.

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

/** The functions the runtime puts on `__native` (docs/sim-protocol.md). */
export interface NativeVecdot {
  vecdotDot: VecdotApi['dot'];
  vecdotTopk: VecdotApi['topk'];
}

/** True when obj carries the vecdot functions (e.g. the runtime's __native). */
export function hasNativeVecdot(obj: unknown): obj is NativeVecdot {
  const n = obj as Partial<NativeVecdot> | null | undefined;
  return !!n && typeof n.vecdotDot === 'function' && typeof n.vecdotTopk === 'function';
}

/** The C implementation through the runtime's __native functions. */
export function vecdotNative(n: NativeVecdot): VecdotApi {
  const dot = n.vecdotDot;
  const topk = n.vecdotTopk;
  return {
    native: true,
    dot: (a, b) => dot(a, b),
    topk: (matrix, rows, dims, norms, query, qnorm, k, outIdx, outScore) =>
      topk(matrix, rows, dims, norms, query, qnorm, k, outIdx, outScore),
  };
}

function count(value: number, name: string): number {
  const v = Math.trunc(value);
  if (!(v >= 0)) throw new RangeError(`${name}: negative`);
  return v;
}

/** Dot of m[off .. off+n) and q[0 .. n), exact (unrolled for XS). */
function dotAt(m: Int8Array, off: number, q: Int8Array, n: number): number {
  let s = 0;
  let j = 0;
  const n8 = n - 7;
  for (; j < n8; j += 8, off += 8) {
    s +=
      m[off]! * q[j]! +
      m[off + 1]! * q[j + 1]! +
      m[off + 2]! * q[j + 2]! +
      m[off + 3]! * q[j + 3]! +
      m[off + 4]! * q[j + 4]! +
      m[off + 5]! * q[j + 5]! +
      m[off + 6]! * q[j + 6]! +
      m[off + 7]! * q[j + 7]!;
  }
  for (; j < n; j++, off++) s += m[off]! * q[j]!;
  return s;
}

/**
 * Dot of n4 words of packed int8 (4 per int32) at m[off4 ..) and q[0 ..),
 * exact. On XS one typed-array read per 4 bytes, with the bytes taken apart
 * by shifts, runs twice as fast as byte reads. Byte order does not matter:
 * both operands are split the same way.
 */
function dotPacked(m: Int32Array, off4: number, q: Int32Array, n4: number): number {
  let s = 0;
  for (let j = 0; j < n4; j++, off4++) {
    const a = m[off4]!;
    const b = q[j]!;
    s +=
      ((a << 24) >> 24) * ((b << 24) >> 24) +
      ((a << 16) >> 24) * ((b << 16) >> 24) +
      ((a << 8) >> 24) * ((b << 8) >> 24) +
      (a >> 24) * (b >> 24);
  }
  return s;
}

/** An int32 view of the whole words of a, or undefined when a is not 4-byte aligned. */
function words(a: Int8Array): Int32Array | undefined {
  return a.byteOffset % 4 === 0 ? new Int32Array(a.buffer, a.byteOffset, a.length >> 2) : undefined;
}

/** The pure TypeScript implementation, bit for bit the C's results. */
export const vecdotFallback: VecdotApi = {
  native: false,
  dot(a: Int8Array, b: Int8Array): number {
    const n = a.length < b.length ? a.length : b.length;
    const a4 = n >= 16 ? words(a) : undefined;
    const b4 = a4 ? words(b) : undefined;
    if (!a4 || !b4) return dotAt(a, 0, b, n) | 0;
    const n4 = n >> 2;
    return (dotPacked(a4, 0, b4, n4) + dotAt(a.subarray(n4 * 4), 0, b.subarray(n4 * 4), n - n4 * 4)) | 0;
  },
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
  ): number {
    rows = count(rows, 'rows');
    dims = count(dims, 'dims');
    k = count(k, 'k');
    qnorm = +qnorm;
    if (matrix.length < rows * dims) throw new RangeError('matrix shorter than rows * dims');
    if (norms.length < rows) throw new RangeError('norms shorter than rows');
    if (query.length < dims) throw new RangeError('query shorter than dims');
    if (outIdx.length < k || outScore.length < k) {
      throw new RangeError('outIdx/outScore shorter than k');
    }
    if (k === 0 || rows === 0 || qnorm === 0 || qnorm !== qnorm) return 0;
    if (k > rows) k = rows;
    // packed reads when every row starts on a 4-byte boundary
    const m4 = dims % 4 === 0 && dims > 0 ? words(matrix) : undefined;
    const q4 = m4 ? words(query) : undefined;
    const dims4 = dims >> 2;
    let n = 0;
    for (let r = 0, off = 0; r < rows; r++, off += dims) {
      const nr = norms[r]!;
      if (nr === 0) continue;
      const dot = m4 && q4 ? dotPacked(m4, off >> 2, q4, dims4) : dotAt(matrix, off, query, dims);
      const score = Math.fround((dot | 0) / (nr * qnorm));
      if (score !== score) continue;
      if (n === k && !(score > outScore[k - 1]!)) continue;
      let j = n < k ? n : k - 1;
      while (j > 0 && outScore[j - 1]! < score) {
        outScore[j] = outScore[j - 1]!;
        outIdx[j] = outIdx[j - 1]!;
        j--;
      }
      outScore[j] = score;
      outIdx[j] = r;
      if (n < k) n++;
    }
    return n;
  },
};

/**
 * Quantizes a float vector to int8 for the search: a symmetric scale maps the
 * largest magnitude to 127 (q[i] = round(v[i] * 127 / max|v|), halves away
 * from zero, so values lie in [-127, 127]; -128 is never produced), and non-finite entries count as 0.
 * `norm` is the L2 norm of the int8 vector, rounded to float32: store it in
 * the row norms (Float32Array) or pass it as qnorm, so that the score is the
 * cosine of the quantized vectors. An all-zero vector gives norm 0, which
 * topk skips (as a row) or answers with no results (as a query).
 * `out`, when given, must hold at least vec.length entries; q is then out
 * itself, or its prefix of vec.length entries.
 */
export function quantize(
  vec: Float32Array | readonly number[],
  out?: Int8Array,
): { q: Int8Array; norm: number } {
  const n = vec.length;
  let q: Int8Array;
  if (out) {
    if (out.length < n) throw new RangeError('quantize: out shorter than vec');
    q = out.length === n ? out : out.subarray(0, n);
  } else {
    q = new Int8Array(n);
  }
  let max = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(vec[i]!);
    if (a > max && a !== Infinity) max = a;
  }
  const scale = max > 0 ? 127 / max : 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const v = vec[i]!;
    // round half away from zero (symmetric); NaN and +-Infinity -> 0
    let x = v - v === 0 ? Math.round(Math.abs(v) * scale) : 0;
    if (x > 127) x = 127;
    if (v < 0) x = -x;
    q[i] = x;
    sum += x * x;
  }
  return { q, norm: Math.fround(Math.sqrt(sum)) };
}
