/*
 * panel: what the two panels without a Moddable display driver need, in
 * portable C99 (the ESP-IDF side is desk_panel.c): the ST7796S (panel-35, SPI,
 * MIPI DCS like the ILI9341) and the ST7701S (panel-40, a 16-bit RGB panel that
 * is configured once over a 3-wire, 9-bit SPI link and then scanned out of a
 * frame buffer by the ESP32-S3's LCD peripheral).
 *
 * Init tables are flat byte arrays of records: command, data length, delay in
 * milliseconds after the command (0-255), then the data bytes.
 */
#ifndef PANEL_H
#define PANEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	uint8_t cmd;
	uint8_t length;
	uint8_t delayMs;
	const uint8_t *data;
} panel_record;

extern const uint8_t panel_st7796s_init[];
extern const size_t panel_st7796s_init_size;
extern const uint8_t panel_st7701s_init[];
extern const size_t panel_st7701s_init_size;

/* Reads the record at *pos of table and advances *pos. Returns 0 at the end
 * of the table or when a record is cut short (a malformed table). */
int panel_next(const uint8_t *table, size_t size, size_t *pos, panel_record *out);

/* MIPI DCS memory access control (0x36) for a rotation of 0, 90, 180 or 270
 * degrees, with BGR colour order; 0xFF for any other rotation. */
uint8_t panel_madctl(int rotation);

/* Column (0x2A) and row (0x2B) address set parameters for a window: 4 bytes
 * each, big-endian start and end (inclusive). Returns 0 for an empty window
 * or one past 0xFFFF. */
int panel_window(uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint8_t caset[4], uint8_t raset[4]);

/* Packs one command and its data for a 3-wire SPI link: each byte is sent as
 * 9 bits, a D/C bit (0 command, 1 data) then the byte, most significant bit
 * first; the stream is padded with zero bits to whole bytes. Returns the bytes
 * written (ceil(9 * (1 + length) / 8)), or 0 when out is too small. The bit
 * count to clock out is 9 * (1 + length). */
size_t panel_pack9(uint8_t cmd, const uint8_t *data, size_t length, uint8_t *out, size_t outSize);

/* RGB565 pixels as the firmware sends them (host order in a Uint16Array) to
 * the big-endian byte order an SPI panel reads, in place. */
void panel_swap16(uint16_t *pixels, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* PANEL_H */
