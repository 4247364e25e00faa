/*
 * panel: init tables and byte-level helpers for the ST7796S and ST7701S panels
 * (see panel.h). The tables follow the vendors' example code for the two
 * reference boards (Waveshare ESP32-S3-Touch-LCD-3.5, Guition
 * ESP32-S3-4848S040); gamma and power values are the vendors', not tuned here.
 */
#include "panel.h"

#define R(cmd, len, delay) (cmd), (len), (delay)

const uint8_t panel_st7796s_init[] = {
	R(0x01, 0, 120),                           /* software reset */
	R(0x11, 0, 120),                           /* sleep out */
	R(0xF0, 1, 0), 0xC3,                       /* command set control: enable part 1 */
	R(0xF0, 1, 0), 0x96,                       /* ... and part 2 */
	R(0x3A, 1, 0), 0x55,                       /* 16 bits per pixel */
	R(0xB4, 1, 0), 0x01,                       /* 1-dot inversion */
	R(0xB6, 3, 0), 0x80, 0x02, 0x3B,           /* display function control */
	R(0xE8, 8, 0), 0x40, 0x8A, 0x00, 0x00, 0x29, 0x19, 0xA5, 0x33,
	R(0xC1, 1, 0), 0x06,                       /* power control 2 */
	R(0xC2, 1, 0), 0xA7,                       /* power control 3 */
	R(0xC5, 1, 120), 0x18,                     /* VCOM */
	R(0xE0, 14, 0), 0xF0, 0x09, 0x0B, 0x06, 0x04, 0x15, 0x2F, 0x54, 0x42, 0x3C, 0x17, 0x14, 0x18, 0x1B,
	R(0xE1, 14, 0), 0xE0, 0x09, 0x0B, 0x06, 0x04, 0x03, 0x2B, 0x43, 0x42, 0x3B, 0x16, 0x14, 0x17, 0x1B,
	R(0xF0, 1, 0), 0x3C,                       /* command set control: disable */
	R(0xF0, 1, 120), 0x69,
	R(0x21, 0, 0),                             /* IPS panel: inversion on */
	R(0x29, 0, 20),                            /* display on */
};
const size_t panel_st7796s_init_size = sizeof(panel_st7796s_init);

const uint8_t panel_st7701s_init[] = {
	R(0xFF, 5, 0), 0x77, 0x01, 0x00, 0x00, 0x10, /* command bank 0 */
	R(0xC0, 2, 0), 0x3B, 0x00,                 /* 480 lines */
	R(0xC1, 2, 0), 0x0D, 0x02,                 /* porches */
	R(0xC2, 2, 0), 0x31, 0x05,                 /* inversion, clocks per line */
	R(0xCD, 1, 0), 0x08,                       /* RGB565 on the low data lines */
	R(0xB0, 16, 0), 0x00, 0x11, 0x18, 0x0E, 0x11, 0x06, 0x07, 0x08, 0x07, 0x22, 0x04, 0x12, 0x0F, 0xAA, 0x31, 0x18,
	R(0xB1, 16, 0), 0x00, 0x11, 0x19, 0x0E, 0x12, 0x07, 0x08, 0x08, 0x08, 0x22, 0x04, 0x11, 0x11, 0xA9, 0x32, 0x18,
	R(0xFF, 5, 0), 0x77, 0x01, 0x00, 0x00, 0x11, /* command bank 1: power */
	R(0xB0, 1, 0), 0x60,
	R(0xB1, 1, 0), 0x32,
	R(0xB2, 1, 0), 0x07,
	R(0xB3, 1, 0), 0x80,
	R(0xB5, 1, 0), 0x49,
	R(0xB7, 1, 0), 0x85,
	R(0xB8, 1, 0), 0x21,
	R(0xC1, 1, 0), 0x78,
	R(0xC2, 1, 20), 0x78,
	R(0xE0, 3, 0), 0x00, 0x1B, 0x02,           /* gate timing */
	R(0xE1, 11, 0), 0x08, 0xA0, 0x00, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x00, 0x44, 0x44,
	R(0xE2, 12, 0), 0x11, 0x11, 0x44, 0x44, 0xED, 0xA0, 0x00, 0x00, 0xEC, 0xA0, 0x00, 0x00,
	R(0xE3, 4, 0), 0x00, 0x00, 0x11, 0x11,
	R(0xE4, 2, 0), 0x44, 0x44,
	R(0xE5, 16, 0), 0x0A, 0xE9, 0xD8, 0xA0, 0x0C, 0xEB, 0xD8, 0xA0, 0x0E, 0xED, 0xD8, 0xA0, 0x10, 0xEF, 0xD8, 0xA0,
	R(0xE6, 4, 0), 0x00, 0x00, 0x11, 0x11,
	R(0xE7, 2, 0), 0x44, 0x44,
	R(0xE8, 16, 0), 0x09, 0xE8, 0xD8, 0xA0, 0x0B, 0xEA, 0xD8, 0xA0, 0x0D, 0xEC, 0xD8, 0xA0, 0x0F, 0xEE, 0xD8, 0xA0,
	R(0xEB, 7, 0), 0x02, 0x00, 0xE4, 0xE4, 0x88, 0x00, 0x40,
	R(0xEC, 2, 0), 0x3C, 0x00,
	R(0xED, 16, 0), 0xAB, 0x89, 0x76, 0x54, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x20, 0x45, 0x67, 0x98, 0xBA,
	R(0xFF, 5, 0), 0x77, 0x01, 0x00, 0x00, 0x00, /* back to the standard command set */
	R(0x36, 1, 0), 0x00,
	R(0x3A, 1, 0), 0x55,                       /* 16 bits per pixel */
	R(0x11, 0, 120),                           /* sleep out */
	R(0x29, 0, 20),                            /* display on */
};
const size_t panel_st7701s_init_size = sizeof(panel_st7701s_init);

