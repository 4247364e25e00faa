// The C hotspots (modules/vecdot, modules/lexical, modules/sha256) through the simulator's XS
// runtime: hotspots.xs.ts is bundled with esbuild and run standalone on
// build/sim/xsim; it runs each C function (via __native) and its TypeScript
// fallback on the same inputs ON XS and prints the results, which must be
// identical bit for bit (float32 bit patterns, indices, counts, digests).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRuntime } from '../../tools/build.mjs';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const XSIM = join(ROOT, 'build/sim/xsim');

interface Line {
  kind: string;
  name?: string;
  c?: unknown;
  t?: unknown;
  want?: unknown;
  [key: string]: unknown;
}

let lines: Line[] = [];
let tmp = '';
/** Which XS the runtime was built on: the P-256 hotspot needs the SDK's (its crypt arithmetic). */
let xsTag = '';

beforeAll(async () => {
  // the simulator's runtime on the XS the suite runs on (tools/build.mjs: the SDK's when it is here)
  xsTag = buildRuntime({ quiet: true }).tag;
  const result = await build({
    entryPoints: [join(ROOT, 'test/e2e/hotspots.xs.ts')],
    bundle: true,
    format: 'iife',
    target: 'es2022',
    supported: { 'class-field': false, 'class-static-field': false },
    write: false,
    logLevel: 'silent',
  });
  tmp = mkdtempSync(join(tmpdir(), 'hotspots-'));
  const script = join(tmp, 'hotspots.js');
  writeFileSync(script, result.outputFiles[0]!.text);
  const stdout = execFileSync(XSIM, ['--standalone', script], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  lines = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const of = (kind: string): Line[] => lines.filter((l) => l.kind === kind);

describe('C hotspots on XS (build/sim/xsim)', () => {
  it('ran to the end with __native present', () => {
    expect(of('fatal')).toEqual([]);
    expect(of('done')).toHaveLength(1);
  });

  it('vecdotDot: C equals the fallback (and the exact int32 wrap)', () => {
    const dots = of('dot');
    expect(dots.length).toBeGreaterThan(50);
    for (const d of dots) {
      expect(d.c, d.name).toBe(d.t);
      if (d.want !== undefined) expect(d.c, d.name).toBe(d.want);
    }
  });

  it('vecdotTopk: C equals the fallback bit for bit, edge cases included', () => {
    const cases = of('topk');
    expect(cases.length).toBeGreaterThan(20);
    for (const tc of cases) expect(tc.c, tc.name).toEqual(tc.t);
    const count = (name: string): number =>
      (cases.find((c) => c.name === name)!.c as { count: number }).count;
    expect(count('empty')).toBe(0);
    expect(count('k 0')).toBe(0);
    expect(count('qnorm 0')).toBe(0);
    expect(count('qnorm NaN')).toBe(0);
    expect(count('k > rows')).toBe(7);
    expect(count('k > rows with zero norms')).toBe(6);
    expect(count('6000 x 256 top-5')).toBe(5);
    // all scores equal: the lowest rows win, in order
    const equal = cases.find((c) => c.name === 'all -128 (all equal)')!.c as { idx: number[] };
    expect(equal.idx).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('vecdotTopk: C and the fallback reject the same bad sizes with RangeError', () => {
    const errors = of('error');
    expect(errors.length).toBe(8);
    for (const e of errors) {
      expect(e.c, e.name).toBe(e.t);
      expect(e.c, e.name).toBe(e.name === 'fine' ? 'ok 2' : 'RangeError');
    }
  });

  it('lexicalBm25: C equals the fallback bit for bit (scores, idf, the best rows), and refuses the same bad input', () => {
    expect(of('bm25-missing')).toEqual([]);
    const cases = of('bm25');
    expect(cases).toHaveLength(5);
    for (const tc of cases) expect(tc.c, tc.name).toEqual(tc.t);
    expect((cases.find((c) => c.name === '6000 rows, 6 terms, k 10')!.c as { count: number }).count).toBe(10);
    expect(of('bm25-error')[0]).toMatchObject({ c: 'RangeError', t: 'RangeError' });
  });

  it('sha256: the C gives the FIPS 180-2 digests, whole and streamed', () => {
    const want: Record<string, string> = {
      empty: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      abc: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      '448 bits': '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      '896 bits': 'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
      'one million a': 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    };
    const nist = of('nist');
    expect(nist.length).toBe(13);
    for (const v of nist) {
      const key = v.name!.startsWith('one million a') ? 'one million a' : v.name!;
      expect(v.c, v.name).toBe(want[key]);
      if (v.t !== undefined) expect(v.t, v.name).toBe(want[key]);
    }
  });

  it('sha256: C equals the fallback on random input in random chunks, and after reuse', () => {
    const sha = of('sha');
    expect(sha.length).toBe(60);
    for (const s of sha) expect(s.c, s.name).toEqual(s.t);
  });

  it('p256: the C (the SDK\'s crypt arithmetic) gives @noble/curves\' u1*G + u2*Q, infinity and doubling included', () => {
    if (xsTag !== 'sdk') return expect(of('p256-missing')).toHaveLength(1);
    const cases = of('p256');
    expect(cases).toHaveLength(18);
    for (const c of cases) expect(c.c, c.name).toBe(c.t);
    expect(cases.find((c) => c.name!.includes('infinity'))!.c).toBeNull();
  });

  it('p256: an update signature verifies the same on the C and on @noble/curves (good, tampered, another key)', () => {
    if (xsTag !== 'sdk') return expect(of('p256-missing')).toHaveLength(1);
    const checks = of('ecdsa');
    expect(checks).toHaveLength(24);
    for (const c of checks) {
      expect(c.c, c.name).toBe(c.want);
      expect(c.t, c.name).toBe(c.want);
    }
  });

  it('sha256: __native takes an ArrayBuffer input and rejects a foreign context', () => {
    const [misc] = of('sha-misc');
    expect(misc!.viaBuffer).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(misc!.badCtx).toBe('TypeError');
  });
});
