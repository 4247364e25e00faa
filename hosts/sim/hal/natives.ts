// Picks the native hotspots the runtime linked in (__native), if any; the
// firmware falls back to the TypeScript implementations without them.

import type { Natives } from '../../../src/hal/index.ts';
import { hasNativeSha256, sha256Native } from '../../../modules/sha256/sha256.ts';
import { hasNativeEc, p256Native } from '../../../modules/p256/p256.ts';
import { hasNativeVecdot, vecdotNative } from '../../../modules/vecdot/vecdot.ts';
import { hasNativeUtf8, utf8Native } from '../../../modules/utf8/utf8.ts';
import { hasNativeLexical, lexicalNative } from '../../../modules/lexical/lexical.ts';

export function createNatives(): Natives {
  if (typeof __native === 'undefined') return {};
  const natives: Natives = {};
  if (hasNativeVecdot(__native)) natives.vecdot = vecdotNative(__native);
  if (hasNativeLexical(__native)) natives.lexical = lexicalNative(__native);
  if (hasNativeSha256(__native)) natives.sha256 = sha256Native(__native);
  if (hasNativeEc(__native)) natives.p256 = p256Native(__native);
  if (hasNativeUtf8(__native)) natives.utf8 = utf8Native(__native);
  return natives;
}
