/*
 * XS bindings of utf8. See xs_utf8.h.
 *
 * Each call measures first (clean prefix, then the rest counted), allocates
 * the result once at its exact size, and writes into it. Allocating may
 * collect and compact XS's chunks, which moves strings and ArrayBuffer
 * data, so the input pointer is fetched again after the allocation; nothing
 * between fetching a pointer and using it allocates or runs JavaScript
 * (arguments are converted before any pointer is taken).
 */
#include <stdint.h>
#include <string.h>
#include "xsmc.h"
#include "xs_utf8.h"
#include "utf8.h"

/* XS sizes are int32 and a chunk needs one more byte (the string's NUL). */
#define XS_UTF8_MAX ((size_t)0x7FFFFFF0)

static const uint8_t *xs_utf8_string(xsMachine *the, size_t *n)
{
	const uint8_t *s = (const uint8_t *)xsmcToString(xsArg(0));
	*n = strlen((const char *)s);
	return s;
}

void xs_utf8_encode(xsMachine *the)
{
	const uint8_t *s;
	void *out;
	xsUnsignedValue count;
	size_t n, k, size;
	if (xsmcArgc < 1)
		xsTypeError("utf8Encode(s)");
	s = xs_utf8_string(the, &n);
	k = utf8_clean_prefix(s, n);
	size = k == n ? n : k + utf8_encode_xs(s + k, n - k, NULL);
	xsmcSetArrayBuffer(xsResult, NULL, (xsIntegerValue)size);
	s = (const uint8_t *)xsmcToString(xsArg(0)); /* may have moved */
	xsmcGetBufferWritable(xsResult, &out, &count);
	memcpy(out, s, k);
	if (k < n)
		utf8_encode_xs(s + k, n - k, (uint8_t *)out + k);
}

void xs_utf8_length(xsMachine *the)
{
	const uint8_t *s;
	size_t n, k;
	if (xsmcArgc < 1)
		xsTypeError("utf8Length(s)");
	s = xs_utf8_string(the, &n);
	k = utf8_clean_prefix(s, n);
	if (k < n)
		k += utf8_encode_xs(s + k, n - k, NULL);
	xsmcSetInteger(xsResult, (xsIntegerValue)k);
}

/* Argument argi as a number, or def when it is missing or undefined. */
static double xs_utf8_arg(xsMachine *the, xsIntegerValue argi, double def)
{
	if (xsmcArgc <= argi || xsmcTypeOf(xsArg(argi)) == xsUndefinedType)
		return def;
	return xsmcToNumber(xsArg(argi));
}

/* An index truncated to an integer and clamped to [0, len] (NaN: 0). */
static size_t xs_utf8_clamp(double d, size_t len)
{
	if (!(d > 0))
		return 0;
	if (d >= (double)len)
		return len;
	return (size_t)d;
}

void xs_utf8_decode(xsMachine *the)
{
	void *data;
	xsUnsignedValue count;
	const uint8_t *p;
	double dstart, dend;
	size_t start, end, n, k, size;
	uint8_t *out;
	if (xsmcArgc < 1)
		xsTypeError("utf8Decode(bytes, start, end)");
	/* conversions first: ToNumber may run JavaScript */
	dstart = xs_utf8_arg(the, 1, 0);
	dend = xs_utf8_arg(the, 2, 1e300);
	xsmcGetBufferReadable(xsArg(0), &data, &count);
	start = xs_utf8_clamp(dstart, count);
	end = xs_utf8_clamp(dend, count);
	if (end < start)
		end = start;
	n = end - start;
	p = (const uint8_t *)data + start;
	k = utf8_clean_prefix(p, n);
	size = k == n ? n : k + utf8_decode_xs(p + k, n - k, NULL);
	if (size > XS_UTF8_MAX)
		xsRangeError("utf8Decode: string too long");
	xsmcSetStringBuffer(xsResult, NULL, (xsIntegerValue)size);
	xsmcGetBufferReadable(xsArg(0), &data, &count); /* may have moved */
	p = (const uint8_t *)data + start;
	out = (uint8_t *)xsmcToString(xsResult);
	memcpy(out, p, k);
	if (k < n)
		utf8_decode_xs(p + k, n - k, out + k);
	out[size] = 0;
}

/* __native[name] = host function, with the stack primitives of xs.h (xsmc.h
 * hides xsGet/xsSet); needs no xsVars and leaves the stack as it was. */
static void xs_utf8_define(xsMachine *the, xsSlot *target, const char *name,
                           xsCallback callback, xsIntegerValue length)
{
	xsIdentifier id = xsID(name);
	fxNewHostFunction(the, callback, length, id, XS_NO_ID);
	fxPush(*target);
	fxSetID(the, id);
	the->stack++;
}

void xs_utf8_install(xsMachine *the)
{
	xsSlot *native;
	fxPush(xsGlobal);
	fxGetID(the, xsID("__native"));
	native = the->stack;
	xs_utf8_define(the, native, "utf8Encode", xs_utf8_encode, 1);
	xs_utf8_define(the, native, "utf8Decode", xs_utf8_decode, 3);
	xs_utf8_define(the, native, "utf8Length", xs_utf8_length, 1);
	the->stack++;
}
