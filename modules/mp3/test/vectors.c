/*
 * minimp3's conformance vectors through the decoder as the firmware builds it (../mp3mono.c:
 * Layer III only, no SIMD, the scratch patch), for test/unit/mp3-vectors.test.ts. For each
 * <name>.bit given on the command line, with its <name>.pcm (16-bit little-endian, interleaved)
 * beside it, prints one JSON line:
 *
 *   stream   minimp3's own loop (its minimp3_test.c: mp3dec_decode_frame over the buffer, which
 *            syncs and skips what is not a frame itself), interleaved output against the .pcm:
 *            samples (interleaved), perChannel, channels, hz, maxdiff, psnr = 10 log10(32767^2 / MSE) (99 when equal),
 *            minimp3's criterion being psnr >= 96;
 *   frames   the firmware's path: the stream split as the music player splits it (past an ID3v2
 *            tag, from the first of three chained frames, then frame after frame while headers
 *            follow: src/music/formats.ts) and each frame given to mp3mono_frame, mono out,
 *            against the .pcm mixed down as (L + R) >> 1 frame by frame (a stream may switch
 *            between mono and stereo): frames, refused (-1), silent (0), samples, maxdiff, psnr.
 *
 * As minimp3_test.c does, only the samples both have are compared (some of its reference files
 * are a frame or two shorter than the stream), and the squared error is divided by all the
 * samples decoded.
 *
 * Built with cc (and sanitizers) by the test; not part of any firmware build.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mp3mono.c"

static uint8_t *load(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc((size_t)n + 1);
	if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		data = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return data;
}

static int16_t ref16(const uint8_t *ref, size_t i)
{
	return (int16_t)(ref[2 * i] | (ref[2 * i + 1] << 8));
}

static double psnr(double sum, size_t n)
{
	double mse = n ? sum / (double)n : 0;
	return mse == 0 ? 99.0 : 10.0 * log10((32767.0 * 32767.0) / mse);
}

/* minimp3_test.c's loop, on the whole file. */
static void stream(mp3mono *m, const uint8_t *bit, size_t size, const uint8_t *ref, size_t refSamples)
{
	mp3dec_frame_info_t info;
	size_t at = 0, total = 0, perChannel = 0, i;
	int samples, channels = 0, hz = 0, maxdiff = 0;
	double sum = 0;
	mp3mono_init(m);
	do {
		memset(&info, 0, sizeof(info));
		samples = mp3dec_decode_frame(&m->dec, bit + at, (int)(size - at), m->pcm, &info);
		if (samples) {
			size_t n = (size_t)samples * (size_t)info.channels;
			channels = info.channels;
			hz = info.hz;
			for (i = 0; i < n && total + i < refSamples; i++) {
				int d = abs(m->pcm[i] - ref16(ref, total + i));
				if (d > maxdiff)
					maxdiff = d;
				sum += (double)d * d;
			}
			total += n;
			perChannel += (size_t)samples;
		}
		at += (size_t)info.frame_bytes;
	} while (info.frame_bytes && at < size);
	printf("\"stream\":{\"samples\":%zu,\"perChannel\":%zu,\"channels\":%d,\"hz\":%d,\"maxdiff\":%d,\"psnr\":%.2f}", total, perChannel, channels, hz, maxdiff, psnr(sum, total));
}

/* src/music/formats.ts: id3Skip, then parseMp3's first of three chained frames. */
static size_t first_frame(const uint8_t *bit, size_t size)
{
	size_t start = 0, i;
	if (size >= 10 && bit[0] == 'I' && bit[1] == 'D' && bit[2] == '3')
		start = 10 + (((size_t)(bit[6] & 0x7f) << 21) | ((size_t)(bit[7] & 0x7f) << 14) | ((size_t)(bit[8] & 0x7f) << 7) | (bit[9] & 0x7f)) + ((bit[5] & 0x10) ? 10 : 0);
	for (i = start; i < size && i < start + 4096; i++) {
		size_t f = mp3mono_frame_length(bit + i, size - i), g;
		if (!f)
			continue;
		if (i + f >= size)
			return i;
		g = mp3mono_frame_length(bit + i + f, size - i - f);
		if (g && (i + f + g >= size || mp3mono_frame_length(bit + i + f + g, size - i - f - g)))
			return i;
	}
	return size;
}

static void frames(mp3mono *m, const uint8_t *bit, size_t size, const uint8_t *ref, size_t refSamples)
{
	int16_t out[MP3MONO_FRAME_SAMPLES];
	uint8_t input[2304 + 8];
	size_t at = first_frame(bit, size), total = 0, count = 0, refAt = 0, i;
	int refused = 0, silent = 0, maxdiff = 0;
	double sum = 0;
	mp3mono_init(m);
	for (;;) {
		size_t f = mp3mono_frame_length(bit + at, size - at);
		int got, channels;
		if (!f || at + f > size || f > 2304)
			break;
		channels = (bit[at + 3] & 0xC0) == 0xC0 ? 1 : 2; /* the reference interleaves each frame's channels */
		/* the frame and 8 guard bytes: what follows, or zeros past the end (the player's frameInput) */
		memset(input, 0, sizeof(input));
		memcpy(input, bit + at, size - at < f + 8 ? size - at : f + 8);
		got = mp3mono_frame(m, input, f + 8, out, MP3MONO_FRAME_SAMPLES);
		count++;
		if (got < 0)
			refused++;
		else if (got == 0)
			silent++;
		for (i = 0; got > 0 && i < (size_t)got && refAt + (i + 1) * (size_t)channels <= refSamples; i++) {
			size_t k = refAt + i * (size_t)channels;
			int expect = channels == 2 ? (ref16(ref, k) + ref16(ref, k + 1)) >> 1 : ref16(ref, k);
			int d = abs(out[i] - expect);
			if (d > maxdiff)
				maxdiff = d;
			sum += (double)d * d;
		}
		/* a frame that decodes to nothing (its bit reservoir lies before the stream) is not in the
		 * reference either, which is minimp3's own output: the player plays it as silence */
		if (got > 0) {
			total += (size_t)got;
			refAt += (size_t)got * (size_t)channels;
		}
		at += f;
	}
	printf("\"frames\":{\"frames\":%zu,\"refused\":%d,\"silent\":%d,\"samples\":%zu,\"maxdiff\":%d,\"psnr\":%.2f}", count, refused, silent, total, maxdiff, psnr(sum, total));
}

int main(int argc, char **argv)
{
	mp3mono *m = malloc(mp3mono_size());
	int a;
	if (!m)
		return 2;
	for (a = 1; a < argc; a++) {
		char refPath[4096];
		size_t size = 0, refSize = 0, n = strlen(argv[a]);
		uint8_t *bit = load(argv[a], &size), *ref;
		if (!bit || n < 4 || n >= sizeof(refPath)) {
			fprintf(stderr, "cannot read %s\n", argv[a]);
			return 2;
		}
		memcpy(refPath, argv[a], n - 4);
		strcpy(refPath + n - 4, ".pcm");
		ref = load(refPath, &refSize);
		printf("{\"name\":\"%s\",\"ref\":%s,\"refSamples\":%zu,", argv[a], ref ? "true" : "false", refSize / 2);
		stream(m, bit, size, ref, ref ? refSize / 2 : 0);
		printf(",");
		frames(m, bit, size, ref, ref ? refSize / 2 : 0);
		printf("}\n");
		free(bit);
		free(ref);
	}
	free(m);
	return 0;
}
