// Where the board finds its companions: the repository root (partitions.csv),
// the runtime binary (build/sim/xsim) and the pty helper (build/sim/simpty).
// Works from the bundle (build/sim/board.mjs) and from the sources.

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

export function repoRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'partitions.csv')) && existsSync(join(dir, 'package.json'))) return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the repository root (partitions.csv) above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

export function defaultRuntimePath(): string {
  return process.env['SIM_XSIM'] ? resolve(process.env['SIM_XSIM']) : join(repoRoot(), 'build/sim/xsim');
}

export function defaultPtyHelperPath(): string {
  return process.env['SIM_SIMPTY'] ? resolve(process.env['SIM_SIMPTY']) : join(repoRoot(), 'build/sim/simpty');
}
