/*
 * Self-test of utf8.c against simple byte-at-a-time references: the WHATWG
 * decoder state machine (as src/util/utf8.ts has it) and XS's own lenient
 * reading of a string followed by per-character encoding. Every input of up
 * to 3 bytes, then random inputs at every alignment; `bench` adds MB/s.
 *   make -C modules/utf8/test        make -C modules/utf8/test bench
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../utf8.h"

static int failures = 0;

/* Code point c as XS stores it (fxUTF8Encode: U+0000 as C0 80). */
static size_t xs_put(uint8_t *o, uint32_t c)
{
	if (c == 0) { o[0] = 0xC0; o[1] = 0x80; return 2; }
	if (c < 0x80) { o[0] = (uint8_t)c; return 1; }
	if (c < 0x800) { o[0] = (uint8_t)(0xC0 | (c >> 6)); o[1] = (uint8_t)(0x80 | (c & 0x3F)); return 2; }
	if (c < 0x10000) {
		o[0] = (uint8_t)(0xE0 | (c >> 12)); o[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
		o[2] = (uint8_t)(0x80 | (c & 0x3F)); return 3;
	}
	o[0] = (uint8_t)(0xF0 | (c >> 18)); o[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
	o[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F)); o[3] = (uint8_t)(0x80 | (c & 0x3F)); return 4;
}

/* The WHATWG decoder, one byte at a time (src/util/utf8.ts decodeFallback). */
static size_t ref_decode(const uint8_t *p, size_t n, uint8_t *o)
{
	size_t i, w = 0;
	uint32_t cp = 0;
	int needed = 0, seen = 0;
	uint8_t lower = 0x80, upper = 0xBF;
	for (i = 0; i < n; i++) {
		uint8_t b = p[i];
		if (needed == 0) {
			if (b < 0x80) w += xs_put(o + w, b);
			else if (b >= 0xC2 && b <= 0xDF) { needed = 1; cp = b & 0x1F; }
			else if (b >= 0xE0 && b <= 0xEF) {
				if (b == 0xE0) lower = 0xA0;
				if (b == 0xED) upper = 0x9F;
				needed = 2; cp = b & 0x0F;
			} else if (b >= 0xF0 && b <= 0xF4) {
				if (b == 0xF0) lower = 0x90;
				if (b == 0xF4) upper = 0x8F;
				needed = 3; cp = b & 0x07;
			} else w += xs_put(o + w, 0xFFFD);
			continue;
		}
		if (b < lower || b > upper) {
			needed = seen = 0; cp = 0; lower = 0x80; upper = 0xBF;
			w += xs_put(o + w, 0xFFFD);
			i--;
			continue;
		}
		lower = 0x80; upper = 0xBF;
		cp = (cp << 6) | (b & 0x3F);
		if (++seen == needed) { w += xs_put(o + w, cp); needed = seen = 0; cp = 0; }
	}
	if (needed) w += xs_put(o + w, 0xFFFD);
	return w;
}

/* XS's fxUTF8Decode over the string, then each code point encoded as
 * src/util/utf8.ts does (surrogates and values past U+10FFFF: U+FFFD). */
static size_t ref_encode(const uint8_t *s, size_t n, uint8_t *o)
{
	static const struct { int size; uint32_t cmask, cval, lmask; } seq[] = {
		{1, 0x80, 0x00, 0x7F}, {2, 0xE0, 0xC0, 0x7FF}, {3, 0xF0, 0xE0, 0xFFFF},
		{4, 0xF8, 0xF0, 0x1FFFFF}, {5, 0xFC, 0xF8, 0x3FFFFFF}, {6, 0xFE, 0xFC, 0x7FFFFFFF}, {0, 0, 0, 0},
	};
	size_t i = 0, w = 0;
	while (i < n) {
		uint32_t c = s[i++];
		if (c & 0x80) {
			int k, size;
			for (k = 0; seq[k].size; k++)
				if ((c & seq[k].cmask) == seq[k].cval)
					break;
			for (size = seq[k].size - 1; size > 0; size--)
				c = (c << 6) | (i < n ? (s[i++] & 0x3Fu) : 0u);
			c &= seq[k].lmask;
		}
		if ((c >= 0xD800 && c <= 0xDFFF) || c >= 0x110000)
			c = 0xFFFD;
		if (c == 0)
			o[w++] = 0;
		else
			w += xs_put(o + w, c);
	}
	return w;
}

static uint8_t got[64 * 1024 * 3 + 64], want[64 * 1024 * 3 + 64];

static void check(const uint8_t *p, size_t n)
{
	size_t g, c, w, k, i;
	int clean;
	w = ref_decode(p, n, want);
	c = utf8_decode_xs(p, n, NULL);
	g = utf8_decode_xs(p, n, got);
	if (c != w || g != w || memcmp(got, want, w) != 0) {
		if (failures++ < 10) {
			printf("FAIL decode of");
			for (i = 0; i < n && i < 16; i++) printf(" %02x", p[i]);
			printf(" (n %lu): %lu/%lu bytes, want %lu\n", (unsigned long)n, (unsigned long)g, (unsigned long)c, (unsigned long)w);
		}
	}
	/* the clean prefix: unchanged by decoding, and maximal */
	k = utf8_clean_prefix(p, n);
	clean = k == n && w == n && memcmp(got, p, n) == 0;
	if (k > n || ref_decode(p, k, want) != k || memcmp(want, p, k) != 0 || (k == n) != clean) {
		if (failures++ < 10)
			printf("FAIL clean prefix %lu of %lu\n", (unsigned long)k, (unsigned long)n);
	}
	/* the same bytes as an XS string (up to the first NUL) */
	for (i = 0; i < n && p[i]; i++)
		;
	n = i;
	w = ref_encode(p, n, want);
	c = utf8_encode_xs(p, n, NULL);
	g = utf8_encode_xs(p, n, got);
	if (c != w || g != w || memcmp(got, want, w) != 0) {
		if (failures++ < 10) {
			printf("FAIL encode of");
			for (i = 0; i < n && i < 16; i++) printf(" %02x", p[i]);
			printf(" (n %lu): %lu/%lu bytes, want %lu\n", (unsigned long)n, (unsigned long)g, (unsigned long)c, (unsigned long)w);
		}
	}
}

static uint32_t seed = 0x9E3779B9u;
static uint32_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 17;
	seed ^= seed << 5;
	return seed;
}

