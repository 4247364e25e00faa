/*
 * Self-test of sha256.c: FIPS 180-2 vectors, streaming in odd chunk sizes,
 * and a throughput figure.   make -C modules/sha256/test
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../sha256.h"

static int failures = 0;

static void hex(const uint8_t *d, char *out)
{
	int i;
	for (i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void expect(const char *what, const uint8_t *d, const char *want)
{
	char got[65];
	hex(d, got);
	if (strcmp(got, want) != 0) {
		failures++;
		printf("FAIL %s: %s != %s\n", what, got, want);
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	uint8_t d[32], d2[32];
	desk_sha256_ctx c;
	size_t i, n;
	const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
	                   "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	uint8_t *buf;

	desk_sha256("", 0, d);
	expect("empty", d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	desk_sha256("abc", 3, d);
	expect("abc", d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	desk_sha256(m448, strlen(m448), d);
	expect("448", d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	desk_sha256(m896, strlen(m896), d);
	expect("896", d, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

	buf = malloc(1000000);
	memset(buf, 'a', 1000000);
	desk_sha256(buf, 1000000, d);
	expect("million a", d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* streaming in odd chunk sizes, context reused after final */
	for (n = 1; n < 200; n += 7) {
		desk_sha256_init(&c);
		for (i = 0; i < 1000000; i += n)
			desk_sha256_update(&c, buf + i, i + n <= 1000000 ? n : 1000000 - i);
		desk_sha256_final(&c, d2);
		expect("million a streamed", d2, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		desk_sha256_update(&c, "abc", 3);
		desk_sha256_final(&c, d2);
		expect("reuse after final", d2, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	}
	/* lengths around the padding boundary, one-shot vs byte at a time */
	for (n = 0; n < 200; n++) {
		for (i = 0; i < n; i++)
			buf[i] = (uint8_t)(i * 31 + n);
		desk_sha256(buf, n, d);
		desk_sha256_init(&c);
		for (i = 0; i < n; i++)
			desk_sha256_update(&c, buf + i, 1);
		desk_sha256_final(&c, d2);
		if (memcmp(d, d2, 32) != 0) {
			failures++;
			printf("FAIL length %zu streamed\n", n);
		}
	}
	free(buf);

	if (argc > 1 && strcmp(argv[1], "bench") == 0) {
		size_t size = 6815744; /* 6.5 MB */
		double best = 1e9;
		int r;
		buf = malloc(size);
		for (i = 0; i < size; i++)
			buf[i] = (uint8_t)(i * 7);
		for (r = 0; r < 30; r++) {
			double t0 = now_s(), t;
			desk_sha256(buf, size, d);
			t = now_s() - t0;
			if (t < best)
				best = t;
		}
		printf("sha256 of 6.5 MB: best %.2f ms, %.0f MB/s\n", best * 1e3, (double)size / best / 1e6);
		free(buf);
	}

	if (failures) {
		printf("sha256 selftest: %d failures\n", failures);
		return 1;
	}
	printf("sha256 selftest: all passed\n");
	return 0;
}
