/*
 * utf8: UTF-8 between standard bytes and the bytes of an XS string, in
 * portable C99 (no intrinsics, no alignment requirement, no allocation).
 *
 * An XS string (XS built without mxCESU8, as on the device and the
 * simulator) is a NUL-terminated sequence of code points in UTF-8 with two
 * twists: U+0000 is stored as C0 80, and surrogate code points are stored
 * as 3-byte sequences (ED A0..BF xx), one per surrogate: "\ud83d" is
 * ED A0 BD and "\ud83d" + "\ude00" is ED A0 BD ED B8 80 (two lone
 * surrogates, not a pair), while "\ud83d\ude00" in source is F0 9F 98 80.
 *
 *   utf8_decode_xs   standard bytes -> XS string bytes, the WHATWG decoder:
 *                    each maximal subpart of an ill-formed sequence becomes
 *                    one U+FFFD (EF BF BD); a BOM is kept; U+0000 -> C0 80.
 *   utf8_encode_xs   XS string bytes -> well-formed UTF-8: each character
 *                    is read as XS reads it (see utf8.c), then U+0000 -> 00,
 *                    surrogates and values above U+10FFFF -> U+FFFD.
 *
 * Both return the bytes they write; with out == NULL they only count. Both
 * skip the clean prefix (utf8_clean_prefix) at word speed. In the bytes a
 * clean prefix covers, the two forms are identical, so a caller can copy
 * that part and convert only the rest, which starts at a character
 * boundary.
 */
#ifndef UTF8_H
#define UTF8_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Length of the longest prefix of p[0..n) that is well-formed UTF-8 with no
 * NUL byte, ending on a character boundary. */
size_t utf8_clean_prefix(const uint8_t *p, size_t n);

/* Decodes p[0..n) (WHATWG, replacement per maximal subpart) into XS string
 * bytes at out (no NUL terminator written). At most 3 * n bytes. */
size_t utf8_decode_xs(const uint8_t *p, size_t n, uint8_t *out);

/* Encodes the XS string bytes s[0..n) (n = strlen) to well-formed UTF-8 at
 * out. At most n bytes for any string XS makes. */
size_t utf8_encode_xs(const uint8_t *s, size_t n, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif /* UTF8_H */