/* Bytes biased toward UTF-8's interesting values. */
static uint8_t biased(void)
{
	static const uint8_t edges[] = { 0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
		0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xF7, 0xF8, 0xFC, 0xFE, 0xFF };
	uint32_t r = rnd();
	return (r & 3) ? edges[(r >> 2) % sizeof edges] : (uint8_t)(r >> 8);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench(const char *what, const uint8_t *p, size_t n, int encode)
{
	double t0 = now_s(), t;
	size_t total = 0, k;
	int reps = 0;
	do {
		for (k = 0; k < 100; k++, reps++)
			total += encode ? utf8_encode_xs(p, n, got) : utf8_decode_xs(p, n, got);
		t = now_s() - t0;
	} while (t < 0.3);
	printf("%s: %.0f MB/s (%lu)\n", what, (double)n * reps / t / 1e6, (unsigned long)(total & 1));
}

int main(int argc, char **argv)
{
	static uint8_t buf[64 * 1024 + 16];
	uint32_t x;
	size_t i, n, off;
	int r;

	check(buf, 0);
	for (x = 0; x < 0x100; x++) {
		buf[0] = (uint8_t)x;
		check(buf, 1);
	}
	for (x = 0; x < 0x10000; x++) {
		buf[0] = (uint8_t)(x >> 8); buf[1] = (uint8_t)x;
		check(buf, 2);
	}
	for (x = 0; x < 0x1000000; x++) {
		buf[0] = (uint8_t)(x >> 16); buf[1] = (uint8_t)(x >> 8); buf[2] = (uint8_t)x;
		check(buf, 3);
	}
	/* 4 to 8 biased bytes */
	for (r = 0; r < 2000000; r++) {
		n = 4 + rnd() % 5;
		for (i = 0; i < n; i++) buf[i] = biased();
		check(buf, n);
	}
	/* longer inputs at every alignment: ASCII runs (the word loop) with rare other bytes */
	for (r = 0; r < 20000; r++) {
		off = rnd() % 16;
		n = rnd() % 300;
		for (i = 0; i < n; i++) {
			uint32_t q = rnd() % 64;
			buf[off + i] = q < 50 ? (uint8_t)(0x20 + rnd() % 0x5F) : q < 56 ? biased() : (uint8_t)rnd();
		}
		check(buf + off, n);
	}
	printf("%s\n", failures ? "FAILED" : "ok: every input of up to 3 bytes, 2M biased, 20k long at every alignment");

	if (argc > 1 && strcmp(argv[1], "bench") == 0) {
		n = 64 * 1024;
		for (i = 0; i < n; i++) buf[i] = (uint8_t)(0x20 + rnd() % 0x5F);
		bench("decode 64 KB ASCII", buf, n, 0);
		bench("encode 64 KB ASCII", buf, n, 1);
		for (i = 0; i + 4 <= n; ) {
			uint32_t c = rnd() % 4;
			i += xs_put(buf + i, c == 0 ? 0x41 + rnd() % 26 : c == 1 ? 0xE9 : c == 2 ? 0x20AC : 0x1F600);
		}
		n = i;
		bench("decode 64 KB mixed", buf, n, 0);
		bench("encode 64 KB mixed", buf, n, 1);
	}
	return failures ? 1 : 0;
}
