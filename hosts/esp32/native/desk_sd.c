/*
 * desk_sd: the SD card for the device HAL (hosts/esp32/hal/storage.ts), since
 * the Moddable SDK has none. ESP-IDF's FAT VFS on SDSPI or SDMMC, mounted at
 * SDPATH_MOUNT; files through POSIX calls. ESP-IDF only: built by mcconfig.
 *
 * Errors throw an Error whose message starts with the HAL code
 * ("ENOENT: ..."); the TypeScript side turns them into HalError.
 *
 * FAT cannot rename over an existing file, and the HAL promises an atomic
 * replace: rename() parks the old file as <to>~bak, renames, then removes the
 * backup; a path found missing with its backup present (a power cut in
 * between) gets the backup back first, so a reader sees the old or the new
 * file, never neither.
 */
#include "xsmc.h"
#include "xsHost.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/sdmmc_host.h"
#include "driver/sdspi_host.h"
#include "driver/spi_common.h"
#include "esp_vfs_fat.h"
#include "sdmmc_cmd.h"

#include "sdpath.h"

#define DESK_SD_FILES 8

static sdmmc_card_t *gCard = NULL;
static int gSpiHost = -1;
static FILE *gFiles[DESK_SD_FILES];

static void desk_sd_throw(xsMachine *the, int err, const char *what)
{
	const char *code = "EIO";
	if (!gCard)
		code = "ENOCARD";
	else if (err == ENOENT)
		code = "ENOENT";
	else if (err == EEXIST)
		code = "EEXIST";
	else if (err == ENOTDIR)
		code = "ENOTDIR";
	else if (err == EISDIR)
		code = "EISDIR";
	else if (err == ENOTEMPTY)
		code = "ENOTEMPTY";
	else if (err == ENOSPC)
		code = "ENOSPC";
	else if (err == EINVAL || err == ENAMETOOLONG)
		code = "EINVAL";
	xsUnknownError("%s: %s", code, what);
}

/* The mounted path of argument arg, with a parked backup restored. */
static void desk_sd_path(xsMachine *the, int arg, char *out)
{
	char backup[SDPATH_MAX + 8];
	struct stat st;
	const char *path;
	if (!gCard)
		xsUnknownError("ENOCARD: no card");
	path = xsmcToString(xsArg(arg));
	if (!sdpath_map(path, strlen(path), out, SDPATH_MAX))
		xsUnknownError("EINVAL: bad path");
	if (stat(out, &st) != 0 && sdpath_backup(out, backup, sizeof backup) && stat(backup, &st) == 0)
		rename(backup, out);
}

