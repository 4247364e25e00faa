/*
 * XS bindings of the Moddable SDK's MP3 decoder (libmad, $(MODDABLE)/modules/data/mp3/libmad)
 * for the simulator runtime, so the simulator decodes MP3 with the very C the device links
 * (the SDK's mp3/decode module). The frame-to-PCM step is the one of the SDK's glue
 * (modules/data/mp3/mp3.c, xs_mp3_decode and its output callback): mono out, a stereo frame
 * mixed down as (L + R) >> 1, so both sides give the same samples for the same frames.
 *
 *   __native.mp3Open()                      a decoder (a host object; freed when collected
 *                                           or by mp3Close)
 *   __native.mp3Decode(dec, input, out)     decodes the frame at the start of input (whose
 *                                           length includes MAD_BUFFER_GUARD, 8 bytes after
 *                                           the frame, as the SDK asks) into out (an
 *                                           Int16Array of at least 1152); returns the samples
 *                                           written, or -1 when no frame could be decoded
 *   __native.mp3Close(dec)
 *
 * Built only when the SDK's libmad is there (the Makefile defines DESK_HAVE_MAD); without it
 * natives.c's weak default installs nothing and the simulator says it cannot decode MP3.
 * libmad is GPL (docs/decisions.md, "MP3 on the device and in the simulator").
 */
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include "xs.h"

#ifdef DESK_HAVE_MAD

#include "config.h"
#include "mad.h"

#define XS_MP3_MAGIC 0x4d503344u /* "MP3D" */
#define XS_MP3_SAMPLES_PER_FRAME 1152

typedef struct {
	uint32_t magic;
	struct mad_stream stream;
	struct mad_frame frame;
	struct mad_synth synth;
	int16_t *out;
	int32_t position; /* samples written into out */
	int32_t capacity; /* samples out holds */
} xs_mp3_state;

static void xs_mp3_free(xs_mp3_state *mp3)
{
	if (!mp3)
		return;
	mad_synth_finish(&mp3->synth);
	mad_frame_finish(&mp3->frame);
	mad_stream_finish(&mp3->stream);
	mp3->magic = 0;
	free(mp3);
}

static void xs_mp3_destructor(void *data)
{
	xs_mp3_free(data);
}

static xs_mp3_state *xs_mp3_get(xsMachine *the)
{
	xs_mp3_state *mp3 = xsGetHostData(xsArg(0));
	if (!mp3 || mp3->magic != XS_MP3_MAGIC)
		xsTypeError("mp3: not an open decoder");
	return mp3;
}

/* The SDK's output callback (mp3.c), with a bound check the SDK leaves to its 1152-sample minimum. */
static enum mad_flow xs_mp3_output(void *s, struct mad_header const *header, struct mad_pcm *pcm)
{
	xs_mp3_state *mp3 = s;
	int count = pcm->length;
	if (mp3->position + count > mp3->capacity)
		return MAD_FLOW_BREAK;
	if (MAD_MODE_SINGLE_CHANNEL == header->mode)
		memcpy(mp3->out + mp3->position, pcm->samples[0], count * 2);
	else {
		int16_t *left = (int16_t *)pcm->samples[0];
		int16_t *right = (int16_t *)pcm->samples[1];
		int16_t *out = mp3->out + mp3->position;
		while (count--)
			*out++ = (*left++ + *right++) >> 1;
	}
	mp3->position += pcm->length;
	return MAD_FLOW_CONTINUE;
}

static void xs_mp3_open(xsMachine *the)
{
	xs_mp3_state *mp3 = calloc(1, sizeof(xs_mp3_state));
	if (!mp3)
		xsUnknownError("mp3: no memory");
	mp3->magic = XS_MP3_MAGIC;
	mad_stream_init(&mp3->stream);
	mad_frame_init(&mp3->frame);
	mad_synth_init(&mp3->synth);
	xsResult = xsNewHostObject(xs_mp3_destructor);
	xsSetHostData(xsResult, mp3);
}

static void xs_mp3_close(xsMachine *the)
{
	xs_mp3_state *mp3 = xs_mp3_get(the);
	xs_mp3_free(mp3);
	xsSetHostData(xsArg(0), NULL);
}

static void xs_mp3_decode(xsMachine *the)
{
	xs_mp3_state *mp3;
	void *input;
	void *output;
	xsIntegerValue inputLength, outputLength, inputOffset, outputOffset;
	enum mad_flow result;
	if (xsToInteger(xsArgc) < 3)
		xsTypeError("mp3Decode(decoder, input, output)");
	mp3 = xs_mp3_get(the);
	/* typed arrays: their buffer, offset and length (bytes) */
	inputOffset = xsToInteger(xsGet(xsArg(1), xsID("byteOffset")));
	inputLength = xsToInteger(xsGet(xsArg(1), xsID("byteLength")));
	outputOffset = xsToInteger(xsGet(xsArg(2), xsID("byteOffset")));
	outputLength = xsToInteger(xsGet(xsArg(2), xsID("byteLength")));
	if ((outputLength / 2) < XS_MP3_SAMPLES_PER_FRAME)
		xsRangeError("mp3: output too small");
	/* no allocation from here on: the buffers stay where they are */
	input = (uint8_t *)xsToArrayBuffer(xsGet(xsArg(1), xsID("buffer"))) + inputOffset;
	output = (uint8_t *)xsToArrayBuffer(xsGet(xsArg(2), xsID("buffer"))) + outputOffset;
	mp3->out = output;
	mp3->capacity = outputLength / 2;
	mp3->position = 0;
	mad_stream_buffer(&mp3->stream, input, inputLength); /* the length includes MAD_BUFFER_GUARD */
	mad_frame_decode(&mp3->frame, &mp3->stream);
	result = mad_synth_frame(&mp3->synth, &mp3->frame, xs_mp3_output, mp3);
	mp3->out = NULL;
	if (MAD_FLOW_BREAK == result)
		xsUnknownError("mp3: break");
	if (!mp3->stream.this_frame || !mp3->stream.next_frame || mp3->stream.next_frame == mp3->stream.this_frame)
		xsResult = xsInteger(-1);
	else
		xsResult = xsInteger(mp3->position);
}

static void xs_mp3_define(xsMachine *the, xsSlot *target, const char *name, xsCallback callback, xsIntegerValue length)
{
	xsIdentifier id = xsID(name);
	fxNewHostFunction(the, callback, length, id, XS_NO_ID);
	fxPush(*target);
	fxSetID(the, id);
	the->stack++;
}

void xs_mp3_install(xsMachine *the)
{
	xsSlot *native;
	fxPush(xsGlobal);
	fxGetID(the, xsID("__native"));
	native = the->stack;
	xs_mp3_define(the, native, "mp3Open", xs_mp3_open, 0);
	xs_mp3_define(the, native, "mp3Decode", xs_mp3_decode, 3);
	xs_mp3_define(the, native, "mp3Close", xs_mp3_close, 1);
	the->stack++;
}

#else
/* No libmad here (the simulator runs @agoric/xsnap's XS, without the SDK): natives.c's weak
 * xs_mp3_install stands in, and the simulator reports that it cannot decode MP3. */
typedef int xs_mp3_unavailable;
#endif
