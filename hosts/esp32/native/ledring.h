/*
 * ledring: the wire format of a ring of WS2812B LEDs, in portable C99 (the
 * ESP-IDF side is desk_ring.c). Each LED takes 24 bits, its colours in the
 * ring's order (GRB for the WS2812B), most significant bit first; every bit is
 * a high pulse then a low one, and a low of at least 280 us latches the frame.
 * The bits are written as RMT symbol words, which the RMT peripheral plays out
 * as they are (ESP-IDF's copy encoder), so the timing is all here and is
 * checked on the host (hosts/esp32/native/test/selftest.c).
 *
 * Timing at a 10 MHz RMT clock (100 ns a tick), inside the WS2812B datasheet's
 * windows (T0H 0.4 us, T0L 0.85 us, T1H 0.8 us, T1L 0.45 us, each +-150 ns;
 * reset low >= 280 us in the WS2812B-V5 sheet, >= 50 us in the older one).
 *
 * This replaces the SDK's NeoPixel driver, whose files say GPL-3.0
 * (docs/licenses.md).
 */
#ifndef LEDRING_H
#define LEDRING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LEDRING_HZ 10000000u /* the RMT resolution the symbols assume */
#define LEDRING_T0H 4u       /* ticks: 0.4 us */
#define LEDRING_T0L 8u       /* 0.8 us */
#define LEDRING_T1H 8u       /* 0.8 us */
#define LEDRING_T1L 4u       /* 0.4 us */
#define LEDRING_RESET 3000u  /* 300 us low, split over one symbol's two halves */
#define LEDRING_MAX 256u     /* LEDs a ring may have */

enum { LEDRING_GRB = 0, LEDRING_RGB = 1 };

/* One RMT symbol word as ESP-IDF lays out rmt_symbol_word_t: duration0 in
 * bits 0-14, level0 bit 15, duration1 bits 16-30, level1 bit 31. */
uint32_t ledring_symbol(unsigned level0, unsigned duration0, unsigned level1, unsigned duration1);

/* The symbols for one frame: 24 per LED, then one reset symbol. */
size_t ledring_symbols_for(size_t count);

/* Writes the frame for count LEDs from rgb (red, green, blue per LED; bytes
 * past rgbLength read as 0, so a short frame darkens the rest) in the ring's
 * order. Returns the symbols written, or 0 when count is 0 or over
 * LEDRING_MAX, the order is unknown, or out holds fewer than
 * ledring_symbols_for(count). */
size_t ledring_encode(const uint8_t *rgb, size_t rgbLength, size_t count, int order, uint32_t *out, size_t outLength);

#ifdef __cplusplus
}
#endif

#endif /* LEDRING_H */
