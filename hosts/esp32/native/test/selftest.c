/*
 * Host self-test of the device glue's portable parts (sdpath, otastate,
 * resetreason, panel, ledring). Run by `npm run check:device` (tools/check-device.mjs).
 */
#include <stdio.h>
#include <string.h>
#include "../sdpath.h"
#include "../otastate.h"
#include "../resetreason.h"
#include "../panel.h"
#include "../ledring.h"

static int failures = 0;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("FAIL: %s\n", what);
		failures++;
	}
}

static int maps(const char *in, const char *want)
{
	char out[SDPATH_MAX];
	size_t n = sdpath_map(in, strlen(in), out, sizeof out);
	if (!want)
		return n == 0;
	return n == strlen(want) && strcmp(out, want) == 0;
}

static void test_sdpath(void)
{
	char big[400];
	char small[8];
	check(maps("/", "/sd"), "/ is the mount point");
	check(maps("/mem/vec/snap.bin", "/sd/mem/vec/snap.bin"), "plain path");
	check(maps("/mem/epi/", "/sd/mem/epi"), "trailing slash dropped");
	check(maps("mem", NULL), "relative refused");
	check(maps("", NULL), "empty refused");
	check(maps("/a//b", NULL), "empty segment refused");
	check(maps("/a/../b", NULL), ".. refused");
	check(maps("/a/./b", NULL), ". refused");
	check(maps("/..", NULL), "/.. refused");
	check(maps("/a\\b", NULL), "backslash refused");
	check(maps("/a\nb", NULL), "control character refused");
	check(maps("/a/.hidden", "/sd/a/.hidden"), "dot file allowed");
	check(maps("/caf\xc3\xa9.md", "/sd/caf\xc3\xa9.md"), "UTF-8 allowed");
	check(sdpath_map("/a\0b", 4, small, sizeof small) == 0, "NUL refused");
	check(sdpath_map("/abcdefg", 8, small, sizeof small) == 0, "too long for the buffer");
	check(sdpath_backup("/sd/mem/vec/snap.bin", big, sizeof big) == 24 && strcmp(big, "/sd/mem/vec/snap.bin~bak") == 0, "backup name");
	check(sdpath_backup("/sd/abc", small, sizeof small) == 0, "backup name too long");
	memset(big, 'a', sizeof big);
	big[0] = '/';
	check(sdpath_map(big, 300, small, sizeof small) == 0, "over SDPATH_MAX refused");
}

static void test_otastate(void)
{
	check(strcmp(otastate_name(OTASTATE_IDF_NEW, 1), "new") == 0, "new");
	check(strcmp(otastate_name(OTASTATE_IDF_PENDING_VERIFY, 1), "pending-verify") == 0, "pending-verify");
	check(strcmp(otastate_name(OTASTATE_IDF_VALID, 1), "valid") == 0, "valid");
	check(strcmp(otastate_name(OTASTATE_IDF_INVALID, 1), "invalid") == 0, "invalid");
	check(strcmp(otastate_name(OTASTATE_IDF_ABORTED, 1), "aborted") == 0, "aborted");
	check(strcmp(otastate_name(OTASTATE_IDF_UNDEFINED, 1), "undefined") == 0, "undefined");
	check(strcmp(otastate_name(7, 1), "undefined") == 0, "unknown state");
	check(strcmp(otastate_name(OTASTATE_IDF_VALID, 0), "undefined") == 0, "no otadata entry");
	check(otastate_slot(0x10) == 0 && otastate_slot(0x11) == 1, "ota_0, ota_1");
	check(otastate_slot(0x00) == -1 && otastate_slot(0x12) == -1 && otastate_slot(0x20) == -1, "other subtypes");
}

static void test_resetreason(void)
{
	check(strcmp(resetreason_name(1), "power-on") == 0, "power-on");
	check(strcmp(resetreason_name(3), "software") == 0, "software");
	check(strcmp(resetreason_name(4), "panic") == 0, "panic");
	check(strcmp(resetreason_name(6), "watchdog") == 0, "task watchdog");
	check(strcmp(resetreason_name(8), "deep-sleep") == 0, "deep sleep");
	check(strcmp(resetreason_name(9), "brownout") == 0, "brownout");
	check(strcmp(resetreason_name(11), "external") == 0, "usb");
	check(strcmp(resetreason_name(0), "unknown") == 0 && strcmp(resetreason_name(99), "unknown") == 0, "unknown");
}

static int table_ok(const uint8_t *table, size_t size, int *records)
{
	size_t pos = 0;
	panel_record r;
	*records = 0;
	while (panel_next(table, size, &pos, &r))
		(*records)++;
	return pos == size;
}

