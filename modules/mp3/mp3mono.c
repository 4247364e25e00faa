/*
 * mp3mono: see mp3mono.h. minimp3 is compiled here, once, as its README asks
 * (MINIMP3_IMPLEMENTATION in one file), with:
 *   MINIMP3_ONLY_MP3   Layer III only: the player takes nothing else, and less
 *                      code is less to fuzz and to flash;
 *   MINIMP3_NO_SIMD    the portable float code everywhere: the device has no SSE
 *                      or NEON, so the simulator runs the path the device runs;
 *   MINIMP3_SCRATCH    the per-frame scratch (about 16 KB) in the decoder's own
 *                      memory instead of on the C stack (the device's XS task has
 *                      10 KB of stack): our patch, minimp3/desk-scratch.patch.
 *
 * Each frame is handed to minimp3 cut to its exact length: minimp3 then takes it
 * as the next frame of the stream it knows (same version, layer and rate) and
 * keeps its bit reservoir and overlap; a frame of other parameters (a new stream)
 * resets it, as its own sync does.
 */
#include "mp3mono.h"

#include <string.h>

#define MINIMP3_ONLY_MP3
#define MINIMP3_NO_SIMD
#define MINIMP3_SCRATCH(dec) mp3mono_scratch(dec)
#define MINIMP3_IMPLEMENTATION

static void *mp3mono_scratch(void *dec);

#include "minimp3/minimp3.h"

struct mp3mono {
	mp3dec_t dec; /* first: mp3mono_scratch finds the rest from it */
	mp3dec_scratch_t scratch;
	mp3d_sample_t pcm[MINIMP3_MAX_SAMPLES_PER_FRAME];
};

static void *mp3mono_scratch(void *dec)
{
	return &((mp3mono *)dec)->scratch;
}

size_t mp3mono_size(void)
{
	return sizeof(mp3mono);
}

void mp3mono_init(mp3mono *d)
{
	memset(d, 0, sizeof(*d));
	mp3dec_init(&d->dec);
}

size_t mp3mono_frame_length(const uint8_t *p, size_t length)
{
	if (length < HDR_SIZE || !hdr_valid(p) || HDR_GET_LAYER(p) != 1 || HDR_IS_FREE_FORMAT(p))
		return 0;
	return (size_t)(hdr_frame_bytes(p, 0) + hdr_padding(p));
}

int mp3mono_frame(mp3mono *d, const uint8_t *input, size_t length, int16_t *out, size_t outCount)
{
	mp3dec_frame_info_t info;
	size_t frame = mp3mono_frame_length(input, length);
	int samples, i;
	if (!frame || frame > length || outCount < hdr_frame_samples(input))
		return -1;
	memset(&info, 0, sizeof(info));
	samples = mp3dec_decode_frame(&d->dec, input, (int)frame, d->pcm, &info);
	if (samples <= 0 || (size_t)samples > outCount)
		return 0;
	if (info.channels == 2) {
		for (i = 0; i < samples; i++)
			out[i] = (int16_t)((d->pcm[2 * i] + d->pcm[2 * i + 1]) >> 1);
	}
	else
		memcpy(out, d->pcm, (size_t)samples * sizeof(int16_t));
	return samples;
}
