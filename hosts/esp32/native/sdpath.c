/*
 * sdpath: maps the firmware's card paths to the VFS mount point and refuses
 * the ones FAT or the firmware's rules do not allow (see sdpath.h).
 */
#include "sdpath.h"

#include <string.h>

size_t sdpath_map(const char *path, size_t pathLength, char *out, size_t outSize)
{
	size_t mount = sizeof(SDPATH_MOUNT) - 1;
	size_t i, seg = 1, at;
	if (!path || !out || pathLength == 0 || path[0] != '/')
		return 0;
	/* a trailing '/' names the same folder */
	while (pathLength > 1 && path[pathLength - 1] == '/')
		pathLength--;
	if (mount + pathLength + 1 > outSize || mount + pathLength >= SDPATH_MAX)
		return 0;
	for (i = 1; i <= pathLength; i++) {
		unsigned char c = (i < pathLength) ? (unsigned char)path[i] : '/';
		if (c == '/') {
			size_t n = i - seg;
			if (pathLength > 1) {
				if (n == 0)
					return 0;
				if (n == 1 && path[seg] == '.')
					return 0;
				if (n == 2 && path[seg] == '.' && path[seg + 1] == '.')
					return 0;
			}
			seg = i + 1;
		}
		else if (c < 0x20 || c == 0x7f || c == '\\')
			return 0;
	}
	memcpy(out, SDPATH_MOUNT, mount);
	at = mount;
	if (pathLength > 1) {
		memcpy(out + at, path, pathLength);
		at += pathLength;
	}
	out[at] = 0;
	return at;
}

size_t sdpath_backup(const char *mapped, char *out, size_t outSize)
{
	size_t n = strlen(mapped), k = sizeof(SDPATH_BACKUP_SUFFIX) - 1;
	if (n == 0 || n + k + 1 > outSize)
		return 0;
	memcpy(out, mapped, n);
	memcpy(out + n, SDPATH_BACKUP_SUFFIX, k + 1);
	return n + k;
}
