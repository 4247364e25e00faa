// The simulator firmware's entry point: the firmware of src/ on the
// simulator's HAL. This file is what tools/build.mjs bundles for XS.

import { boot } from '../../../src/main.ts';
import { createSimHal } from './index.ts';

// Boot on the first loop turn, once the bundle's top level has finished:
// what is allocated then is code and module-level objects, which a device
// keeps in flash (preloaded). Measured here so heap figures can say so.
// The keys that exist then are the bundle's own names, which a device
// preloads too; the stack's high-water restarts here, as the device's boot
// runs from its main, not inside the bundle's top level.
__sim.setTimer(0, false, () => {
  __sim.gc();
  __sim.resetStackPeak();
  const h = __sim.heap();
  boot(createSimHal(h.now, h.keys));
});
