#!/usr/bin/env node
// `npm start`: builds what is missing or stale, then boots the simulator in
// this process (arguments after `--` go to the board: see README.md).
import { buildAll } from './build.mjs';

const t0 = Date.now();
await buildAll({ quiet: true });
const built = Date.now() - t0;
if (built > 1500) console.error(`start: build took ${built} ms`);
await import('../build/sim/board.mjs');
