/*
 * libFuzzer target: the card's path rules (hosts/esp32/native/sdpath.c), which desk_sd.c applies
 * to every path the firmware hands it (names that come from requests, messages and the card
 * itself). The first input byte sizes the output buffer (0-255, then SDPATH_MAX + 8 as desk_sd.c
 * gives it), the rest is the path, NULs and all; each buffer is its own allocation of the exact
 * size, so AddressSanitizer sees a write past it.
 * Checks beyond the sanitizers: a mapped path is NUL-terminated at the length returned, shorter
 * than SDPATH_MAX and the buffer, "/sd" then the path (no trailing '/'), with no empty, '.' or '..'
 * segment and no control character or backslash; a refused one returns 0. The parked name
 * (sdpath_backup) is the mapped one plus "~bak", or 0 when it does not fit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../../../hosts/esp32/native/sdpath.h"

static void check_mapped(const char *out, size_t r)
{
	size_t i, seg = 3;
	if (strlen(out) != r || r >= SDPATH_MAX || memcmp(out, SDPATH_MOUNT, 3) != 0)
		abort();
	if (r == 3)
		return; /* the mount point: the path was "/" */
	if (out[3] != '/' || out[r - 1] == '/')
		abort();
	for (i = 4; i <= r; i++) {
		unsigned char c = i < r ? (unsigned char)out[i] : '/';
		if (c == '/') {
			size_t n = i - seg - 1;
			const char *p = out + seg + 1;
			if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
				abort();
			seg = i;
		}
		else if (c < 0x20 || c == 0x7f || c == '\\')
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t outSize, n, r;
	char *path, *out;
	if (size < 1)
		return 0;
	outSize = data[0] == 255 ? SDPATH_MAX + 8 : data[0];
	n = size - 1;
	path = malloc(n ? n : 1);
	out = malloc(outSize ? outSize : 1);
	if (!path || !out)
		abort();
	memcpy(path, data + 1, n);
	r = sdpath_map(path, n, out, outSize);
	if (r) {
		char *backup;
		size_t b, bSize = r + 1 + (size_t)(data[0] % 8);
		check_mapped(out, r);
		if (r >= outSize)
			abort();
		backup = malloc(bSize);
		b = sdpath_backup(out, backup, bSize);
		if (b && (b != r + 4 || strlen(backup) != b || memcmp(backup, out, r) || strcmp(backup + r, SDPATH_BACKUP_SUFFIX)))
			abort();
		if (!b && r + 5 <= bSize)
			abort();
		free(backup);
	}
	free(path);
	free(out);
	return 0;
}
