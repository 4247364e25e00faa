/*
 * XS bindings of vecdot. See xs_vecdot.h.
 *
 * Zero copy: the pointers come from xsmcGetBufferReadable/Writable. XS
 * accepts byte views there (element size 1) but rejects Float32Array and
 * Int32Array, so 4-byte arrays are resolved through their buffer, byteOffset
 * and byteLength, and checked against the buffer's length. Buffer memory can
 * move when XS allocates, so every pointer is taken after the last property
 * read, and nothing allocates between then and the end of the C call.
 */
#include <stdint.h>
#include <stddef.h>
#include "xsmc.h"
#include "xs_vecdot.h"
#include "vecdot.h"

/* Moddable builds define xsID_* constants; elsewhere look the names up. */
#ifndef xsID_buffer
#define xsID_buffer xsID("buffer")
#endif
#ifndef xsID_byteOffset
#define xsID_byteOffset xsID("byteOffset")
#endif
#ifndef xsID_byteLength
#define xsID_byteLength xsID("byteLength")
#endif
#ifndef xsID_BYTES_PER_ELEMENT
#define xsID_BYTES_PER_ELEMENT xsID("BYTES_PER_ELEMENT")
#endif

/* A 4-byte typed array resolved to its ArrayBuffer (kept in a var so that
 * it stays alive) and its byte range; the pointer is taken later. */
typedef struct {
	xsIntegerValue offset;
	xsIntegerValue length; /* elements */
} xs_vecdot_view;

static void xs_vecdot_resolve4(xsMachine *the, int arg, int var, const char *name,
                               xs_vecdot_view *view)
{
	xsIntegerValue offset, bytes;
	xsmcGet(xsVar(var), xsArg(arg), xsID_BYTES_PER_ELEMENT);
	if (xsmcTypeOf(xsVar(var)) == xsUndefinedType || xsmcToInteger(xsVar(var)) != 4)
		xsTypeError("%s: expected a Float32Array or Int32Array", name);
	xsmcGet(xsVar(var), xsArg(arg), xsID_byteOffset);
	offset = xsmcToInteger(xsVar(var));
	xsmcGet(xsVar(var), xsArg(arg), xsID_byteLength);
	bytes = xsmcToInteger(xsVar(var));
	if (offset < 0 || bytes < 0 || (offset & 3) || (bytes & 3))
		xsTypeError("%s: bad view", name);
	xsmcGet(xsVar(var), xsArg(arg), xsID_buffer);
	view->offset = offset;
	view->length = bytes / 4;
}

/* The pointer of a resolved view; checks the range against the buffer. */
static void *xs_vecdot_pointer(xsMachine *the, int var, int writable, const char *name,
                               const xs_vecdot_view *view)
{
	void *data;
	xsUnsignedValue count;
	_xsmcGetBuffer(the, &xsVar(var), &data, &count, writable ? 1 : 0);
	if ((xsUnsignedValue)view->offset > count ||
	    (xsUnsignedValue)view->length > (count - (xsUnsignedValue)view->offset) / 4)
		xsRangeError("%s: view out of its buffer", name);
	data = (uint8_t *)data + view->offset;
	if ((uintptr_t)data & 3)
		xsTypeError("%s: misaligned", name);
	return data;
}

static size_t xs_vecdot_count(xsMachine *the, int arg, const char *name)
{
	xsIntegerValue v = xsmcToInteger(xsArg(arg));
	if (v < 0)
		xsRangeError("%s: negative", name);
	return (size_t)v;
}

void xs_vecdot_dot(xsMachine *the)
{
	void *a, *b;
	xsUnsignedValue na, nb;
	if (xsmcArgc < 2)
		xsTypeError("vecdotDot(a, b)");
	xsmcGetBufferReadable(xsArg(0), &a, &na);
	xsmcGetBufferReadable(xsArg(1), &b, &nb);
	xsmcSetInteger(xsResult, vecdot_dot((const int8_t *)a, (const int8_t *)b,
	                                    na < nb ? na : nb));
}

void xs_vecdot_topk(xsMachine *the)
{
	xs_vecdot_view norms, outIdx, outScore;
	size_t rows, dims, k;
	double qnorm;
	void *matrix, *query, *pn, *pi, *ps;
	xsUnsignedValue nm, nq;

	if (xsmcArgc < 9)
		xsTypeError("vecdotTopk(matrix, rows, dims, norms, query, qnorm, k, outIdx, outScore)");
	xsmcVars(3);
	rows = xs_vecdot_count(the, 1, "rows");
	dims = xs_vecdot_count(the, 2, "dims");
	qnorm = xsmcToNumber(xsArg(5));
	k = xs_vecdot_count(the, 6, "k");
	xs_vecdot_resolve4(the, 3, 0, "norms", &norms);
	xs_vecdot_resolve4(the, 7, 1, "outIdx", &outIdx);
	xs_vecdot_resolve4(the, 8, 2, "outScore", &outScore);

	/* no allocation from here on: the buffer pointers stay valid */
	xsmcGetBufferReadable(xsArg(0), &matrix, &nm);
	xsmcGetBufferReadable(xsArg(4), &query, &nq);
	pn = xs_vecdot_pointer(the, 0, 0, "norms", &norms);
	pi = xs_vecdot_pointer(the, 1, 1, "outIdx", &outIdx);
	ps = xs_vecdot_pointer(the, 2, 1, "outScore", &outScore);

	if (dims != 0 && rows > (size_t)nm / dims)
		xsRangeError("matrix shorter than rows * dims");
	if ((size_t)norms.length < rows)
		xsRangeError("norms shorter than rows");
	if ((size_t)nq < dims)
		xsRangeError("query shorter than dims");
	if ((size_t)outIdx.length < k || (size_t)outScore.length < k)
		xsRangeError("outIdx/outScore shorter than k");

	xsmcSetInteger(xsResult, (xsIntegerValue)vecdot_topk(
		(const int8_t *)matrix, rows, dims, (const float *)pn, (const int8_t *)query,
		qnorm, k, (int32_t *)pi, (float *)ps));
}

/* __native[name] = host function. Written with the stack primitives of xs.h
 * (xsmc.h hides xsGet/xsSet), so it needs no xsVars and works in any host
 * block. Leaves the stack as it found it. */
static void xs_vecdot_define(xsMachine *the, xsSlot *target, const char *name,
                             xsCallback callback, xsIntegerValue length)
{
	xsIdentifier id = xsID(name);
	fxNewHostFunction(the, callback, length, id, XS_NO_ID); /* pushes the function */
	fxPush(*target);
	fxSetID(the, id); /* pops the target, leaves the value */
	the->stack++;
}

void xs_vecdot_install(xsMachine *the)
{
	xsSlot *native;
	fxPush(xsGlobal);
	fxGetID(the, xsID("__native")); /* replaces the global by __native */
	native = the->stack;
	xs_vecdot_define(the, native, "vecdotDot", xs_vecdot_dot, 2);
	xs_vecdot_define(the, native, "vecdotTopk", xs_vecdot_topk, 9);
	the->stack++;
}
