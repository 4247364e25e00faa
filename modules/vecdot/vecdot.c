/*
 * vecdot: int8 dot products and top-k cosine search. See vecdot.h.
 *
 * Two ways to the same results, chosen at compile time by VECDOT_SIMD (see
 * vecdot.h): whether the target has SIMD that the compiler's
 * auto-vectorization can be relied on for.
 *
 * With SIMD (x86, Arm NEON, ...): vecdot_chunk() is the only hot loop, a
 * plain "sum += (int)a[i] * (int)b16[i]" of int8 by int16 into int32. With
 * one operand already int16, gcc recognizes a dot-product reduction and
 * vectorizes it (x86: pmaddwd, or vpdpwssd with AVX512-VNNI); with both
 * operands int8 it does not (pmullw and widening adds, 2.5x slower). So the
 * query is widened to int16 once per chunk of VECDOT_CHUNK elements, and
 * that copy serves every row of a batch. Top-k computes the dots of a batch
 * of rows, then their scores in a second loop (double division, which
 * vectorizes too), then offers each score to an insertion-sorted buffer (the
 * caller's output arrays); a score that does not beat the current k-th best
 * costs one comparison.
 *
 * Measured (gcc 12, x86-64 with AVX-512, 60000 x 256, k = 5): 0.41 ms per
 * query, 37 GB/s, above the single-core DRAM bandwidth (the matrix sits in
 * L3). The loop vectorizes only at -O3 (gcc's -O2 cost model refuses it and
 * runs 20x slower), hence the pragma below; define VECDOT_NO_O3 to leave the
 * optimization level to the build.
 *
 * Without SIMD (the device's cores: RISC-V rv32imc, Xtensa): scalar code
 * where each multiply-add costs a byte load, a multiply and an add, and
 * little else. vecdot_block() takes 16 query bytes into registers and runs
 * down the rows of a batch, 16 byte loads at constant offsets from the row
 * pointer per row (the loop over rows is the one that reuses the query
 * bytes); the bytes past a multiple of 16 are summed first, which also sets
 * the sums. The scoring, soft-float double on these cores (about 540
 * instructions a row, as much as 2 multiply-adds per element), is skipped
 * for a row that provably cannot enter the top k: once k rows are held,
 * the k-th best score t gives an integer test (vecdot_bar) that is false for
 * every row whose exact score could beat t, so only the few rows near t are
 * scored. rv32imc (gcc 12 -O2): 3.5 instructions per multiply-add for a
 * top-5 over 6000 x 256, 9.6 with the SIMD path's code (bench/riscv.mjs).
 */
#ifndef VECDOT_SIMD
#if defined(__SSE2__) || defined(__ARM_NEON) || defined(__ARM_NEON__) || \
	defined(__wasm_simd128__) || defined(__ALTIVEC__) || defined(__riscv_vector)
#define VECDOT_SIMD 1
#else
#define VECDOT_SIMD 0
#endif
#endif

#if defined(__GNUC__) && !defined(__clang__)
#if VECDOT_SIMD && !defined(VECDOT_NO_O3)
#pragma GCC optimize("O3")
#elif !VECDOT_SIMD
/* gcc's first scheduling pass, unaware of register pressure, hoists the 16
 * row loads of vecdot_block() above the multiplies and spills the query
 * bytes (rv32imc -O2: 4.1 instructions per multiply-add instead of 3.5). */
#pragma GCC optimize("sched-pressure")
#endif
#endif

#if defined(__GNUC__)
#define VECDOT_NOINLINE __attribute__((noinline))
#else
#define VECDOT_NOINLINE
#endif

#include "vecdot.h"

#define VECDOT_BATCH 64u  /* rows per dot/score batch in top-k */

/* uint32 (a sum kept modulo 2^32) to int32, two's complement, without
 * implementation-defined conversions. */
static int32_t vecdot_wrap(uint32_t total)
{
	if (total <= (uint32_t)INT32_MAX)
		return (int32_t)total;
	return (int32_t)(total - 2147483648u) + INT32_MIN;
}

