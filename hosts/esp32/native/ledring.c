/*
 * ledring: WS2812B frames as RMT symbol words (see ledring.h).
 */
#include "ledring.h"

uint32_t ledring_symbol(unsigned level0, unsigned duration0, unsigned level1, unsigned duration1)
{
	return (uint32_t)(duration0 & 0x7FFFu) | ((uint32_t)(level0 & 1u) << 15) |
		((uint32_t)(duration1 & 0x7FFFu) << 16) | ((uint32_t)(level1 & 1u) << 31);
}

size_t ledring_symbols_for(size_t count)
{
	return count * 24u + 1u;
}

static uint8_t channel(const uint8_t *rgb, size_t rgbLength, size_t at)
{
	return at < rgbLength ? rgb[at] : 0;
}

size_t ledring_encode(const uint8_t *rgb, size_t rgbLength, size_t count, int order, uint32_t *out, size_t outLength)
{
	/* wire position -> offset in the red, green, blue triple */
	static const uint8_t orders[2][3] = { { 1, 0, 2 }, { 0, 1, 2 } };
	const uint32_t zero = ledring_symbol(1, LEDRING_T0H, 0, LEDRING_T0L);
	const uint32_t one = ledring_symbol(1, LEDRING_T1H, 0, LEDRING_T1L);
	size_t n = 0, led;
	if (count == 0 || count > LEDRING_MAX || (order != LEDRING_GRB && order != LEDRING_RGB) || outLength < ledring_symbols_for(count))
		return 0;
	for (led = 0; led < count; led++) {
		int c;
		for (c = 0; c < 3; c++) {
			uint8_t v = channel(rgb, rgbLength, led * 3u + orders[order][c]);
			int bit;
			for (bit = 7; bit >= 0; bit--)
				out[n++] = (v >> bit) & 1u ? one : zero;
		}
	}
	out[n++] = ledring_symbol(0, LEDRING_RESET / 2u, 0, LEDRING_RESET / 2u);
	return n;
}
