/*
 * MP3 decode speed in C, for npm run bench (bench/mp3.mjs): one file split into frames as the
 * music player splits it (each frame with 8 guard bytes after it), decoded frame by frame to mono
 * by minimp3 (modules/mp3/mp3mono.c, the firmware's decoder) and, when built with
 * -DDESK_BENCH_MAD and the Moddable SDK's libmad sources (modules/data/mp3/libmad, GPL: built here
 * for the comparison only, never into a firmware), by libmad exactly as the SDK's mp3/decode glue
 * (modules/data/mp3/mp3.c) calls it. Each decoder decodes the whole file `runs` times; the best
 * time is kept. Prints one JSON line:
 *   {"frames", "minimp3": {"ms", "samples"}, "libmad": {"ms", "samples", "rmsVsMinimp3"} | null}
 *
 *   decode <file.mp3> [runs]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../modules/mp3/mp3mono.h"

#ifdef DESK_BENCH_MAD
#include "config.h"
#include "mad.h"
#endif

#define GUARD 8

typedef struct {
	const uint8_t *at;
	size_t length;
} frame;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static size_t minimp3_pass(const frame *frames, size_t count, int16_t *pcm)
{
	static int16_t out[MP3MONO_FRAME_SAMPLES];
	mp3mono *m = malloc(mp3mono_size());
	size_t i, n = 0;
	if (!m)
		exit(2);
	mp3mono_init(m);
	for (i = 0; i < count; i++) {
		int got = mp3mono_frame(m, frames[i].at, frames[i].length + GUARD, out, MP3MONO_FRAME_SAMPLES);
		if (got > 0) {
			if (pcm)
				memcpy(pcm + n, out, (size_t)got * 2);
			n += (size_t)got;
		}
	}
	free(m);
	return n;
}

#ifdef DESK_BENCH_MAD
typedef struct {
	struct mad_stream stream;
	struct mad_frame frame;
	struct mad_synth synth;
	int16_t *out;
	int position;
} mad_state;

/* The SDK's output callback (mp3.c): mono as it is, stereo as (L + R) >> 1. */
static enum mad_flow mad_output(void *s, struct mad_header const *header, struct mad_pcm *pcm)
{
	mad_state *st = s;
	int count = pcm->length;
	if (MAD_MODE_SINGLE_CHANNEL == header->mode)
		memcpy(st->out + st->position, pcm->samples[0], (size_t)count * 2);
	else {
		int16_t *left = (int16_t *)pcm->samples[0];
		int16_t *right = (int16_t *)pcm->samples[1];
		int16_t *out = st->out + st->position;
		while (count--)
			*out++ = (int16_t)((*left++ + *right++) >> 1);
	}
	st->position += pcm->length;
	return MAD_FLOW_CONTINUE;
}

static size_t libmad_pass(const frame *frames, size_t count, int16_t *pcm)
{
	static int16_t out[MP3MONO_FRAME_SAMPLES];
	mad_state *st = calloc(1, sizeof(mad_state));
	size_t i, n = 0;
	if (!st)
		exit(2);
	mad_stream_init(&st->stream);
	mad_frame_init(&st->frame);
	mad_synth_init(&st->synth);
	for (i = 0; i < count; i++) {
		st->out = out;
		st->position = 0;
		mad_stream_buffer(&st->stream, frames[i].at, frames[i].length + GUARD);
		mad_frame_decode(&st->frame, &st->stream);
		mad_synth_frame(&st->synth, &st->frame, mad_output, st);
		if (st->position > 0) {
			if (pcm)
				memcpy(pcm + n, out, (size_t)st->position * 2);
			n += (size_t)st->position;
		}
	}
	mad_synth_finish(&st->synth);
	mad_frame_finish(&st->frame);
	mad_stream_finish(&st->stream);
	free(st);
	return n;
}
#endif

static double best(size_t (*pass)(const frame *, size_t, int16_t *), const frame *frames, size_t count, int runs, size_t *samples)
{
	double b = 1e300;
	int r;
	for (r = 0; r < runs; r++) {
		double t0 = now_ms();
		*samples = pass(frames, count, NULL);
		t0 = now_ms() - t0;
		if (t0 < b)
			b = t0;
	}
	return b;
}

int main(int argc, char **argv)
{
	FILE *f;
	uint8_t *data;
	long size;
	size_t at = 0, count = 0, samples = 0;
	frame *frames;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	double ms;
	if (argc < 2 || !(f = fopen(argv[1], "rb")))
		return 2;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = calloc(1, (size_t)size + GUARD); /* zeros after the last frame, as the player pads it */
	frames = calloc((size_t)size / 24 + 1, sizeof(frame));
	if (!data || !frames || fread(data, 1, (size_t)size, f) != (size_t)size)
		return 2;
	fclose(f);
	while (at < (size_t)size) {
		size_t n = mp3mono_frame_length(data + at, (size_t)size - at);
		if (!n) {
			at++;
			continue;
		}
		if (at + n > (size_t)size)
			break;
		frames[count].at = data + at;
		frames[count].length = n;
		count++;
		at += n;
	}
	ms = best(minimp3_pass, frames, count, runs, &samples);
	printf("{\"frames\":%zu,\"minimp3\":{\"ms\":%.3f,\"samples\":%zu},\"libmad\":", count, ms, samples);
#ifdef DESK_BENCH_MAD
	{
		size_t madSamples = 0, i, k;
		int16_t *a = malloc(samples * 2 + 2), *b;
		double sum = 0;
		ms = best(libmad_pass, frames, count, runs, &madSamples);
		b = malloc(madSamples * 2 + 2);
		if (!a || !b)
			return 2;
		minimp3_pass(frames, count, a);
		libmad_pass(frames, count, b);
		k = samples < madSamples ? samples : madSamples;
		for (i = 0; i < k; i++)
			sum += (double)(a[i] - b[i]) * (a[i] - b[i]);
		printf("{\"ms\":%.3f,\"samples\":%zu,\"rmsVsMinimp3\":%.2f}}\n", ms, madSamples, k ? sqrt(sum / (double)k) : 0.0);
		free(a);
		free(b);
	}
#else
	printf("null}\n");
#endif
	free(frames);
	free(data);
	return 0;
}
