/*
 * vecdot: int8 dot products and top-k cosine search over a packed int8 matrix.
 *
 * Portable C99, no XS, no intrinsics, no assembly. Two implementations give
 * the same results; VECDOT_SIMD picks one at compile time (define it to 0 or
 * 1 to override the default):
 *  - VECDOT_SIMD 1, the default when the target has SIMD the compiler
 *    auto-vectorizes for (x86 SSE2 and up, Arm NEON, WebAssembly SIMD,
 *    POWER AltiVec, RISC-V V): loops written for gcc/clang's vectorizer (on
 *    x86 with -march=native they reach the single-core memory bandwidth);
 *  - VECDOT_SIMD 0, otherwise (the device's cores: RISC-V rv32imc, Xtensa):
 *    scalar loops that hold the query in registers across rows, and a
 *    top-k that skips the soft-float scoring of rows that cannot enter it.
 *
 * Results are bit for bit those of the TypeScript fallback in vecdot.ts:
 *  - dot: the exact integer sum, reduced modulo 2^32 to int32 (the reduction
 *    only matters past 131072 elements);
 *  - score_i = (float)((double)dot_i / ((double)norms[i] * qnorm)), each
 *    operation an IEEE double operation (do not build with -ffast-math);
 *  - rows with norms[i] == 0, or whose score is NaN, are skipped;
 *  - order: score descending, ties by lower row index.
 */
#ifndef VECDOT_H
#define VECDOT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Integer dot product of a[0..n) and b[0..n). */
int32_t vecdot_dot(const int8_t *a, const int8_t *b, size_t n);

/*
 * Top-k cosine similarity of query (dims int8) against each row of matrix
 * (rows x dims int8, row-major). norms[i] is the L2 norm of row i, qnorm the
 * query's. Writes up to k results, best first, into outIdx[0..) / outScore[0..)
 * (both must hold k entries; they are also used as the working buffer, so
 * there is no limit on k). Returns the count written: min(k, rows kept), and
 * 0 when qnorm == 0 or k == 0.
 */
size_t vecdot_topk(const int8_t *matrix, size_t rows, size_t dims,
                   const float *norms, const int8_t *query, double qnorm,
                   size_t k, int32_t *outIdx, float *outScore);

#ifdef __cplusplus
}
#endif

#endif /* VECDOT_H */
