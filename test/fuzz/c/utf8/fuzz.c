/*
 * libFuzzer target: the UTF-8 hotspot (modules/utf8/utf8.c), as xs_utf8.c uses it on bytes from
 * outside (request bodies, files, messages): a counting pass sizes the output, then a writing pass
 * fills exactly that (each buffer its own allocation of the exact size, so AddressSanitizer sees
 * a write past it). The input is read both ways:
 *   as standard bytes -> utf8_decode_xs (WHATWG decoding into XS string bytes), and back with
 *   utf8_encode_xs; as XS string bytes (up to the first NUL) -> utf8_encode_xs.
 * Checks beyond the sanitizers: the two passes agree; decoding takes at most 3 bytes per byte and
 * gives no NUL byte (U+0000 is C0 80 in XS); what encoding gives is well-formed UTF-8 (between its
 * NULs); well-formed input without NUL decodes and encodes to itself; the clean prefix is
 * well-formed and at most the input.
 */
#include <stdlib.h>
#include <string.h>

#include "../../../../modules/utf8/utf8.h"

static uint8_t *exact(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* Well-formed UTF-8 between NUL bytes (the clean prefix stops at a NUL). */
static void well_formed(const uint8_t *p, size_t n)
{
	size_t at = 0;
	while (at < n) {
		at += utf8_clean_prefix(p + at, n - at);
		if (at < n && p[at] != 0)
			abort();
		at++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *in = exact(size), *xs, *back, *enc;
	size_t clean, d, e, s, k;
	memcpy(in, data, size);

	clean = utf8_clean_prefix(in, size);
	if (clean > size || memchr(in, 0, clean) || utf8_clean_prefix(in, clean) != clean)
		abort();

	/* standard bytes -> XS string bytes -> standard bytes */
	d = utf8_decode_xs(in, size, NULL);
	if (d > 3 * size)
		abort();
	xs = exact(d);
	if (utf8_decode_xs(in, size, xs) != d || memchr(xs, 0, d))
		abort();
	e = utf8_encode_xs(xs, d, NULL);
	back = exact(e);
	if (utf8_encode_xs(xs, d, back) != e)
		abort();
	well_formed(back, e);
	if (clean == size && (d != size || memcmp(xs, in, size) || e != size || memcmp(back, in, size)))
		abort();

	/* the input as XS string bytes (to its first NUL, as strlen gives them) */
	s = 0;
	while (s < size && in[s])
		s++;
	k = utf8_encode_xs(in, s, NULL);
	enc = exact(k);
	if (utf8_encode_xs(in, s, enc) != k)
		abort();
	well_formed(enc, k);

	free(in);
	free(xs);
	free(back);
	free(enc);
	return 0;
}
