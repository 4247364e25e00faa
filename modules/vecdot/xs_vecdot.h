/*
 * XS bindings of vecdot (see vecdot.h and docs/sim-protocol.md, "The
 * __native global"):
 *
 *   vecdotDot(a: Int8Array, b: Int8Array): number
 *   vecdotTopk(matrix: Int8Array, rows, dims, norms: Float32Array,
 *              query: Int8Array, qnorm: number, k,
 *              outIdx: Int32Array, outScore: Float32Array): number
 *
 * The int8 arguments may be any byte view (Int8Array, Uint8Array, DataView)
 * or an ArrayBuffer; norms/outIdx/outScore must be 4-byte typed arrays. No
 * data is copied. Bad sizes throw RangeError, bad types TypeError.
 *
 * The simulator runtime calls xs_vecdot_install(the) once, inside a host
 * block, after it has created the global object __native. A Moddable device
 * build binds the same functions directly:
 *   function vecdotDot(a, b) @ "xs_vecdot_dot";
 */
#ifndef XS_VECDOT_H
#define XS_VECDOT_H

#include "xs.h"

#ifdef __cplusplus
extern "C" {
#endif

void xs_vecdot_dot(xsMachine *the);
void xs_vecdot_topk(xsMachine *the);
void xs_vecdot_install(xsMachine *the);

#ifdef __cplusplus
}
#endif

#endif /* XS_VECDOT_H */
