/*
 * utf8: standard UTF-8 <-> XS string bytes. See utf8.h.
 *
 * Both directions first skip the clean prefix (well-formed, no NUL), which
 * reads a machine word at a time while the bytes are ASCII, and handle the
 * rest one character at a time.
 */
#include <string.h>
#include "utf8.h"

typedef size_t utf8_word;
#define UTF8_ONES ((utf8_word)-1 / 0xFF)    /* 0x0101...01 */
#define UTF8_HIGHS (UTF8_ONES * 0x80)       /* 0x8080...80 */

/* True when every byte of the word at p is 01..7F (no high bit, no zero:
 * (w - ONES) & ~w has a high bit set exactly when some byte of w is 0). */
static int utf8_ascii_word(const uint8_t *p)
{
	utf8_word w;
	memcpy(&w, p, sizeof w);
	return ((w | ((w - UTF8_ONES) & ~w)) & UTF8_HIGHS) == 0;
}

/*
 * The unit that starts at p (n >= 1 bytes there, p[0] >= 0x80): a
 * well-formed sequence (*ok = 1) or a maximal subpart of an ill-formed one
 * (*ok = 0): the lead byte and the continuation bytes that were still
 * acceptable, the byte that was not being left for the next unit. The
 * bounds are the Unicode table of well-formed sequences (WHATWG's decoder).
 */
static size_t utf8_unit(const uint8_t *p, size_t n, int *ok)
{
	uint8_t b = p[0];
	uint8_t lo = 0x80, hi = 0xBF;
	size_t len, i = 1;
	if (b >= 0xC2 && b <= 0xDF) {
		len = 2;
	} else if (b >= 0xE0 && b <= 0xEF) {
		len = 3;
		if (b == 0xE0)
			lo = 0xA0; /* overlong */
		else if (b == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (b >= 0xF0 && b <= 0xF4) {
		len = 4;
		if (b == 0xF0)
			lo = 0x90; /* overlong */
		else if (b == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		*ok = 0; /* C0, C1, F5..FF or a stray continuation byte */
		return 1;
	}
	if (n > 1 && p[1] >= lo && p[1] <= hi) {
		i = 2;
		while (i < len && i < n && (p[i] & 0xC0) == 0x80)
			i++;
	}
	*ok = (i == len);
	return i;
}

size_t utf8_clean_prefix(const uint8_t *p, size_t n)
{
	size_t i = 0;
	int ok;
	while (i < n) {
		uint8_t b = p[i];
		if (b >= 0x80) {
			size_t len = utf8_unit(p + i, n - i, &ok);
			if (!ok)
				break;
			i += len;
		} else if (b != 0) {
			/* ASCII: a word at a time while it lasts */
			i++;
			while (n - i >= sizeof(utf8_word) && utf8_ascii_word(p + i))
				i += sizeof(utf8_word);
		} else {
			break;
		}
	}
	return i;
}

size_t utf8_decode_xs(const uint8_t *p, size_t n, uint8_t *out)
{
	size_t i = 0, o = 0;
	int ok;
	while (i < n) {
		size_t k = utf8_clean_prefix(p + i, n - i);
		if (k > 0) {
			if (out)
				memcpy(out + o, p + i, k);
			i += k;
			o += k;
			if (i >= n)
				break;
		}
		if (p[i] == 0) {
			/* U+0000: XS strings are NUL-terminated, so it is C0 80 */
			if (out) {
				out[o] = 0xC0;
				out[o + 1] = 0x80;
			}
			o += 2;
			i++;
		} else {
			/* an ill-formed subpart (clean_prefix stopped here): U+FFFD */
			i += utf8_unit(p + i, n - i, &ok);
			if (out) {
				out[o] = 0xEF;
				out[o + 1] = 0xBF;
				out[o + 2] = 0xBD;
			}
			o += 3;
		}
	}
	return o;
}

/*
 * The rest of an XS string is read the way XS's own fxUTF8Decode reads it
 * (so the result is what a for-of over the string followed by encoding each
 * code point gives, as src/util/utf8.ts does): the lead byte's pattern gives
 * the length (up to 6 bytes; a byte that fits no pattern is one character
 * U+0000), continuation bytes contribute their low 6 bits unchecked, and the
 * value is not checked for overlongs. XS itself only produces C0 80 (U+0000)
 * and 3-byte surrogates here; the other shapes come only from
 * String.fromArrayBuffer, which checks the structure but not the values. A
 * sequence cut short by the end of the string (which XS never produces)
 * reads zeros for the missing bytes.
 */
size_t utf8_encode_xs(const uint8_t *s, size_t n, uint8_t *out)
{
	size_t i = 0, o = 0;
	while (i < n) {
		size_t k = utf8_clean_prefix(s + i, n - i);
		uint32_t c;
		size_t size, j;
		uint8_t b;
		if (k > 0) {
			if (out)
				memcpy(out + o, s + i, k);
			i += k;
			o += k;
			if (i >= n)
				break;
		}
		b = s[i];
		if (b < 0x80) {
			size = 1;
			c = b;
		} else if ((b & 0xE0) == 0xC0) {
			size = 2;
			c = b & 0x1F;
		} else if ((b & 0xF0) == 0xE0) {
			size = 3;
			c = b & 0x0F;
		} else if ((b & 0xF8) == 0xF0) {
			size = 4;
			c = b & 0x07;
		} else if ((b & 0xFC) == 0xF8) {
			size = 5;
			c = b & 0x03;
		} else if ((b & 0xFE) == 0xFC) {
			size = 6;
			c = b & 0x01;
		} else {
			size = 1;
			c = 0;
		}
		for (j = 1; j < size; j++)
			c = (c << 6) | (i + j < n ? (uint32_t)(s[i + j] & 0x3F) : 0u);
		i = (n - i > size) ? i + size : n;
		if (c < 0x80) {
			if (out)
				out[o] = (uint8_t)c;
			o += 1;
		} else if (c < 0x800) {
			if (out) {
				out[o] = (uint8_t)(0xC0 | (c >> 6));
				out[o + 1] = (uint8_t)(0x80 | (c & 0x3F));
			}
			o += 2;
		} else if (c < 0x10000 && (c < 0xD800 || c > 0xDFFF)) {
			if (out) {
				out[o] = (uint8_t)(0xE0 | (c >> 12));
				out[o + 1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
				out[o + 2] = (uint8_t)(0x80 | (c & 0x3F));
			}
			o += 3;
		} else if (c >= 0x10000 && c < 0x110000) {
			if (out) {
				out[o] = (uint8_t)(0xF0 | (c >> 18));
				out[o + 1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
				out[o + 2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
				out[o + 3] = (uint8_t)(0x80 | (c & 0x3F));
			}
			o += 4;
		} else {
			/* a surrogate, or a value XS cannot hold as a character */
			if (out) {
				out[o] = 0xEF;
				out[o + 1] = 0xBF;
				out[o + 2] = 0xBD;
			}
			o += 3;
		}
	}
	return o;
}