static void test_panel(void)
{
	int n;
	uint8_t c[4], r[4], out[16];
	uint8_t cut[] = { 0x36, 2, 0, 0x48 };
	size_t pos = 0;
	panel_record rec;
	uint16_t px[2] = { 0x1234, 0xF800 };
	uint8_t data[2] = { 0xA5, 0x01 };
	check(table_ok(panel_st7796s_init, panel_st7796s_init_size, &n) && n == 17, "ST7796S table parses whole");
	check(table_ok(panel_st7701s_init, panel_st7701s_init_size, &n) && n == 34, "ST7701S table parses whole");
	check(!panel_next(cut, sizeof cut, &pos, &rec) && pos == 0, "cut record refused");
	check(panel_madctl(0) == 0x48 && panel_madctl(90) == 0x28 && panel_madctl(180) == 0x88 && panel_madctl(270) == 0xE8, "madctl");
	check(panel_madctl(45) == 0xFF, "bad rotation");
	check(panel_window(10, 300, 480, 20, c, r) && c[0] == 0 && c[1] == 10 && c[2] == 0x01 && c[3] == 0xE9 && r[0] == 0x01 && r[1] == 0x2C && r[2] == 0x01 && r[3] == 0x3F, "window");
	check(!panel_window(0, 0, 0, 5, c, r) && !panel_window(0xFFFF, 0, 2, 1, c, r), "empty or overflowing window");
	/* 0x36 then data 0xA5 0x01: 000110110 110100101 100000001 (27 bits) = 1B 69 60 20 */
	check(panel_pack9(0x36, data, 2, out, sizeof out) == 4, "pack9 length");
	check(out[0] == 0x1B && out[1] == 0x69 && out[2] == 0x60 && out[3] == 0x20, "pack9 bits");
	check(panel_pack9(0x36, data, 2, out, 3) == 0, "pack9 small buffer");
	panel_swap16(px, 2);
	check(px[0] == 0x3412 && px[1] == 0x00F8, "swap16");
}

static unsigned high(uint32_t s) { return s & 0x7FFFu; }
static unsigned low(uint32_t s) { return (s >> 16) & 0x7FFFu; }

/* Reads one colour byte back from 8 symbols, as a WS2812B samples a bit:
 * high for longer than about 0.6 us is a one. */
static int byte_at(const uint32_t *s)
{
	int v = 0, i;
	for (i = 0; i < 8; i++) {
		if (!((s[i] >> 15) & 1u) || ((s[i] >> 31) & 1u) || high(s[i]) + low(s[i]) < 11 || high(s[i]) + low(s[i]) > 14)
			return -1; /* not high-then-low, or a period outside 1.25 us +- 150 ns */
		v = (v << 1) | (high(s[i]) >= 6);
	}
	return v;
}

static void test_ledring(void)
{
	const uint8_t rgb[6] = { 0xFF, 0x01, 0x80, 0x12, 0x34, 0x56 };
	uint32_t out[2 * 24 + 1];
	size_t n = ledring_encode(rgb, sizeof rgb, 2, LEDRING_GRB, out, 49);
	check(ledring_symbol(1, 4, 0, 8) == 0x00088004u, "symbol word layout (rmt_symbol_word_t)");
	check(n == 49 && ledring_symbols_for(2) == 49, "24 symbols an LED and a reset");
	check(byte_at(out) == 0x01 && byte_at(out + 8) == 0xFF && byte_at(out + 16) == 0x80, "GRB order, most significant bit first");
	check(byte_at(out + 24) == 0x34 && byte_at(out + 32) == 0x12 && byte_at(out + 40) == 0x56, "second LED");
	check(high(out[0]) * 100 >= 250 && high(out[0]) * 100 <= 550 && low(out[0]) * 100 >= 700 && low(out[0]) * 100 <= 1000, "T0H, T0L in the datasheet's windows");
	check(high(out[8]) * 100 >= 650 && high(out[8]) * 100 <= 950 && low(out[8]) * 100 >= 300 && low(out[8]) * 100 <= 600, "T1H, T1L in the datasheet's windows");
	check(((out[48] >> 15) & 1u) == 0 && ((out[48] >> 31) & 1u) == 0 && (high(out[48]) + low(out[48])) * 100 >= 280000, "reset: low for at least 280 us");
	n = ledring_encode(rgb, sizeof rgb, 2, LEDRING_RGB, out, 49);
	check(n == 49 && byte_at(out) == 0xFF && byte_at(out + 8) == 0x01, "RGB order");
	n = ledring_encode(rgb, 3, 2, LEDRING_GRB, out, 49);
	check(n == 49 && byte_at(out + 24) == 0 && byte_at(out + 32) == 0 && byte_at(out + 40) == 0, "a short frame darkens the rest");
	check(ledring_encode(rgb, sizeof rgb, 2, LEDRING_GRB, out, 48) == 0, "too small an output refused");
	check(ledring_encode(rgb, sizeof rgb, 0, LEDRING_GRB, out, 49) == 0, "no LEDs refused");
	check(ledring_encode(rgb, sizeof rgb, LEDRING_MAX + 1, LEDRING_GRB, out, 49) == 0, "too many LEDs refused");
	check(ledring_encode(rgb, sizeof rgb, 2, 7, out, 49) == 0, "unknown order refused");
}

int main(void)
{
	test_sdpath();
	test_otastate();
	test_resetreason();
	test_panel();
	test_ledring();
	if (failures) {
		printf("%d failed\n", failures);
		return 1;
	}
	printf("device glue self-test: ok\n");
	return 0;
}
