/*
 * libFuzzer target: the portable parts of the device glue (hosts/esp32/native) that turn what
 * ESP-IDF reads from flash and the chip into the firmware's terms, and the panel helpers:
 *   otastate.c     an app slot's state word (from the otadata partition) and a partition subtype
 *                  (from the partition table) -> the HAL's names and slot numbers;
 *   resetreason.c  the chip's reset reason -> the HAL's name;
 *   panel.c        an init table read record by record (the input as the table), 9-bit packing
 *                  for the 3-wire link, window bounds, byte swapping.
 * The input is read as those numbers and as the table; every buffer is its own allocation of the
 * exact size. Checks beyond the sanitizers: every name is one the HAL knows; slots are -1, 0, 1;
 * panel_next never hands out a record past the table and always moves on; panel_pack9 writes
 * ceil(9 * (1 + length) / 8) bytes or refuses a buffer too small; panel_window refuses empty and
 * out-of-range windows and gives big-endian ends otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include "../../../../hosts/esp32/native/otastate.h"
#include "../../../../hosts/esp32/native/panel.h"
#include "../../../../hosts/esp32/native/resetreason.h"

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int one_of(const char *s, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(s, *names))
			return 1;
	return 0;
}

static const char *const SLOT_STATES[] = { "new", "pending-verify", "valid", "invalid", "aborted", "undefined", NULL };
static const char *const RESET_REASONS[] = { "power-on", "external", "software", "panic", "watchdog", "deep-sleep", "brownout", "unknown", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *table = malloc(size ? size : 1);
	size_t pos = 0, at;
	panel_record r;
	if (!table)
		abort();
	memcpy(table, data, size);

	for (at = 0; at + 4 <= size && at < 64; at += 4) {
		uint32_t v = u32(data + at);
		int slot = otastate_slot(v);
		if (!one_of(otastate_name(v, (int)(v & 1)), SLOT_STATES) || !one_of(otastate_name(v, 1), SLOT_STATES))
			abort();
		if (slot < -1 || slot > 1 || (slot >= 0) != (v == 0x10u || v == 0x11u))
			abort();
		if (!one_of(resetreason_name((int)v), RESET_REASONS))
			abort();
	}

	/* the input as an init table */
	while (panel_next(table, size, &pos, &r)) {
		if (r.data < table || r.data + r.length > table + size || pos > size || r.data + r.length != table + pos)
			abort();
	}
	if (pos > size)
		abort();

	/* 9-bit packing of the first record-shaped bytes, into a buffer sized from the input */
	if (size >= 3) {
		size_t length = size - 3 < data[1] ? size - 3 : data[1];
		size_t need = (9 * (1 + length) + 7) / 8, outSize = data[2] % 2 ? need : need - 1 + (data[2] % 4 == 0);
		uint8_t *out = malloc(outSize ? outSize : 1);
		size_t got = panel_pack9(data[0], table + 3, length, out, outSize);
		if (got != (outSize >= need ? need : 0))
			abort();
		free(out);
	}

	if (size >= 16) {
		uint8_t caset[4], raset[4];
		uint32_t x = u32(data), y = u32(data + 4), w = u32(data + 8), h = u32(data + 12);
		int ok = panel_window(x, y, w, h, caset, raset);
		int fits = w && h && (uint64_t)x + w - 1 <= 0xFFFF && (uint64_t)y + h - 1 <= 0xFFFF;
		if (ok != fits)
			abort();
		if (ok && (((uint32_t)caset[0] << 8 | caset[1]) != x || ((uint32_t)caset[2] << 8 | caset[3]) != x + w - 1 || ((uint32_t)raset[0] << 8 | raset[1]) != y || ((uint32_t)raset[2] << 8 | raset[3]) != y + h - 1))
			abort();
		(void)panel_madctl((int)x);
	}

	{
		size_t count = size / 2;
		uint16_t *pixels = malloc(count ? count * 2 : 1);
		memcpy(pixels, data, count * 2);
		panel_swap16(pixels, count);
		panel_swap16(pixels, count);
		if (memcmp(pixels, data, count * 2))
			abort();
		free(pixels);
	}
	free(table);
	return 0;
}
