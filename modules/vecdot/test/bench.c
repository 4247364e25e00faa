/*
 * Benchmark of vecdot_topk (k=5) over rows x 256 int8 matrices, against the
 * time of a plain vectorized read of the same bytes (the bandwidth ceiling),
 * and of a read of a buffer much larger than the last-level cache.
 *
 *   make -C modules/vecdot/test bench && build/c-tests/vecdot/bench
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../vecdot.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t rng = 12345u;
static uint32_t next_u32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* A read of n bytes that the compiler vectorizes (xor of 64-bit words). */
static uint64_t read_all(const uint64_t *p, size_t words)
{
	uint64_t x = 0;
	size_t i;
	for (i = 0; i < words; i++)
		x ^= p[i];
	return x;
}

static double best_read_time(const void *buf, size_t bytes, int reps, uint64_t *sink)
{
	double best = 1e9;
	int r;
	for (r = 0; r < reps; r++) {
		double t0 = now_s();
		*sink ^= read_all((const uint64_t *)buf, bytes / 8);
		double t = now_s() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

static void run(size_t rows, size_t dims, int reps)
{
	size_t bytes = rows * dims, i;
	int8_t *m = malloc(bytes);
	float *norms = malloc(rows * sizeof(float));
	int8_t q[1024];
	int32_t idx[5];
	float score[5];
	double qn = 0, best = 1e9, total = 0, t0, t;
	uint64_t sink = 0;
	size_t n = 0;
	int r;

	for (i = 0; i < bytes; i++)
		m[i] = (int8_t)(next_u32() & 0xff);
	for (i = 0; i < rows; i++) {
		double s = 0;
		size_t j;
		for (j = 0; j < dims; j++)
			s += (double)m[i * dims + j] * m[i * dims + j];
		norms[i] = (float)__builtin_sqrt(s);
	}
	for (i = 0; i < dims; i++) {
		q[i] = (int8_t)(next_u32() & 0xff);
		qn += (double)q[i] * q[i];
	}
	qn = (double)(float)__builtin_sqrt(qn);

	for (r = 0; r < reps; r++) {
		q[r % dims] ^= 1; /* a slightly different query each time */
		t0 = now_s();
		n = vecdot_topk(m, rows, dims, norms, q, qn, 5, idx, score);
		t = now_s() - t0;
		total += t;
		if (t < best)
			best = t;
	}
	double read = best_read_time(m, bytes, reps, &sink);
	printf("topk k=5 %zux%zu: best %.3f ms, mean %.3f ms per query; %.1f GB/s "
	       "(plain read of the same bytes: %.3f ms, %.1f GB/s; %.0f%%) [n=%zu top=%d %.4f sink=%d]\n",
	       rows, dims, best * 1e3, total / reps * 1e3, (double)bytes / best / 1e9,
	       read * 1e3, (double)bytes / read / 1e9, read / best * 100.0, n, idx[0], score[0],
	       (int)(sink & 1));

	best = 1e9;
	int32_t acc = 0;
	for (r = 0; r < reps; r++) {
		t0 = now_s();
		for (i = 0; i < rows; i++)
			acc += vecdot_dot(m + i * dims, q, dims);
		t = now_s() - t0;
		if (t < best)
			best = t;
	}
	printf("dot only %zux%zu: best %.3f ms (%.1f ns per row) [%d]\n", rows, dims,
	       best * 1e3, best / rows * 1e9, (int)(acc & 1));
	free(m);
	free(norms);
}

int main(void)
{
	/* memory bandwidth: a 1 GiB read, far beyond the last-level cache */
	size_t big = (size_t)1 << 30;
	uint64_t sink = 0;
	char *b = malloc(big);
	memset(b, 1, big);
	double t = best_read_time(b, big, 3, &sink);
	printf("single-core read of 1 GiB: %.1f GB/s [%d]\n", (double)big / t / 1e9, (int)(sink & 1));
	free(b);

	run(6000, 256, 200);
	run(60000, 256, 100);
	/* ten times larger than the last-level cache: bound by DRAM */
	run(600000, 256, 10);
	return 0;
}
