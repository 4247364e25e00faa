// Device HAL: the native hotspots. desk-native.js binds the same C functions
// the simulator installs on __native (modules/vecdot, sha256, utf8); they are
// wrapped by the modules' own adapters, so src/ sees the same hal.natives API
// on both hosts.

import * as native from '../native/desk-native.js';
import type { Natives } from '../../../src/hal/index.ts';
import { hasNativeSha256, sha256Native } from '../../../modules/sha256/sha256.ts';
import { hasNativeEc, p256Native } from '../../../modules/p256/p256.ts';
import { hasNativeUtf8, utf8Native } from '../../../modules/utf8/utf8.ts';
import { hasNativeLexical, lexicalNative } from '../../../modules/lexical/lexical.ts';
import { hasNativeVecdot, vecdotNative } from '../../../modules/vecdot/vecdot.ts';

export function createNatives(): Natives {
  const natives: Natives = {};
  if (hasNativeVecdot(native)) natives.vecdot = vecdotNative(native);
  if (hasNativeLexical(native)) natives.lexical = lexicalNative(native);
  if (hasNativeSha256(native)) natives.sha256 = sha256Native(native);
  if (hasNativeEc(native)) natives.p256 = p256Native(native);
  if (hasNativeUtf8(native)) natives.utf8 = utf8Native(native);
  return natives;
}
