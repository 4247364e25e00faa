// The hot loops, chosen once at boot: the host's native C when it has it,
// else the TypeScript fallbacks with the same results bit for bit.

import type { Hal } from '../hal/index.ts';
import { sha256Fallback, type Sha256Api } from '../../modules/sha256/sha256.ts';
import { vecdotFallback, type VecdotApi } from '../../modules/vecdot/vecdot.ts';
import { lexicalFallback, type LexicalApi } from '../../modules/lexical/lexical.ts';
import { p256Fallback, type P256Api } from '../../modules/p256/p256.ts';

export interface Hotspots {
  vecdot: VecdotApi;
  lexical: LexicalApi;
  sha256: Sha256Api;
  p256: P256Api;
}

export function chooseHotspots(hal: Hal): Hotspots {
  return {
    vecdot: hal.natives.vecdot ?? vecdotFallback,
    lexical: hal.natives.lexical ?? lexicalFallback,
    sha256: hal.natives.sha256 ?? sha256Fallback,
    p256: hal.natives.p256 ?? p256Fallback,
  };
}

export function describeHotspots(h: Hotspots): string {
  return `vecdot ${h.vecdot.native ? 'C' : 'TS'}, lexical ${h.lexical.native ? 'C' : 'TS'}, sha256 ${h.sha256.native ? 'C' : 'TS'}, p256 ${h.p256.native ? 'C' : 'TS'}`;
}