static int desk_sd_mkdirs(char *path)
{
	char *p;
	struct stat st;
	for (p = path + sizeof(SDPATH_MOUNT); *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (stat(path, &st) != 0 && mkdir(path, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (stat(path, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	return mkdir(path, 0777);
}

/* sdMount({bus: "sdspi", sclk, mosi, miso, cs} | {bus: "sdmmc", clk, cmd, d0}): boolean */
void xs_desk_sd_mount(xsMachine *the)
{
	esp_vfs_fat_sdmmc_mount_config_t mount = {
		.format_if_mount_failed = false,
		.max_files = DESK_SD_FILES + 2,
		.allocation_unit_size = 16 * 1024,
	};
	esp_err_t err;
	char *bus;
	xsmcVars(1);
	if (gCard) {
		xsmcSetTrue(xsResult);
		return;
	}
	xsmcGet(xsVar(0), xsArg(0), xsID("bus"));
	bus = xsmcToString(xsVar(0));
#define PIN(name) (xsmcGet(xsVar(0), xsArg(0), xsID(name)), xsmcToInteger(xsVar(0)))
	if (!strcmp(bus, "sdmmc")) {
		sdmmc_host_t host = SDMMC_HOST_DEFAULT();
		sdmmc_slot_config_t slot = SDMMC_SLOT_CONFIG_DEFAULT();
		slot.width = 1;
		slot.clk = PIN("clk");
		slot.cmd = PIN("cmd");
		slot.d0 = PIN("d0");
		slot.flags |= SDMMC_SLOT_FLAG_INTERNAL_PULLUP;
		err = esp_vfs_fat_sdmmc_mount(SDPATH_MOUNT, &host, &slot, &mount, &gCard);
	}
	else {
		sdmmc_host_t host = SDSPI_HOST_DEFAULT();
		sdspi_device_config_t slot = SDSPI_DEVICE_CONFIG_DEFAULT();
		spi_bus_config_t busConfig = {
			.mosi_io_num = PIN("mosi"),
			.miso_io_num = PIN("miso"),
			.sclk_io_num = PIN("sclk"),
			.quadwp_io_num = -1,
			.quadhd_io_num = -1,
			.max_transfer_sz = 4000,
		};
		host.slot = SPI3_HOST;
		/* The bus may already be up (a display sharing it): that is fine. */
		err = spi_bus_initialize(host.slot, &busConfig, SDSPI_DEFAULT_DMA);
		if (err != ESP_OK && err != ESP_ERR_INVALID_STATE) {
			xsmcSetFalse(xsResult);
			return;
		}
		gSpiHost = host.slot;
		slot.gpio_cs = PIN("cs");
		slot.host_id = host.slot;
		err = esp_vfs_fat_sdspi_mount(SDPATH_MOUNT, &host, &slot, &mount, &gCard);
	}
#undef PIN
	if (err != ESP_OK)
		gCard = NULL;
	xsmcSetBoolean(xsResult, gCard != NULL);
}

void xs_desk_sd_unmount(xsMachine *the)
{
	int i;
	for (i = 0; i < DESK_SD_FILES; i++) {
		if (gFiles[i])
			fclose(gFiles[i]);
		gFiles[i] = NULL;
	}
	if (gCard)
		esp_vfs_fat_sdcard_unmount(SDPATH_MOUNT, gCard);
	gCard = NULL;
}

/* sdInfo(): [totalBytes, freeBytes] or undefined without a card */
void xs_desk_sd_info(xsMachine *the)
{
	uint64_t total = 0, freeBytes = 0;
	if (!gCard)
		return;
	if (esp_vfs_fat_info(SDPATH_MOUNT, &total, &freeBytes) != ESP_OK) {
		/* the card stopped answering: treat it as pulled */
		xs_desk_sd_unmount(the);
		return;
	}
	xsmcVars(1);
	xsmcSetNewArray(xsResult, 2);
	xsmcSetNumber(xsVar(0), (double)((uint64_t)gCard->csd.capacity * gCard->csd.sector_size));
	xsmcSetIndex(xsResult, 0, xsVar(0));
	xsmcSetNumber(xsVar(0), (double)freeBytes);
	xsmcSetIndex(xsResult, 1, xsVar(0));
}

/* sdStat(path): [size, isDir, mtimeSeconds] or undefined */
void xs_desk_sd_stat(xsMachine *the)
{
	char path[SDPATH_MAX];
	struct stat st;
	desk_sd_path(the, 0, path);
	if (stat(path, &st) != 0) {
		if (errno != ENOENT)
			desk_sd_throw(the, errno, "stat");
		return;
	}
	xsmcVars(1);
	xsmcSetNewArray(xsResult, 3);
	xsmcSetNumber(xsVar(0), (double)st.st_size);
	xsmcSetIndex(xsResult, 0, xsVar(0));
	xsmcSetBoolean(xsVar(0), S_ISDIR(st.st_mode));
	xsmcSetIndex(xsResult, 1, xsVar(0));
	xsmcSetNumber(xsVar(0), (double)st.st_mtime);
	xsmcSetIndex(xsResult, 2, xsVar(0));
}

/* sdList(path): [[name, isDir, size], ...] (parked backups left out) */
void xs_desk_sd_list(xsMachine *the)
{
	char path[SDPATH_MAX], entry[SDPATH_MAX * 2];
	DIR *dir;
	struct dirent *de;
	struct stat st;
	int i = 0;
	size_t k = sizeof(SDPATH_BACKUP_SUFFIX) - 1;
	desk_sd_path(the, 0, path);
	dir = opendir(path);
	if (!dir)
		desk_sd_throw(the, errno, "list");
	xsmcVars(2);
	xsmcSetNewArray(xsResult, 0);
	while ((de = readdir(dir)) != NULL) {
		size_t n = strlen(de->d_name);
		if (n >= k && !strcmp(de->d_name + n - k, SDPATH_BACKUP_SUFFIX))
			continue;
		snprintf(entry, sizeof entry, "%s/%s", path, de->d_name);
		if (stat(entry, &st) != 0)
			continue;
		xsmcSetNewArray(xsVar(0), 3);
		xsmcSetString(xsVar(1), de->d_name);
		xsmcSetIndex(xsVar(0), 0, xsVar(1));
		xsmcSetBoolean(xsVar(1), S_ISDIR(st.st_mode));
		xsmcSetIndex(xsVar(0), 1, xsVar(1));
		xsmcSetNumber(xsVar(1), S_ISDIR(st.st_mode) ? 0 : (double)st.st_size);
		xsmcSetIndex(xsVar(0), 2, xsVar(1));
		xsmcSetIndex(xsResult, i++, xsVar(0));
	}
	closedir(dir);
}

void xs_desk_sd_mkdir(xsMachine *the)
{
	char path[SDPATH_MAX];
	desk_sd_path(the, 0, path);
	if (desk_sd_mkdirs(path) != 0)
		desk_sd_throw(the, errno, "mkdir");
}

/* sdRead(path, offset, length): ArrayBuffer (shorter at the end of the file) */
void xs_desk_sd_read(xsMachine *the)
{
	char path[SDPATH_MAX];
	xsIntegerValue offset = xsmcToInteger(xsArg(1));
	xsIntegerValue length = xsmcToInteger(xsArg(2));
	struct stat st;
	FILE *f;
	void *data;
	xsUnsignedValue size;
	size_t got;
	if (offset < 0 || length < 0)
		xsUnknownError("EINVAL: bad range");
	desk_sd_path(the, 0, path);
	if (stat(path, &st) != 0)
		desk_sd_throw(the, errno, "read");
	if (S_ISDIR(st.st_mode))
		desk_sd_throw(the, EISDIR, "read");
	if (offset > st.st_size)
		offset = st.st_size;
	if (length > st.st_size - offset)
		length = st.st_size - offset;
	f = fopen(path, "rb");
	if (!f)
		desk_sd_throw(the, errno, "read");
	xsmcSetArrayBuffer(xsResult, NULL, length);
	xsmcGetBufferWritable(xsResult, &data, &size);
	if (fseek(f, offset, SEEK_SET) != 0) {
		fclose(f);
		desk_sd_throw(the, EIO, "read");
	}
	got = fread(data, 1, size, f);
	fclose(f);
	if (got != size)
		desk_sd_throw(the, EIO, "read");
}

/* sdOpen(path, "w" | "a"): [fd, size] */
void xs_desk_sd_open(xsMachine *the)
{
	char path[SDPATH_MAX];
	char *mode = xsmcToString(xsArg(1));
	int fd;
	long size;
	FILE *f;
	int append = !strcmp(mode, "a");
	if (!append && strcmp(mode, "w"))
		xsUnknownError("EINVAL: mode");
	desk_sd_path(the, 0, path);
	for (fd = 0; fd < DESK_SD_FILES; fd++)
		if (!gFiles[fd])
			break;
	if (fd == DESK_SD_FILES)
		xsUnknownError("EBUSY: too many open files");
	f = fopen(path, append ? "ab" : "wb");
	if (!f)
		desk_sd_throw(the, errno, "open");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	gFiles[fd] = f;
	xsmcVars(1);
	xsmcSetNewArray(xsResult, 2);
	xsmcSetInteger(xsVar(0), fd);
	xsmcSetIndex(xsResult, 0, xsVar(0));
	xsmcSetNumber(xsVar(0), (double)size);
	xsmcSetIndex(xsResult, 1, xsVar(0));
}

static FILE *desk_sd_file(xsMachine *the)
{
	xsIntegerValue fd = xsmcToInteger(xsArg(0));
	if (fd < 0 || fd >= DESK_SD_FILES || !gFiles[fd])
		xsUnknownError("EINVAL: file is closed");
	if (!gCard)
		xsUnknownError("ENOCARD: no card");
	return gFiles[fd];
}

/* sdWrite(fd, bytes): the file's size after the write */
void xs_desk_sd_write(xsMachine *the)
{
	FILE *f = desk_sd_file(the);
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferReadable(xsArg(1), &data, &size);
	if (fwrite(data, 1, size, f) != size)
		desk_sd_throw(the, errno ? errno : EIO, "write");
	xsmcSetNumber(xsResult, (double)ftell(f));
}

void xs_desk_sd_sync(xsMachine *the)
{
	FILE *f = desk_sd_file(the);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		desk_sd_throw(the, errno ? errno : EIO, "sync");
}

void xs_desk_sd_close(xsMachine *the)
{
	xsIntegerValue fd = xsmcToInteger(xsArg(0));
	if (fd < 0 || fd >= DESK_SD_FILES || !gFiles[fd])
		return;
	fclose(gFiles[fd]);
	gFiles[fd] = NULL;
}

void xs_desk_sd_rename(xsMachine *the)
{
	char from[SDPATH_MAX], to[SDPATH_MAX], backup[SDPATH_MAX + 8];
	struct stat st;
	int parked = 0;
	desk_sd_path(the, 0, from);
	desk_sd_path(the, 1, to);
	if (stat(from, &st) != 0)
		desk_sd_throw(the, errno, "rename");
	if (stat(to, &st) == 0) {
		if (!sdpath_backup(to, backup, sizeof backup))
			xsUnknownError("EINVAL: bad path");
		unlink(backup);
		if (rename(to, backup) != 0)
			desk_sd_throw(the, errno, "rename");
		parked = 1;
	}
	if (rename(from, to) != 0) {
		int err = errno;
		if (parked)
			rename(backup, to);
		desk_sd_throw(the, err, "rename");
	}
	if (parked)
		unlink(backup);
}

void xs_desk_sd_remove(xsMachine *the)
{
	char path[SDPATH_MAX];
	struct stat st;
	desk_sd_path(the, 0, path);
	if (stat(path, &st) != 0)
		return;
	if ((S_ISDIR(st.st_mode) ? rmdir(path) : unlink(path)) != 0)
		desk_sd_throw(the, errno, "remove");
}
