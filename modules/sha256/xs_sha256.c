/*
 * XS bindings of sha256. See xs_sha256.h.
 *
 * The context ArrayBuffer holds a magic word followed by a desk_sha256_ctx. Its
 * bytes are copied to an aligned local struct and back on each call (about
 * 120 bytes), so the buffer needs no particular alignment.
 */
#include <stdint.h>
#include <string.h>
#include "xsmc.h"
#include "xs_sha256.h"
#include "sha256.h"

#define XS_SHA256_MAGIC 0x53484132u /* "SHA2" */

typedef struct {
	uint32_t magic;
	desk_sha256_ctx ctx;
} xs_sha256_state;

/* Copies the context out of the ArrayBuffer in argument 0, after checks. */
static void xs_sha256_load(xsMachine *the, xs_sha256_state *st)
{
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferWritable(xsArg(0), &data, &size);
	if (size != sizeof(xs_sha256_state))
		xsTypeError("sha256: not a context");
	memcpy(st, data, sizeof *st);
	if (st->magic != XS_SHA256_MAGIC)
		xsTypeError("sha256: not a context");
}

static void xs_sha256_store(xsMachine *the, const xs_sha256_state *st)
{
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferWritable(xsArg(0), &data, &size);
	memcpy(data, st, sizeof *st);
}

void xs_sha256_init(xsMachine *the)
{
	xs_sha256_state st;
	void *data;
	xsUnsignedValue size;
	memset(&st, 0, sizeof st);
	st.magic = XS_SHA256_MAGIC;
	desk_sha256_init(&st.ctx);
	xsmcSetArrayBuffer(xsResult, NULL, sizeof st);
	xsmcGetBufferWritable(xsResult, &data, &size);
	memcpy(data, &st, sizeof st);
}

void xs_sha256_update(xsMachine *the)
{
	xs_sha256_state st;
	void *bytes;
	xsUnsignedValue count;
	if (xsmcArgc < 2)
		xsTypeError("sha256Update(ctx, bytes)");
	xs_sha256_load(the, &st);
	/* no allocation between taking the pointer and using it */
	xsmcGetBufferReadable(xsArg(1), &bytes, &count);
	desk_sha256_update(&st.ctx, bytes, count);
	xs_sha256_store(the, &st);
}

void xs_sha256_final(xsMachine *the)
{
	xs_sha256_state st;
	uint8_t digest[SHA256_DIGEST_SIZE];
	if (xsmcArgc < 1)
		xsTypeError("sha256Final(ctx)");
	xs_sha256_load(the, &st);
	desk_sha256_final(&st.ctx, digest); /* also resets the context */
	xs_sha256_store(the, &st);
	xsmcSetArrayBuffer(xsResult, digest, SHA256_DIGEST_SIZE);
}

/* __native[name] = host function, with the stack primitives of xs.h (xsmc.h
 * hides xsGet/xsSet); needs no xsVars and leaves the stack as it was. */
static void xs_sha256_define(xsMachine *the, xsSlot *target, const char *name,
                             xsCallback callback, xsIntegerValue length)
{
	xsIdentifier id = xsID(name);
	fxNewHostFunction(the, callback, length, id, XS_NO_ID);
	fxPush(*target);
	fxSetID(the, id);
	the->stack++;
}

void xs_sha256_install(xsMachine *the)
{
	xsSlot *native;
	fxPush(xsGlobal);
	fxGetID(the, xsID("__native"));
	native = the->stack;
	xs_sha256_define(the, native, "sha256Init", xs_sha256_init, 0);
	xs_sha256_define(the, native, "sha256Update", xs_sha256_update, 2);
	xs_sha256_define(the, native, "sha256Final", xs_sha256_final, 1);
	the->stack++;
}
