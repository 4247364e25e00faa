// The simulator firmware's entry point: the firmware of src/ on the
// simulator's HAL. This file is what tools/build.mjs bundles for XS.

import { boot } from '../../../src/main.ts';
import { createSimHal } from './index.ts';

boot(createSimHal());
