// Picks the native hotspots the runtime linked in (__native), if any.

import type { Natives } from '../../../src/hal/index.ts';

export function createNatives(): Natives {
  if (typeof __native === 'undefined') return {};
  return {};
}
