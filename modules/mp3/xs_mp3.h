/*
 * XS bindings of the MP3 frame decoder (see xs_mp3.c and docs/sim-protocol.md,
 * "The __native global"). The simulator runtime calls xs_mp3_install(the) once,
 * inside a host block, after it has created the global object __native; the
 * device build binds the same functions by name (hosts/esp32/native/desk-native.js):
 *   function mp3Decode(decoder, input, output) @ "xs_mp3_decode";
 */
#ifndef XS_MP3_H
#define XS_MP3_H

#include "xs.h"

#ifdef __cplusplus
extern "C" {
#endif

void xs_mp3_open(xsMachine *the);
void xs_mp3_decode(xsMachine *the);
void xs_mp3_close(xsMachine *the);
void xs_mp3_install(xsMachine *the);

#ifdef __cplusplus
}
#endif

#endif /* XS_MP3_H */
