/*
 * XS binding of lexical. See xs_lexical.h.
 *
 * Zero copy, as modules/vecdot's binding: typed arrays of 2, 4 and 8-byte
 * elements are resolved through their buffer, byteOffset and byteLength
 * (xsmcGetBufferReadable takes byte views only), every pointer is taken after
 * the last property read, and nothing allocates between then and the end of
 * the C call.
 */
#include <stdint.h>
#include <stddef.h>
#include "xsmc.h"
#include "xs_lexical.h"
#include "lexical.h"

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

typedef struct {
	xsIntegerValue offset;
	xsIntegerValue length; /* elements */
	xsIntegerValue size;   /* bytes per element */
} xs_lexical_view;

enum { POOL, OFF, LEN, DL, MASK, QUERY, SCORES, IDF, OUTIDX, OUTSCORE, VIEWS };

/* The typed array in argument arg, of `size`-byte elements, resolved to its buffer (kept in var). */
static void xs_lexical_resolve(xsMachine *the, int arg, int var, xsIntegerValue size, const char *name,
                               xs_lexical_view *view)
{
	xsIntegerValue offset, bytes;
	xsmcGet(xsVar(var), xsArg(arg), xsID_BYTES_PER_ELEMENT);
	if (xsmcTypeOf(xsVar(var)) == xsUndefinedType || xsmcToInteger(xsVar(var)) != size)
		xsTypeError("%s: expected a typed array of %d-byte elements", name, (int)size);
	xsmcGet(xsVar(var), xsArg(arg), xsID_byteOffset);
	offset = xsmcToInteger(xsVar(var));
	xsmcGet(xsVar(var), xsArg(arg), xsID_byteLength);
	bytes = xsmcToInteger(xsVar(var));
	if (offset < 0 || bytes < 0 || (offset % size) || (bytes % size))
		xsTypeError("%s: bad view", name);
	xsmcGet(xsVar(var), xsArg(arg), xsID_buffer);
	view->offset = offset;
	view->length = bytes / size;
	view->size = size;
}

static void *xs_lexical_pointer(xsMachine *the, int var, int writable, const char *name,
                                const xs_lexical_view *view)
{
	void *data;
	xsUnsignedValue count;
	_xsmcGetBuffer(the, &xsVar(var), &data, &count, writable ? 1 : 0);
	if ((xsUnsignedValue)view->offset > count ||
	    (xsUnsignedValue)view->length > (count - (xsUnsignedValue)view->offset) / (xsUnsignedValue)view->size)
		xsRangeError("%s: view out of its buffer", name);
	data = (uint8_t *)data + view->offset;
	if ((uintptr_t)data % (uintptr_t)view->size)
		xsTypeError("%s: misaligned", name);
	return data;
}

static size_t xs_lexical_count(xsMachine *the, int arg, const char *name)
{
	xsIntegerValue v = xsmcToInteger(xsArg(arg));
	if (v < 0)
		xsRangeError("%s: negative", name);
	return (size_t)v;
}

/* lexicalBm25(pool, off, len, dl, rows, mask, query, nq, k1, b, scores, idf, k, outIdx, outScore) */
void xs_lexical_bm25(xsMachine *the)
{
	static const struct { int arg; xsIntegerValue size; int writable; const char *name; } spec[VIEWS] = {
		{ 0, 4, 0, "pool" }, { 1, 4, 0, "off" }, { 2, 2, 0, "len" }, { 3, 2, 0, "dl" },
		{ 5, 4, 0, "mask" }, { 6, 4, 0, "query" }, { 10, 4, 1, "scores" }, { 11, 8, 1, "idf" },
		{ 13, 4, 1, "outIdx" }, { 14, 4, 1, "outScore" },
	};
	xs_lexical_view v[VIEWS];
	void *p[VIEWS];
	size_t rows, nq, k, r, top = 0;
	double k1, b;
	int i;

	if (xsmcArgc < 15)
		xsTypeError("lexicalBm25(pool, off, len, dl, rows, mask, query, nq, k1, b, scores, idf, k, outIdx, outScore)");
	xsmcVars(VIEWS);
	rows = xs_lexical_count(the, 4, "rows");
	nq = xs_lexical_count(the, 7, "nq");
	k1 = xsmcToNumber(xsArg(8));
	b = xsmcToNumber(xsArg(9));
	k = xs_lexical_count(the, 12, "k");
	for (i = 0; i < VIEWS; i++)
		xs_lexical_resolve(the, spec[i].arg, i, spec[i].size, spec[i].name, &v[i]);

	/* no allocation from here on: the buffer pointers stay valid */
	for (i = 0; i < VIEWS; i++)
		p[i] = xs_lexical_pointer(the, i, spec[i].writable, spec[i].name, &v[i]);
	if ((size_t)v[OFF].length < rows || (size_t)v[LEN].length < rows || (size_t)v[DL].length < rows ||
	    (size_t)v[MASK].length < rows || (size_t)v[SCORES].length < rows)
		xsRangeError("off, len, dl, mask and scores must hold rows entries");
	if ((size_t)v[QUERY].length < nq || (size_t)v[IDF].length < nq)
		xsRangeError("query and idf must hold nq entries");
	if ((size_t)v[OUTIDX].length < k || (size_t)v[OUTSCORE].length < k)
		xsRangeError("outIdx/outScore shorter than k");
	for (r = 0; r < rows; r++) {
		uint32_t o = ((const uint32_t *)p[OFF])[r];
		uint16_t n = ((const uint16_t *)p[LEN])[r];
		if ((size_t)o > (size_t)v[POOL].length || (size_t)n > (size_t)v[POOL].length - (size_t)o)
			xsRangeError("a row's terms lie outside the pool");
	}
	top = lexical_bm25((const uint32_t *)p[POOL], (const uint32_t *)p[OFF], (const uint16_t *)p[LEN],
	                   (const uint16_t *)p[DL], rows, (const float *)p[MASK], (const uint32_t *)p[QUERY],
	                   nq, k1, b, (float *)p[SCORES], (double *)p[IDF], k, (int32_t *)p[OUTIDX],
	                   (float *)p[OUTSCORE]);
	xsmcSetInteger(xsResult, (xsIntegerValue)top);
}

void xs_lexical_install(xsMachine *the)
{
	xsIdentifier id = xsID("lexicalBm25");
	fxNewHostFunction(the, xs_lexical_bm25, 15, id, XS_NO_ID);
	fxPush(xsGlobal);
	fxGetID(the, xsID("__native"));
	fxSetID(the, id);
	the->stack++;
}
