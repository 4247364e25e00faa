/*
 * XS bindings of the MP3 frame decoder (mp3mono.c over minimp3, CC0 1.0), the same C on the
 * device (bound by hosts/esp32/native/desk-native.js) and in the simulator (installed on
 * __native by xs_mp3_install, on both of its XS engines):
 *
 *   mp3Open()                      a decoder (a host object; freed by mp3Close or when collected)
 *   mp3Decode(dec, input, out)     decodes the frame at the start of input (a byte view: the
 *                                  whole frame, then guard bytes that are ignored) into out (an
 *                                  Int16Array of at least 1152); returns the samples written
 *                                  (mono: a stereo frame as (L + R) >> 1), 0 when the frame
 *                                  decodes to nothing, -1 when input starts with no whole
 *                                  Layer III frame
 *   mp3Close(dec)
 *
 * A decoder takes about 28 KB (mp3mono_size()), from malloc: PSRAM on the device.
 */
#include <stdint.h>
#include <stdlib.h>
#include "xsmc.h"
#include "xs_mp3.h"
#include "mp3mono.h"

#define XS_MP3_MAGIC 0x4d503344u /* "MP3D" */

typedef struct {
	uint32_t magic;
	mp3mono *decoder;
} xs_mp3_state;

static void xs_mp3_free(xs_mp3_state *mp3)
{
	if (!mp3)
		return;
	free(mp3->decoder);
	mp3->magic = 0;
	free(mp3);
}

static void xs_mp3_destructor(void *data)
{
	xs_mp3_free(data);
}

static xs_mp3_state *xs_mp3_get(xsMachine *the)
{
	xs_mp3_state *mp3;
	if (xsmcArgc < 1 || xsmcTypeOf(xsArg(0)) != xsReferenceType)
		xsTypeError("mp3: not a decoder");
	/* XS throws unless it is a host object made by xs_mp3_open (its destructor is ours) */
	mp3 = fxGetHostDataValidate(the, &xsArg(0), (void *)xs_mp3_destructor);
	if (!mp3 || mp3->magic != XS_MP3_MAGIC)
		xsTypeError("mp3: not an open decoder");
	return mp3;
}

void xs_mp3_open(xsMachine *the)
{
	xs_mp3_state *mp3 = calloc(1, sizeof(xs_mp3_state));
	if (mp3)
		mp3->decoder = malloc(mp3mono_size());
	if (!mp3 || !mp3->decoder) {
		free(mp3);
		xsUnknownError("mp3: no memory");
	}
	mp3->magic = XS_MP3_MAGIC;
	mp3mono_init(mp3->decoder);
	xsResult = xsNewHostObject(xs_mp3_destructor);
	xsmcSetHostData(xsResult, mp3);
}

void xs_mp3_close(xsMachine *the)
{
	xs_mp3_state *mp3 = xs_mp3_get(the);
	xs_mp3_free(mp3);
	xsmcSetHostData(xsArg(0), NULL);
}

/* out's bytes: an Int16Array (or any view) read as buffer, byteOffset and byteLength (XS's
 * xsmcGetBuffer takes byte views only), checked against its buffer. */
static int16_t *xs_mp3_samples(xsMachine *the, xsUnsignedValue *count)
{
	void *data;
	xsUnsignedValue size;
	xsIntegerValue offset, length;
	xsmcGet(xsVar(0), xsArg(2), xsID("byteOffset"));
	offset = xsmcToInteger(xsVar(0));
	xsmcGet(xsVar(0), xsArg(2), xsID("byteLength"));
	length = xsmcToInteger(xsVar(0));
	xsmcGet(xsVar(0), xsArg(2), xsID("buffer"));
	xsmcGetBufferWritable(xsVar(0), &data, &size);
	if (offset < 0 || length < 0 || (xsUnsignedValue)offset > size || (xsUnsignedValue)length > size - (xsUnsignedValue)offset)
		xsRangeError("mp3: output out of its buffer");
	if ((uintptr_t)((uint8_t *)data + offset) & 1)
		xsRangeError("mp3: output not 16-bit aligned");
	*count = (xsUnsignedValue)length / 2;
	return (int16_t *)(void *)((uint8_t *)data + offset);
}

void xs_mp3_decode(xsMachine *the)
{
	xs_mp3_state *mp3;
	void *input;
	int16_t *output;
	xsUnsignedValue inputLength, outputCount;
	if (xsmcArgc < 3)
		xsTypeError("mp3Decode(decoder, input, output)");
	mp3 = xs_mp3_get(the);
	xsmcVars(1);
	/* out first: its property reads are the only steps that could run JavaScript; from its
	 * buffer's address on, nothing allocates, so neither buffer moves before the decode */
	output = xs_mp3_samples(the, &outputCount);
	if (outputCount < MP3MONO_FRAME_SAMPLES)
		xsRangeError("mp3: output too small");
	xsmcGetBufferReadable(xsArg(1), &input, &inputLength); /* a byte view or an ArrayBuffer */
	xsmcSetInteger(xsResult, mp3mono_frame(mp3->decoder, input, inputLength, output, outputCount));
}

/* __native[name] = host function, with the stack primitives of xs.h (xsmc.h hides
 * xsGet/xsSet); needs no xsVars and leaves the stack as it was. */
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
