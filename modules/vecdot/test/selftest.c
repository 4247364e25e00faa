/*
 * Self-test of vecdot.c against a naive reference: random sizes and values,
 * -128 everywhere, zero norms, ties, k larger than the rows, long vectors
 * whose dot wraps modulo 2^32; scores packed around the k-th best (where the
 * scalar top-k's bar decides), odd norms and query norms at the ends of the
 * range that bar trusts.   make -C modules/vecdot/test
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

/* Compares vecdot_topk with the reference on given data (norms, qnorm). */
static void compare(const int8_t *m, size_t rows, size_t dims, const float *norms,
                    const int8_t *q, double qn, size_t k, const char *what)
{
	int32_t *i1 = malloc((k + 1) * sizeof(int32_t)), *i2 = malloc((k + 1) * sizeof(int32_t));
	float *s1 = malloc((k + 1) * sizeof(float)), *s2 = malloc((k + 1) * sizeof(float));
	size_t n1 = vecdot_topk(m, rows, dims, norms, q, qn, k, i1, s1);
	size_t n2 = ref_topk(m, rows, dims, norms, q, qn, k, i2, s2);
	size_t i;
	CHECK(n1 == n2, "%s: count %zu != %zu (rows=%zu dims=%zu k=%zu qnorm=%a)", what, n1, n2,
	      rows, dims, k, qn);
	for (i = 0; i < n1 && i < n2; i++)
		CHECK(i1[i] == i2[i] && memcmp(&s1[i], &s2[i], 4) == 0,
		      "%s: entry %zu: %d %a vs %d %a (rows=%zu dims=%zu k=%zu qnorm=%a)", what, i,
		      i1[i], (double)s1[i], i2[i], (double)s2[i], rows, dims, k, qn);
	free(i1); free(i2); free(s1); free(s2);
}

/* Scores packed around one value: each row's norm is set so that its score
 * is about c, times 1 + a random relative step of about 2^-spread, so many
 * rows fall within a few float ulps of the k-th best (and of each other). */
static void packed_case(size_t rows, size_t dims, size_t k, int spread, double c)
{
	int8_t *m = malloc(rows * dims + 1);
	float *norms = malloc((rows + 1) * sizeof(float));
	int8_t *q = malloc(dims + 1);
	double qn = 0;
	size_t i;
	fill(m, rows * dims, 0);
	fill(q, dims, 0);
	for (i = 0; i < dims; i++)
		qn += (double)q[i] * q[i];
	qn = (float)sqrt(qn);
	for (i = 0; i < rows; i++) {
		double d = (double)ref_dot(m + i * dims, q, dims);
		double step = ((double)(next_u32() % 2001) - 1000.0) / 1000.0 * ldexp(1.0, -spread);
		norms[i] = d > 0 ? (float)(d / (qn * c) * (1.0 + step)) : (float)(next_u32() % 5000);
	}
	compare(m, rows, dims, norms, q, qn, k, "packed scores");
	free(m); free(norms); free(q);
}

/* Dots near 2^31 (131000 elements of -128 and 127), scores packed as in
 * packed_case: the bar's comparison at its largest scale. */
static void large_dot_case(void)
{
	size_t rows = 64, dims = 131000, i, j;
	int8_t *m = malloc(rows * dims);
	float *norms = malloc(rows * sizeof(float));
	int8_t *q = malloc(dims);
	double qn = sqrt((double)dims * 16384.0);
	memset(q, 0x80, dims);
	for (i = 0; i < rows; i++) {
		double d;
		memset(m + i * dims, 0x80, dims);
		for (j = 0; j < (i * 37) % 1000; j++)
			m[i * dims + next_u32() % dims] = 127;
		d = (double)ref_dot(m + i * dims, q, dims);
		norms[i] = (float)(d / (qn * 0.7) * (1.0 + ((double)(next_u32() % 2001) - 1000.0) * 1e-9));
	}
	compare(m, rows, dims, norms, q, qn, 5, "dots near 2^31");
	free(m); free(norms); free(q);
}

/* Norms that are not positive normal floats, and query norms at and past the
 * ends of [2^-100, 2^100]. */
static void odd_norms_case(size_t rows, size_t dims, size_t k)
{
	static const double qnorms[] = {
		0x1p-100, 0x1.fffffffffffffp-101, 0x1p100, 0x1.0000000000001p100, 1e-300, 1e300,
		4.9e-324, -1500.0, 1.0 / 0.0, 1500.0, 0.37,
	};
	int8_t *m = malloc(rows * dims + 1);
	float *norms = malloc((rows + 1) * sizeof(float));
	int8_t *q = malloc(dims + 1);
	size_t i, j;
	fill(m, rows * dims, 0);
	fill(q, dims, 0);
	for (i = 0; i < rows; i++) {
		double s = 0;
		for (j = 0; j < dims; j++)
			s += (double)m[i * dims + j] * m[i * dims + j];
		switch (next_u32() % 12) {
		case 0: norms[i] = (float)(0.0 / 0.0); break;
		case 1: norms[i] = (float)(1.0 / 0.0); break;
		case 2: norms[i] = -(float)sqrt(s); break;
		case 3: norms[i] = -0.0f; break;
		case 4: norms[i] = 1e-40f; break; /* subnormal */
		case 5: norms[i] = 1.17549435e-38f; break; /* smallest normal */
		case 6: norms[i] = 3.40282347e38f; break;
		case 7: norms[i] = 1e-30f; break;
		default: norms[i] = (float)sqrt(s); break;
		}
	}
	for (i = 0; i < sizeof qnorms / sizeof qnorms[0]; i++)
		compare(m, rows, dims, norms, q, qnorms[i], k, "odd norms");
	free(m); free(norms); free(q);
}

/* Every score <= 0 (rows are minus the query): the k-th best is negative or
 * zero, where the bar must not skip dot <= 0. */
static void negative_case(size_t rows, size_t dims, size_t k)
{
	int8_t *m = malloc(rows * dims + 1);
	float *norms = malloc((rows + 1) * sizeof(float));
	int8_t *q = malloc(dims + 1);
	double qn = 0;
	size_t i, j;
	fill(q, dims, 0);
	for (i = 0; i < dims; i++)
		qn += (double)q[i] * q[i];
	qn = (float)sqrt(qn);
	for (i = 0; i < rows; i++) {
		for (j = 0; j < dims; j++) {
			int v = -q[j] + (int)(next_u32() % 3) - 1;
			m[i * dims + j] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
		}
		if (i % 5 == 0)
			memset(m + i * dims, 0, dims); /* dot 0: score +0 */
		norms[i] = (float)(qn * (1.0 + (double)(next_u32() % 100) / 1000.0));
	}
	compare(m, rows, dims, norms, q, qn, k, "non-positive scores");
	free(m); free(norms); free(q);
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

	for (t = 0; t < 40; t++) {
		size_t dims = 1 + next_u32() % 300;
		packed_case(200 + next_u32() % 800, dims, 1 + next_u32() % 30, 10 + t % 16,
		            t % 3 == 0 ? 1e-3 : t % 3 == 1 ? 0.3 : 2.5);
	}
	large_dot_case();
	for (t = 0; t < 10; t++) {
		odd_norms_case(100 + next_u32() % 300, 1 + next_u32() % 100, 1 + next_u32() % 20);
		negative_case(100 + next_u32() % 300, 1 + next_u32() % 100, 1 + next_u32() % 20);
	}

	if (failures) {
		printf("vecdot selftest: %d failures\n", failures);
		return 1;
	}
	printf("vecdot selftest: all passed\n");
	return 0;
}
