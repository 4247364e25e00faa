/*
 * Self-test of vecdot.c against a naive reference: random sizes and values,
 * -128 everywhere, zero norms, ties, k larger than the rows, long vectors
 * whose dot wraps modulo 2^32.   make -C modules/vecdot/test
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "../vecdot.h"

static uint32_t rng = 0x9e3779b9u;
static uint32_t next_u32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static int failures = 0;
#define CHECK(cond, ...)                                 \
	do {                                                 \
		if (!(cond)) {                                   \
			failures++;                                  \
			if (failures < 20) {                         \
				printf("FAIL %s:%d: ", __FILE__, __LINE__); \
				printf(__VA_ARGS__);                     \
				printf("\n");                            \
			}                                            \
		}                                                \
	} while (0)

static int32_t ref_dot(const int8_t *a, const int8_t *b, size_t n)
{
	int64_t s = 0;
	size_t i;
	for (i = 0; i < n; i++)
		s += (int64_t)a[i] * b[i];
	return (int32_t)(uint32_t)(uint64_t)s; /* gcc: modulo 2^32 */
}

/* Reference top-k: score every kept row, then a stable selection sort. */
static size_t ref_topk(const int8_t *m, size_t rows, size_t dims, const float *norms,
                       const int8_t *q, double qnorm, size_t k, int32_t *oi, float *os)
{
	size_t count = 0, i, j;
	int32_t *idx = malloc((rows + 1) * sizeof(int32_t));
	float *sc = malloc((rows + 1) * sizeof(float));
	size_t kept = 0;
	if (qnorm == 0)
		goto done;
	for (i = 0; i < rows; i++) {
		float s;
		if (norms[i] == 0)
			continue;
		s = (float)((double)ref_dot(m + i * dims, q, dims) / ((double)norms[i] * qnorm));
		if (s != s)
			continue;
		idx[kept] = (int32_t)i;
		sc[kept] = s;
		kept++;
	}
	for (count = 0; count < k && count < kept; count++) {
		size_t best = count;
		for (j = count + 1; j < kept; j++)
			if (sc[j] > sc[best] || (sc[j] == sc[best] && idx[j] < idx[best]))
				best = j;
		{
			float ts = sc[count];
			int32_t ti = idx[count];
			sc[count] = sc[best];
			idx[count] = idx[best];
			sc[best] = ts;
			idx[best] = ti;
		}
		oi[count] = idx[count];
		os[count] = sc[count];
	}
done:
	free(idx);
	free(sc);
	return count;
}

static void fill(int8_t *p, size_t n, int mode)
{
	size_t i;
	for (i = 0; i < n; i++) {
		switch (mode) {
		case 0: p[i] = (int8_t)(next_u32() & 0xff); break;
		case 1: p[i] = -128; break;
		case 2: p[i] = (int8_t)((int)(next_u32() % 3) - 1); break; /* many ties */
		default: p[i] = (next_u32() & 1) ? 127 : -128; break;
		}
	}
}

static void one_case(size_t rows, size_t dims, size_t k, int mode)
{
	int8_t *m = malloc(rows * dims + 1);
	float *norms = malloc((rows + 1) * sizeof(float));
	int8_t *q = malloc(dims + 1);
	int32_t *i1 = malloc((k + 1) * sizeof(int32_t)), *i2 = malloc((k + 1) * sizeof(int32_t));
	float *s1 = malloc((k + 1) * sizeof(float)), *s2 = malloc((k + 1) * sizeof(float));
	size_t i, n1, n2;
	double qn = 0;

	fill(m, rows * dims, mode);
	fill(q, dims, mode);
	for (i = 0; i < rows; i++) {
		double s = 0;
		size_t j;
		for (j = 0; j < dims; j++)
			s += (double)m[i * dims + j] * m[i * dims + j];
		norms[i] = (next_u32() % 7 == 0) ? 0.0f : (float)sqrt(s);
	}
	for (i = 0; i < dims; i++)
		qn += (double)q[i] * q[i];
	qn = (float)sqrt(qn);

	for (i = 0; i < rows; i++)
		CHECK(vecdot_dot(m + i * dims, q, dims) == ref_dot(m + i * dims, q, dims),
		      "dot rows=%zu dims=%zu row=%zu", rows, dims, i);

	n1 = vecdot_topk(m, rows, dims, norms, q, qn, k, i1, s1);
	n2 = ref_topk(m, rows, dims, norms, q, qn, k, i2, s2);
	CHECK(n1 == n2, "count %zu != %zu (rows=%zu dims=%zu k=%zu mode=%d)", n1, n2, rows, dims, k, mode);
	for (i = 0; i < n1 && i < n2; i++)
		CHECK(i1[i] == i2[i] && memcmp(&s1[i], &s2[i], 4) == 0,
		      "entry %zu: %d %.9g vs %d %.9g (rows=%zu dims=%zu k=%zu mode=%d)", i, i1[i],
		      (double)s1[i], i2[i], (double)s2[i], rows, dims, k, mode);
	CHECK(vecdot_topk(m, rows, dims, norms, q, 0.0, k, i1, s1) == 0, "qnorm 0");

	free(m); free(norms); free(q); free(i1); free(i2); free(s1); free(s2);
}

int main(void)
{
	int t, mode;
	size_t n;

	/* empty and tiny */
	CHECK(vecdot_dot(NULL, NULL, 0) == 0, "empty dot");
	CHECK(vecdot_topk(NULL, 0, 0, NULL, NULL, 1.0, 5, NULL, NULL) == 0, "no rows");

	/* long vectors: -128 * -128 * n wraps modulo 2^32 past 131072 elements */
	for (n = 131071; n <= 400000; n += 65537) {
		int8_t *a = malloc(n);
		memset(a, 0x80, n);
		CHECK(vecdot_dot(a, a, n) == ref_dot(a, a, n), "wrap n=%zu: %d vs %d", n,
		      vecdot_dot(a, a, n), ref_dot(a, a, n));
		fill(a, n, 0);
		CHECK(vecdot_dot(a, a, n) == ref_dot(a, a, n), "random long n=%zu", n);
		free(a);
	}

	for (mode = 0; mode < 4; mode++)
		for (t = 0; t < 150; t++) {
			size_t rows = next_u32() % 300;
			size_t dims = (t % 10 == 0) ? 513 + next_u32() % 1200 : next_u32() % 70;
			size_t k = 1 + next_u32() % 40;
			if (t % 13 == 0)
				k = rows + 3;
			one_case(rows, dims, k, mode);
		}
	one_case(6000, 256, 20, 0);
	one_case(1000, 256, 300, 2);

	if (failures) {
		printf("vecdot selftest: %d failures\n", failures);
		return 1;
	}
	printf("vecdot selftest: all passed\n");
	return 0;
}
