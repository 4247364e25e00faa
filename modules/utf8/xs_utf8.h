/*
 * XS bindings of utf8 (see utf8.h and docs/sim-protocol.md, "The __native
 * global"):
 *
 *   utf8Encode(s: string): ArrayBuffer        well-formed UTF-8 of s
 *   utf8Decode(bytes: ArrayBuffer | ArrayBufferView, start?, end?): string
 *   utf8Length(s: string): number             bytes utf8Encode(s) takes
 *
 * utf8Encode and utf8Length convert a non-string argument with ToString.
 * bytes may be an ArrayBuffer, a byte typed array (Uint8Array, Int8Array,
 * Uint8ClampedArray) or a DataView, read in place (a view: its own bytes
 * only); other typed arrays throw TypeError. start and end index those
 * bytes: truncated to integers and clamped to [0, length], undefined for 0
 * and length, end below start gives "" (as src/util/utf8.ts decode does).
 *
 * The simulator runtime calls xs_utf8_install(the) once, inside a host
 * block, after it has created the global object __native. A Moddable device
 * build binds the same functions directly:
 *   function utf8Decode(bytes, start, end) @ "xs_utf8_decode";
 */
#ifndef XS_UTF8_H
#define XS_UTF8_H

#include "xs.h"

#ifdef __cplusplus
extern "C" {
#endif

void xs_utf8_encode(xsMachine *the);
void xs_utf8_decode(xsMachine *the);
void xs_utf8_length(xsMachine *the);
void xs_utf8_install(xsMachine *the);

#ifdef __cplusplus
}
#endif

#endif /* XS_UTF8_H */
