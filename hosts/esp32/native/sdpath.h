/*
 * sdpath: the SD card's path rules, shared by the device glue (desk_sd.c) and
 * its host tests. Portable C99: no ESP-IDF, no XS.
 *
 * The firmware names card files with absolute '/'-separated paths ('/mem/vec/snap.bin');
 * the card is mounted by ESP-IDF's FAT VFS at SDPATH_MOUNT. A path is refused (0)
 * when it is not absolute, holds a NUL, a backslash, a control character, an empty,
 * '.' or '..' segment, or when the mounted form would not fit the buffer.
 */
#ifndef SDPATH_H
#define SDPATH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SDPATH_MOUNT "/sd"
/* FATFS long names are at most 255 characters; a whole path stays well under. */
#define SDPATH_MAX 256

/* Writes SDPATH_MOUNT + path (a trailing '/' dropped; '/' itself is the mount
 * point) into out (size outSize, NUL-terminated). Returns the length written,
 * or 0 when the path is refused. */
size_t sdpath_map(const char *path, size_t pathLength, char *out, size_t outSize);

/* The name the glue parks an existing file under while rename() replaces it
 * (FAT cannot rename over a file): mapped + SDPATH_BACKUP_SUFFIX. Returns the
 * length written, or 0 when it does not fit. */
#define SDPATH_BACKUP_SUFFIX "~bak"
size_t sdpath_backup(const char *mapped, char *out, size_t outSize);

#ifdef __cplusplus
}
#endif

#endif /* SDPATH_H */
