/*
 * The bench's RISC-V programs (bench/riscv.mjs): freestanding rv32imc Linux
 * executables for qemu-user, built from the very C the device links.
 *   -DWORK=1: top-5 cosine over 6000 x 256 int8 (modules/vecdot)
 *   -DWORK=2: SHA-256 of 6.5 MB (modules/sha256, the portable C)
 *   -DWORK=3: the search of WORK=1 with every row the same and every norm
 *             equal: every score ties the k-th best, so no row is left out
 *             unscored (the worst case for the search's bar, vecdot.c)
 *   -DRUN=0 builds the same program without the measured call, so the count
 *   of the work alone is the difference of the two runs.
 * The inputs come from a fixed generator; the program exits with a byte of
 * its result, so the work cannot be optimized away. Both builds make the
 * inputs alike: a compiler barrier (kept()) says the memory is read after
 * they are made, or else the build without the call, which never reads them,
 * would drop their stores and the difference would count them as work.
 */
#include <stddef.h>
#include <stdint.h>
#include "vecdot.h"
#include "sha256.h"

void *memcpy(void *d, const void *s, size_t n)
{
	uint8_t *o = d;
	const uint8_t *i = s;
	while (n--)
		*o++ = *i++;
	return d;
}

void *memset(void *d, int c, size_t n)
{
	uint8_t *o = d;
	while (n--)
		*o++ = (uint8_t)c;
	return d;
}

/* The compiler must assume that p's memory is read here. */
static void kept(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static uint32_t seed = 12345u;
static uint32_t next(void)
{
	seed = seed * 1664525u + 1013904223u;
	return seed >> 8;
}

#if WORK == 1 || WORK == 3
#define ROWS 6000
#define DIMS 256
static int8_t matrix[ROWS * DIMS];
static float norms[ROWS];
static int8_t query[DIMS];

static int work(void)
{
	int32_t idx[5];
	float score[5];
	size_t i;
	int r = 0;
	for (i = 0; i < sizeof matrix; i++)
		matrix[i] = WORK == 3 && i >= DIMS ? matrix[i - DIMS] : (int8_t)(next() & 0xff);
	for (i = 0; i < ROWS; i++)
		norms[i] = WORK == 3 ? 1000.0f : 1000.0f + (float)(i & 63);
	for (i = 0; i < DIMS; i++)
		query[i] = (int8_t)(next() & 0xff);
	kept(matrix);
	kept(norms);
	kept(query);
#if RUN
	r = (int)vecdot_topk(matrix, ROWS, DIMS, norms, query, 1500.0, 5, idx, score);
	r += idx[0];
#else
	(void)idx;
	(void)score;
#endif
	return r;
}
#else
#define BYTES (6656u * 1024u)
static uint8_t image[BYTES];

static int work(void)
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	size_t i;
	for (i = 0; i < BYTES; i += 4) {
		uint32_t v = next();
		image[i] = (uint8_t)v;
		image[i + 1] = (uint8_t)(v >> 8);
		image[i + 2] = (uint8_t)(v >> 16);
		image[i + 3] = (uint8_t)(v >> 24);
	}
	kept(image);
	digest[0] = 0;
#if RUN
	desk_sha256(image, BYTES, digest);
#endif
	return digest[0];
}
#endif

static void sys_exit(int code)
{
	register long a0 __asm__("a0") = code;
	register long a7 __asm__("a7") = 93; /* exit */
	__asm__ volatile("ecall" : : "r"(a0), "r"(a7));
	for (;;) {
	}
}

void _start(void)
{
	sys_exit(work() & 0x7f);
}
