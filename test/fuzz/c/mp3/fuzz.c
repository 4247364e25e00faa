/*
 * libFuzzer target: the MP3 decoder (modules/mp3/mp3mono.c over minimp3) on arbitrary bytes, as an
 * uploaded or downloaded file reaches it. Two ways in, both on every input:
 *   1. the firmware's: the bytes split into frames as the music player splits them
 *      (src/music/formats.ts: past an ID3v2 tag, frame after frame while headers follow), each
 *      frame with 8 guard bytes after it (what follows, or zeros) through mp3mono_frame, as
 *      xs_mp3.c calls it; a frame whose header claims more than the input holds is given cut
 *      short too (mp3mono_frame must refuse it);
 *   2. minimp3's own: mp3dec_decode_frame over the whole buffer, resyncing on garbage.
 * Each buffer is its own allocation of the exact size, so AddressSanitizer sees a read past it.
 * Checks beyond the sanitizers: mp3mono_frame returns -1, 0, 576 or 1152, never more than
 * out holds.
 */
#include <stdlib.h>
#include <string.h>

#include "../../../../modules/mp3/mp3mono.c"

#define GUARD 8

static void check(int got)
{
	if (got != -1 && got != 0 && got != 576 && got != 1152)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static mp3mono *m = NULL;
	int16_t out[MP3MONO_FRAME_SAMPLES];
	size_t at = 0;
	if (!m && !(m = malloc(mp3mono_size())))
		abort();

	/* 1. the player's path */
	if (size >= 10 && data[0] == 'I' && data[1] == 'D' && data[2] == '3')
		at = 10 + (((size_t)(data[6] & 0x7f) << 21) | ((size_t)(data[7] & 0x7f) << 14) | ((size_t)(data[8] & 0x7f) << 7) | (data[9] & 0x7f));
	mp3mono_init(m);
	while (at < size) {
		size_t f = mp3mono_frame_length(data + at, size - at);
		uint8_t *input;
		size_t n;
		if (!f) {
			at++;
			continue;
		}
		n = f + GUARD <= size - at ? f + GUARD : size - at;
		if (at + f > size) {
			/* cut short: refused, and nothing read past what it was given */
			input = malloc(n);
			memcpy(input, data + at, n);
			if (mp3mono_frame(m, input, n, out, MP3MONO_FRAME_SAMPLES) != -1)
				abort();
			free(input);
			break;
		}
		input = calloc(1, f + GUARD);
		memcpy(input, data + at, n);
		check(mp3mono_frame(m, input, f + GUARD, out, MP3MONO_FRAME_SAMPLES));
		/* out too small for the frame: refused */
		if (mp3mono_frame(m, input, f + GUARD, out, 575) != -1)
			abort();
		free(input);
		at += f;
	}

	/* 2. minimp3's own loop on the whole buffer */
	{
		uint8_t *copy = malloc(size ? size : 1);
		mp3dec_frame_info_t info;
		size_t pos = 0;
		memcpy(copy, data, size);
		mp3mono_init(m);
		do {
			int samples;
			memset(&info, 0, sizeof(info));
			samples = mp3dec_decode_frame(&m->dec, copy + pos, (int)(size - pos), m->pcm, &info);
			if (samples < 0 || samples > MINIMP3_MAX_SAMPLES_PER_FRAME / 2 || info.frame_bytes < 0 || (size_t)info.frame_bytes > size - pos)
				abort();
			pos += (size_t)info.frame_bytes;
		} while (info.frame_bytes && pos < size);
		free(copy);
	}
	return 0;
}