/* Insert (idx, score) into the buffer of count entries sorted by score
 * descending (ties: lower index first; idx is always the highest seen so
 * far, so it goes after equal scores). The buffer holds k entries; when full
 * the last one falls off. Returns the new count. */
static size_t vecdot_insert(int32_t *outIdx, float *outScore, size_t count,
                            size_t k, int32_t idx, float score)
{
	size_t j = count < k ? count : k - 1;
	while (j > 0 && outScore[j - 1] < score) {
		outScore[j] = outScore[j - 1];
		outIdx[j] = outIdx[j - 1];
		j--;
	}
	outScore[j] = score;
	outIdx[j] = idx;
	return count < k ? count + 1 : k;
}

#if VECDOT_SIMD

#define VECDOT_CHUNK 512u /* elements of the int16 copy of b / query */

/* The hot loop: int8 times int16, summed into int32. With one operand
 * already int16, gcc recognizes a dot-product reduction (x86: pmaddwd, or
 * vpdpwssd with AVX512-VNNI). n <= VECDOT_CHUNK, so |sum| <= 2^23. */
static int32_t vecdot_chunk(const int8_t *a, const int16_t *b16, size_t n)
{
	int32_t sum = 0;
	size_t i;
	for (i = 0; i < n; i++)
		sum += (int32_t)(int16_t)a[i] * (int32_t)b16[i];
	return sum;
}

static void vecdot_widen(const int8_t *b, int16_t *b16, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		b16[i] = b[i];
}

int32_t vecdot_dot(const int8_t *a, const int8_t *b, size_t n)
{
	int16_t b16[VECDOT_CHUNK];
	uint32_t total = 0; /* wraps modulo 2^32, as the TypeScript "| 0" does */
	while (n > 0) {
		size_t len = n < VECDOT_CHUNK ? n : VECDOT_CHUNK;
		vecdot_widen(b, b16, len);
		total += (uint32_t)vecdot_chunk(a, b16, len);
		a += len;
		b += len;
		n -= len;
	}
	return vecdot_wrap(total);
}

size_t vecdot_topk(const int8_t *matrix, size_t rows, size_t dims,
                   const float *norms, const int8_t *query, double qnorm,
                   size_t k, int32_t *outIdx, float *outScore)
{
	int16_t q16[VECDOT_CHUNK];
	uint32_t sums[VECDOT_BATCH];
	int32_t dots[VECDOT_BATCH];
	float scores[VECDOT_BATCH];
	size_t count = 0;
	size_t base, i;

	if (k == 0 || rows == 0 || qnorm == 0.0 || qnorm != qnorm)
		return 0;
	if (k > rows)
		k = rows;

	for (base = 0; base < rows; base += VECDOT_BATCH) {
		size_t batch = rows - base < VECDOT_BATCH ? rows - base : VECDOT_BATCH;
		const float *nb = norms + base;
		size_t off;

		/* dots of the batch, one query chunk at a time (the int16 copy of
		 * the chunk is reused by every row of the batch) */
		for (i = 0; i < batch; i++)
			sums[i] = 0;
		for (off = 0; off < dims; off += VECDOT_CHUNK) {
			size_t len = dims - off < VECDOT_CHUNK ? dims - off : VECDOT_CHUNK;
			const int8_t *row = matrix + base * dims + off;
			vecdot_widen(query + off, q16, len);
			for (i = 0; i < batch; i++, row += dims)
				sums[i] += (uint32_t)vecdot_chunk(row, q16, len);
		}
		for (i = 0; i < batch; i++)
			dots[i] = vecdot_wrap(sums[i]);

		for (i = 0; i < batch; i++)
			scores[i] = (float)((double)dots[i] / ((double)nb[i] * qnorm));

		for (i = 0; i < batch; i++) {
			float s = scores[i];
			/* NaN and zero-norm rows are skipped; a full buffer admits only
			 * a strictly better score (equal scores keep the lower row). */
			if (nb[i] == 0.0f || s != s)
				continue;
			if (count == k && !(s > outScore[k - 1]))
				continue;
			count = vecdot_insert(outIdx, outScore, count, k,
			                      (int32_t)(base + i), s);
		}
	}
	return count;
}

