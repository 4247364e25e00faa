// Fuzzing ON XS (issue 26): test/fuzz/run.xs.ts is bundled with fast-check
// and the parsers (as the firmware is, for XS) and run on the simulator's XS
// engine, build/sim/xsim: every property of test/fuzz/properties.ts for its
// fixed budget of cases, then every kept failing case of
// test/fuzz/regressions.json. A failure prints the property, its seed, the
// shrunk case and the line to add to regressions.json once the bug is fixed.
//
// The seed is fixed (26), so the suite is repeatable; to look further,
// FUZZ_SEED=<n> (or random) and FUZZ_SCALE=<times the budget> change it, and
// FUZZ_ONLY=<name prefix> runs one property.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XS_TARGET } from '../../tools/build.mjs';
import { PROPERTIES } from '../fuzz/properties.ts';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const XSIM = join(ROOT, 'build/sim/xsim');

interface Line {
  kind: 'property' | 'regression' | 'end' | 'fatal';
  name?: string;
  property?: string;
  runs?: number;
  failed?: boolean;
  seed?: number;
  path?: string;
  counterexample?: unknown;
  error?: string | null;
  found?: string;
  ms?: number;
}

const seedArg = process.env['FUZZ_SEED'] === 'random' ? String(Math.floor(Math.random() * 2 ** 31)) : (process.env['FUZZ_SEED'] ?? '26');
const scale = process.env['FUZZ_SCALE'] ?? '1';
const only = process.env['FUZZ_ONLY'] ?? '';
let lines: Line[] = [];
let tmp = '';

beforeAll(async () => {
  const result = await build({
    entryPoints: [join(ROOT, 'test/fuzz/run.xs.ts')],
    bundle: true,
    format: 'iife',
    ...XS_TARGET,
    // fast-check reads these at load for its async timeouts (never used here); the standalone XS has no timers.
    banner: { js: 'globalThis.setTimeout??=function(){return 0};globalThis.clearTimeout??=function(){};' },
    write: false,
    logLevel: 'silent',
  });
  tmp = mkdtempSync(join(tmpdir(), 'fuzz-'));
  const script = join(tmp, 'fuzz.js');
  writeFileSync(script, result.outputFiles[0]!.text);
  const stdout = execFileSync(XSIM, ['--heap-max', '256m', '--standalone', script, seedArg, scale, only], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  lines = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}, 660_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!existsSync(XSIM))(`fuzzing the parsers on XS (seed ${seedArg}, budget x${scale})`, () => {
  it('ran to the end on XS', () => {
    expect(lines.filter((l) => l.kind === 'fatal')).toEqual([]);
    expect(lines[lines.length - 1]?.kind).toBe('end');
  });

  for (const p of PROPERTIES) {
    it.skipIf(only !== '' && !p.name.startsWith(only))(p.name, () => {
      const out = lines.find((l) => l.kind === 'property' && l.name === p.name);
      expect(out, 'no result on XS').toBeTruthy();
      if (out!.failed) {
        const keep = { property: p.name, seed: out!.seed, path: out!.path, input: out!.counterexample, found: '<what the failure was; the fix>' };
        expect.fail(`${out!.error}\nseed ${out!.seed} path ${out!.path}\ncase ${JSON.stringify(out!.counterexample)}\nonce fixed, keep it in test/fuzz/regressions.json:\n${JSON.stringify(keep)}`);
      }
      expect(out!.runs).toBe(Math.max(1, Math.round(p.runs * Number(scale))));
    });
  }

  it('every kept failing case still passes', () => {
    const kept = lines.filter((l) => l.kind === 'regression');
    expect(kept.filter((l) => l.error !== null).map((l) => `${l.property}: ${l.error} (${l.found})`)).toEqual([]);
  });
});
