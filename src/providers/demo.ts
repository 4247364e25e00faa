// The offline demo: an OpenAI-compatible endpoint served by the firmware's
// own provider emulator (tools/provider-emulator.mjs), which `npm start`
// runs next to the simulator and routes demo.emulator.test to. Test builds
// use it as the assistant's provider while no provider is keyed, so a fresh
// simulator answers (and calls device tools) without any key. Release
// builds never use it: nothing answers at this name outside the simulator.

import type { CustomEndpoint } from './custom.ts';

export const DEMO_BASE = 'https://demo.emulator.test';
export const DEMO_MODEL = 'demo';
export const DEMO_LABEL = 'offline demo';

/** The demo as a custom endpoint that may run tool loops (wire.round's endpoint argument). */
export const DEMO_ENDPOINT: CustomEndpoint = { base: DEMO_BASE, style: 'chat', model: DEMO_MODEL, loops: true };