#endif /* VECDOT_SIMD */

#if !VECDOT_SIMD

#define VECDOT_BLOCK 16u /* query bytes held in registers by vecdot_block() */

/* sums[r] += the dot of the 16 bytes of row r (row + r * dims) with q, for
 * the rows of a batch (batch >= 1). The query bytes stay in registers for
 * the batch; each row costs 16 loads, 16 multiplies, 16 adds and 5
 * instructions around them. Not inlined: in the caller, whose locals would
 * be live across the loop, gcc -Os spills the query bytes (rv32imc: 4.0
 * instructions per multiply-add instead of 3.6). */
static VECDOT_NOINLINE void vecdot_block(const int8_t *row, size_t dims, size_t batch,
                                         const int8_t *q, uint32_t *sums)
{
	const int32_t q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3];
	const int32_t q4 = q[4], q5 = q[5], q6 = q[6], q7 = q[7];
	const int32_t q8 = q[8], q9 = q[9], q10 = q[10], q11 = q[11];
	const int32_t q12 = q[12], q13 = q[13], q14 = q[14], q15 = q[15];
	uint32_t *last = sums + (batch - 1);
	for (;;) {
		*sums += (uint32_t)(row[0] * q0 + row[1] * q1 + row[2] * q2 + row[3] * q3
		                    + row[4] * q4 + row[5] * q5 + row[6] * q6 + row[7] * q7
		                    + row[8] * q8 + row[9] * q9 + row[10] * q10 + row[11] * q11
		                    + row[12] * q12 + row[13] * q13 + row[14] * q14 + row[15] * q15);
		if (sums == last)
			break; /* row is not moved past the last row of the matrix */
		sums++;
		row += dims;
	}
}

/* sums[r] = the dot of the n (< 16) bytes of row r with q: the elements past
 * the last whole block, summed first so that the sums start here. */
static void vecdot_tail(const int8_t *row, size_t dims, size_t batch,
                        const int8_t *q, size_t n, uint32_t *sums)
{
	size_t r, j;
	for (r = 0; r < batch; r++) {
		const int8_t *p = row + r * dims;
		int32_t s = 0;
		for (j = 0; j < n; j++)
			s += p[j] * q[j];
		sums[r] = (uint32_t)s;
	}
}

int32_t vecdot_dot(const int8_t *a, const int8_t *b, size_t n)
{
	uint32_t total = 0; /* wraps modulo 2^32, as the TypeScript "| 0" does */
	size_t i;
	for (i = 0; i < n; i++)
		total += (uint32_t)(a[i] * b[i]);
	return vecdot_wrap(total);
}

/*
 * The bar a row must clear to enter a full top-k, as integer tests on the
 * row's dot and the bits of its norm: a row is skipped when they show that
 * its score s = (float)(dot / ((double)norm * qnorm)) is <= t, the k-th best
 * score held. Every row it skips is one the exact test, !(s > t), would
 * skip; the rest take the exact test.
 *  - neg: t >= 0, so a row with a positive normal norm and dot <= 0 is out
 *    (its score is <= 0).
 *  - bound: t > 0. G = t * qnorm * (1 - 2^-20) >= g * 2^(c + 142), g the
 *    top 16 bits of G's significand and c its biased exponent - 1180; a
 *    positive normal norm >= m * 2^(e - 142), m the top 16 bits of its
 *    significand and e its biased exponent. A row with dot <= g * m *
 *    2^(e + c) <= G * norm has an exact quotient dot / (norm * qnorm) <=
 *    t * (1 - 2^-20); the two double roundings add at most 2^-52 to it, and
 *    rounding to float cannot take it above the float t. Needs norm * qnorm
 *    to be a normal double, hence qnorm in [2^-100, 2^100] (fast).
 * The bounds are set again whenever t changes (at most once per insertion).
 */
