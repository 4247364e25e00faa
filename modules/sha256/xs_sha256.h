/*
 * XS bindings of sha256 (see sha256.h and docs/sim-protocol.md, "The
 * __native global"):
 *
 *   sha256Init(): ArrayBuffer              a fresh context
 *   sha256Update(ctx: ArrayBuffer, bytes)  bytes: ArrayBuffer or byte view
 *   sha256Final(ctx: ArrayBuffer): ArrayBuffer   32 bytes; ctx is reset
 *
 * The context is a plain ArrayBuffer (no finalizer, collected with it);
 * its size and a magic word are checked on every call (TypeError). The
 * input is read in place, without a copy.
 *
 * The simulator runtime calls xs_sha256_install(the) once, inside a host
 * block, after it has created the global object __native. A Moddable device
 * build binds the same functions directly:
 *   function sha256Update(ctx, bytes) @ "xs_sha256_update";
 */
#ifndef XS_SHA256_H
#define XS_SHA256_H

#include "xs.h"

#ifdef __cplusplus
extern "C" {
#endif

void xs_sha256_init(xsMachine *the);
void xs_sha256_update(xsMachine *the);
void xs_sha256_final(xsMachine *the);
void xs_sha256_install(xsMachine *the);

#ifdef __cplusplus
}
#endif

#endif /* XS_SHA256_H */
