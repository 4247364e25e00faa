/*
 * mp3mono: one MP3 stream decoded frame by frame into 16-bit mono, over minimp3
 * (minimp3/, CC0 1.0: minimp3/SOURCE.md). Portable C99, no XS, no ESP-IDF: the
 * XS binding (xs_mp3.c, on the device and in the simulator), the conformance and
 * speed harnesses and the fuzz target all call this, so they run the same C.
 *
 * The decoder interface is the HAL's FrameDecoder (src/hal/devices.ts): the caller
 * splits the stream into frames (src/music/formats.ts) and hands them over in
 * stream order, each followed by a few guard bytes this decoder does not need
 * (they are ignored); a stereo frame comes out mixed down as (L + R) >> 1. Only
 * MPEG-1/2/2.5 Layer III with a bitrate in the header is taken (the player's
 * frameHeader takes nothing else; free format and Layers I and II are refused).
 */
#ifndef MP3MONO_H
#define MP3MONO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most samples one frame gives (MPEG-1 Layer III), per channel. */
#define MP3MONO_FRAME_SAMPLES 1152

typedef struct mp3mono mp3mono;

/* Bytes a decoder takes (about 28 KB: minimp3's state and its scratch, which
 * minimp3 would otherwise put on the C stack, and one stereo frame of output). */
size_t mp3mono_size(void);

/* Readies a decoder in memory of mp3mono_size() bytes (any alignment malloc gives). */
void mp3mono_init(mp3mono *d);

/* The length in bytes (padding included) of the Layer III frame whose header is
 * at p (length bytes readable), or 0 when p does not start with one this
 * decoder takes. */
size_t mp3mono_frame_length(const uint8_t *p, size_t length);

/* Decodes the frame at the start of input (length bytes: the whole frame, bytes
 * after it ignored) into out (room for outCount samples). Returns the samples
 * written (1152 or 576), 0 when the frame decodes to nothing (a damaged frame,
 * or one whose bit reservoir lies in frames not seen, as after a seek), -1 when
 * input does not start with a whole frame this decoder takes or out is too
 * small for it. Never reads input past length nor writes out past outCount. */
int mp3mono_frame(mp3mono *d, const uint8_t *input, size_t length, int16_t *out, size_t outCount);

#ifdef __cplusplus
}
#endif

#endif /* MP3MONO_H */
