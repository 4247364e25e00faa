#!/usr/bin/env node
// `npm start`: builds what is missing or stale, then boots the simulator in
// this process (arguments after `--` go to the board: see README.md).
import { buildAll } from './build.mjs';
import { DEMO_HOST, startProviderEmulator } from './provider-emulator.mjs';

const t0 = Date.now();
await buildAll({ quiet: true });
const built = Date.now() - t0;
if (built > 1500) console.error(`start: build took ${built} ms`);
// The offline demo provider (src/providers/demo.ts): with no provider key set,
// the assistant of a test build talks to this in-process emulator.
const demo = await startProviderEmulator({ names: [DEMO_HOST] });
demo.server.unref();
process.argv.push('--route', `${DEMO_HOST}:443=127.0.0.1:${demo.port}`);
await import('../build/sim/board.mjs');