typedef struct {
	int neg;    /* skip dot <= 0 */
	int bound;  /* g, c hold a lower bound of G */
	uint32_t g; /* top 16 bits of G's significand */
	int32_t c;  /* G's biased exponent - 1180 */
} vecdot_bar;

static void vecdot_bar_set(vecdot_bar *bar, float t, double qnorm, int fast)
{
	bar->neg = fast && t >= 0.0f;
	bar->bound = 0;
	if (bar->neg && t > 0.0f) {
		union {
			double d;
			uint64_t u;
		} G;
		uint32_t e;
		G.d = (double)t * qnorm * (1.0 - 0x1p-20);
		e = (uint32_t)(G.u >> 52) & 0x7ffu;
		if (e >= 1u && e <= 2046u) {
			bar->g = 0x8000u | ((uint32_t)(G.u >> 37) & 0x7fffu);
			bar->c = (int32_t)e - 1180;
			bar->bound = 1;
		}
	}
}

/* True when the row (dot, norm bits) surely cannot clear the bar. */
static int vecdot_below(const vecdot_bar *bar, int32_t dot, uint32_t nbits)
{
	int32_t sh;
	uint32_t p;
	if (!bar->neg || nbits - 0x00800000u >= 0x7f000000u)
		return 0; /* no bar, or a norm not positive and normal */
	if (dot <= 0)
		return 1;
	if (!bar->bound)
		return 0;
	sh = (int32_t)(nbits >> 23) + bar->c; /* dot is compared with g * m * 2^sh */
	if (sh >= 1)
		return 1; /* g * m >= 2^30, so g * m * 2^sh > INT32_MAX >= dot */
	if (sh <= -32)
		return 0;
	p = bar->g * (0x8000u | ((nbits >> 8) & 0x7fffu));
	return (uint32_t)dot <= p >> -sh;
}

size_t vecdot_topk(const int8_t *matrix, size_t rows, size_t dims,
                   const float *norms, const int8_t *query, double qnorm,
                   size_t k, int32_t *outIdx, float *outScore)
{
	uint32_t sums[VECDOT_BATCH];
	size_t whole = dims - dims % VECDOT_BLOCK; /* elements in whole blocks */
	size_t count = 0;
	size_t base, i;
	vecdot_bar bar;
	int fast;

	if (k == 0 || rows == 0 || qnorm == 0.0 || qnorm != qnorm)
		return 0;
	if (k > rows)
		k = rows;
	fast = qnorm >= 0x1p-100 && qnorm <= 0x1p100;
	bar.neg = 0;
	bar.bound = 0;
	bar.g = 0;
	bar.c = 0;

	for (base = 0; base < rows; base += VECDOT_BATCH) {
		size_t batch = rows - base < VECDOT_BATCH ? rows - base : VECDOT_BATCH;
		const int8_t *m = matrix + base * dims;
		const float *nb = norms + base;
		size_t off;

		vecdot_tail(m + whole, dims, batch, query + whole, dims - whole, sums);
		for (off = 0; off < whole; off += VECDOT_BLOCK)
			vecdot_block(m + off, dims, batch, query + off, sums);

		for (i = 0; i < batch; i++) {
			int32_t dot = vecdot_wrap(sums[i]);
			union {
				float f;
				uint32_t u;
			} norm;
			float s;
			norm.f = nb[i];
			/* zero-norm rows are skipped (either sign of zero) */
			if ((norm.u & 0x7fffffffu) == 0 || vecdot_below(&bar, dot, norm.u))
				continue;
			s = (float)((double)dot / ((double)norm.f * qnorm));
			/* NaN rows are skipped; a full buffer admits only a strictly
			 * better score (equal scores keep the lower row). */
			if (s != s || (count == k && !(s > outScore[k - 1])))
				continue;
			count = vecdot_insert(outIdx, outScore, count, k, (int32_t)(base + i), s);
			if (count == k)
				vecdot_bar_set(&bar, outScore[k - 1], qnorm, fast);
		}
	}
	return count;
}

#endif /* !VECDOT_SIMD */
