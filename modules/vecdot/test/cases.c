/*
 * Runs vecdot.c on cases read from stdin and prints the results, for
 * test/unit/modules/vecdot-c.test.ts, which builds it with each
 * implementation (-DVECDOT_SIMD=0 and 1) and compares the results with the
 * TypeScript fallback's. Input, native byte order, one case after another:
 *   u32 1 (topk), rows, dims, k, skew; f64 qnorm; matrix (rows * dims
 *     bytes), query (dims bytes), norms (rows float32)
 *   u32 2 (dot), n, skew; a (n bytes), b (n bytes)
 * skew places the matrix (and a) that many bytes past an aligned address, the
 * query (and b) one more. Output, one line a case:
 *   topk: "count idx:scorebits ..." (score bits as 8 hex digits)
 *   dot: the int32
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../vecdot.h"

static void fail(const char *what)
{
	fprintf(stderr, "cases: %s\n", what);
	exit(2);
}

static void read_exact(void *p, size_t n)
{
	if (n && fread(p, 1, n, stdin) != n)
		fail("short input");
}

static uint32_t read_u32(void)
{
	uint32_t v;
	read_exact(&v, sizeof v);
	return v;
}

/* n bytes read into a fresh buffer at offset skew from an aligned start; the
 * caller frees *base. */
static int8_t *read_at(size_t n, size_t skew, void **base)
{
	*base = malloc(n + skew + 16);
	if (!*base)
		fail("out of memory");
	read_exact((char *)*base + skew, n);
	return (int8_t *)((char *)*base + skew);
}

static void topk(void)
{
	size_t rows = read_u32(), dims = read_u32(), k = read_u32(), skew = read_u32(), i;
	double qnorm;
	void *mb, *qb;
	int8_t *m, *q;
	float *norms = malloc(rows * sizeof(float) + 1);
	int32_t *idx = malloc(k * sizeof(int32_t) + 1);
	float *score = malloc(k * sizeof(float) + 1);
	size_t count;
	read_exact(&qnorm, sizeof qnorm);
	m = read_at(rows * dims, skew, &mb);
	q = read_at(dims, skew + 1, &qb);
	read_exact(norms, rows * sizeof(float));
	count = vecdot_topk(m, rows, dims, norms, q, qnorm, k, idx, score);
	printf("%zu", count);
	for (i = 0; i < count; i++) {
		uint32_t bits;
		memcpy(&bits, &score[i], sizeof bits);
		printf(" %ld:%08lx", (long)idx[i], (unsigned long)bits);
	}
	printf("\n");
	free(mb);
	free(qb);
	free(norms);
	free(idx);
	free(score);
}

static void dot(void)
{
	size_t n = read_u32(), skew = read_u32();
	void *ab, *bb;
	int8_t *a = read_at(n, skew, &ab), *b = read_at(n, skew + 1, &bb);
	printf("%ld\n", (long)vecdot_dot(a, b, n));
	free(ab);
	free(bb);
}

int main(void)
{
	uint32_t tag;
	while (fread(&tag, sizeof tag, 1, stdin) == 1) {
		if (tag == 1)
			topk();
		else if (tag == 2)
			dot();
		else
			fail("bad tag");
	}
	return 0;
}