int panel_next(const uint8_t *table, size_t size, size_t *pos, panel_record *out)
{
	size_t at = *pos;
	if (at + 3 > size)
		return 0;
	out->cmd = table[at];
	out->length = table[at + 1];
	out->delayMs = table[at + 2];
	if (at + 3 + out->length > size)
		return 0;
	out->data = table + at + 3;
	*pos = at + 3 + out->length;
	return 1;
}

uint8_t panel_madctl(int rotation)
{
	switch (rotation) {
	case 0:
		return 0x48; /* MX | BGR */
	case 90:
		return 0x28; /* MV | BGR */
	case 180:
		return 0x88; /* MY | BGR */
	case 270:
		return 0xE8; /* MY | MX | MV | BGR */
	default:
		return 0xFF;
	}
}

int panel_window(uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint8_t caset[4], uint8_t raset[4])
{
	uint32_t x1, y1;
	if (width == 0 || height == 0)
		return 0;
	x1 = x + width - 1;
	y1 = y + height - 1;
	if (x1 > 0xFFFFu || y1 > 0xFFFFu || x1 < x || y1 < y)
		return 0;
	caset[0] = (uint8_t)(x >> 8);
	caset[1] = (uint8_t)x;
	caset[2] = (uint8_t)(x1 >> 8);
	caset[3] = (uint8_t)x1;
	raset[0] = (uint8_t)(y >> 8);
	raset[1] = (uint8_t)y;
	raset[2] = (uint8_t)(y1 >> 8);
	raset[3] = (uint8_t)y1;
	return 1;
}

size_t panel_pack9(uint8_t cmd, const uint8_t *data, size_t length, uint8_t *out, size_t outSize)
{
	size_t bits = 9 * (1 + length);
	size_t bytes = (bits + 7) / 8;
	size_t bit = 0, i;
	if (bytes > outSize)
		return 0;
	for (i = 0; i < bytes; i++)
		out[i] = 0;
	for (i = 0; i <= length; i++) {
		unsigned word = (i == 0) ? cmd : (0x100u | data[i - 1]);
		int b;
		for (b = 8; b >= 0; b--, bit++) {
			if (word & (1u << b))
				out[bit >> 3] |= (uint8_t)(0x80u >> (bit & 7));
		}
	}
	return bytes;
}

void panel_swap16(uint16_t *pixels, size_t count)
{
	size_t i;
	for (i = 0; i < count; i++)
		pixels[i] = (uint16_t)((pixels[i] >> 8) | (pixels[i] << 8));
}
