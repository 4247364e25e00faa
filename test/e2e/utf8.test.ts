// The UTF-8 hotspot (modules/utf8) through the simulator's XS runtime:
// utf8.xs.ts is bundled with esbuild and run standalone on build/sim/xsim; it
// runs the C (via __native) and the TypeScript fallback (src/util/utf8.ts) on
// the same inputs ON XS and reports whether they agree byte for byte. Short
// cases also carry their bytes, checked here against Node's TextEncoder and
// TextDecoder (the WHATWG reference).
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
/** Whether build/sim/xsim runs the Moddable SDK's XS 17 (tools/build.mjs records which XS it linked). */
let sdkXs = false;

interface Line {
  kind: string;
  name?: string;
  same?: boolean;
  lengths?: number[];
  [key: string]: unknown;
}

let lines: Line[] = [];
let tmp = '';

beforeAll(async () => {
  // the simulator's runtime on the XS the suite runs on (tools/build.mjs: the SDK's when it is here)
  sdkXs = buildRuntime({ quiet: true }).tag === 'sdk';
  const result = await build({
    entryPoints: [join(ROOT, 'test/e2e/utf8.xs.ts')],
    bundle: true,
    format: 'iife',
    target: 'es2022',
    supported: { 'class-field': false, 'class-static-field': false },
    write: false,
    logLevel: 'silent',
  });
  tmp = mkdtempSync(join(tmpdir(), 'utf8-'));
  const script = join(tmp, 'utf8.js');
  writeFileSync(script, result.outputFiles[0]!.text);
  const stdout = execFileSync(XSIM, ['--standalone', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  lines = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}, 180_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const of = (kind: string): Line[] => lines.filter((l) => l.kind === kind);
const unhex = (h: string): Uint8Array => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/**
 * The characters of a string from the bytes XS holds for it (U+0000 as C0 80,
 * surrogates as 3-byte sequences), one JS string each: in XS two surrogate
 * halves side by side stay two characters, where Node's UTF-16 would pair them.
 */
function fromXsInner(b: Uint8Array): string[] {
  const cps: string[] = [];
  for (let i = 0; i < b.length; ) {
    const x = b[i]!;
    const size = x < 0x80 ? 1 : x < 0xe0 ? 2 : x < 0xf0 ? 3 : 4;
    let c = size === 1 ? x : x & (0xff >> (size + 1));
    for (let k = 1; k < size; k++) c = (c << 6) | (b[i + k]! & 0x3f);
    cps.push(c >= 0xd800 && c <= 0xdfff ? String.fromCharCode(c) : String.fromCodePoint(c));
    i += size;
  }
  return cps;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

describe('UTF-8 hotspot on XS (build/sim/xsim)', () => {
  it('ran to the end with the utf8 functions on __native', () => {
    expect(of('fatal')).toEqual([]);
    expect(of('done')).toHaveLength(1);
  });

  it('encode and length: the C equals the fallback byte for byte, on every string', () => {
    const cases = of('encode');
    expect(cases.length).toBeGreaterThan(320);
    for (const c of cases) {
      expect(c.same, c.name).toBe(true);
      const [lc, lt, bc, bt] = c.lengths!;
      expect([lt, bc, bt], c.name).toEqual([lc, lc, lc]);
      expect(c.view, c.name).toBe(true);
    }
    for (const name of ['100 KB ascii', '100 KB mixed with surrogates', '100 KB ascii then one lone surrogate']) {
      expect(cases.find((c) => c.name === name)!.lengths![0]).toBeGreaterThanOrEqual(100 * 1024);
    }
  });

  it('encode: what XS holds, encoded, is what TextEncoder gives (lone surrogates as U+FFFD)', () => {
    const shown = of('encode').filter((c) => c.inner !== undefined && !c.name!.startsWith('fromArrayBuffer'));
    expect(shown.length).toBeGreaterThan(110);
    for (const c of shown) {
      const chars = fromXsInner(unhex(c.inner as string));
      expect(c.c, c.name).toBe(chars.map((ch) => hex(encoder.encode(ch))).join(''));
    }
    const inner = (name: string): unknown => of('encode').find((c) => c.name === name)!.inner;
    // How XS 13 without mxCESU8 holds surrogates: one 3-byte sequence each; a pair written
    // in one literal or built by fromCharCode is one 4-byte character.
    expect(inner('lone high')).toBe('eda0bd');
    expect(inner('halves concatenated')).toBe('eda0bdedb880');
    expect(inner('pair in one literal')).toBe('f09f9880');
    expect(inner('pair from fromCharCode')).toBe('f09f9880');
    expect(inner('fromCodePoint with two halves')).toBe('eda0bdedb880');
    // XS keeps U+0000 as C0 80 inside; XS 17's ArrayBuffer.fromString (the SDK's XS) writes it out as 00, XS 13's as it is
    expect(inner('NUL inside')).toBe(sdkXs ? '61006200' : '61c08062c080');
    expect(of('encode').find((c) => c.name === 'halves concatenated')!.c).toBe('efbfbdefbfbd');
  });

  it('encode: strings with shapes only String.fromArrayBuffer makes come out well-formed and equal', () => {
    const shapes = of('encode').filter((c) => c.name!.startsWith('fromArrayBuffer'));
    expect(shapes.length + of('encode-shape-refused').length).toBe(9);
    const c = (name: string): unknown => shapes.find((s) => s.name === `fromArrayBuffer ${name}`)?.c;
    expect(c('overlong NUL C0 80')).toBe('410042');
    expect(c('encoded surrogate ED A0 BD')).toBe('efbfbd');
    expect(c('above U+10FFFF F7 BF BF BF')).toBe('61efbfbd62');
    for (const s of shapes) {
      const bytes = unhex(s.c as string);
      expect(hex(encoder.encode(decoder.decode(bytes))), s.name).toBe(s.c); // well-formed
    }
  });

  it('decode: the C equals the fallback, down to the bytes XS holds, on every input', () => {
    const cases = of('decode');
    expect(cases.length).toBeGreaterThan(700);
    for (const c of cases) expect(c.same, c.name).toBe(true);
    expect(cases.find((c) => c.name === '100 KB ascii')!.lengths![2]).toBe(100 * 1024);
    expect(cases.find((c) => c.name === '100 KB with errors')!.lengths![0]).toBeGreaterThan(20_000);
  });

  it('decode: the C gives what TextDecoder gives (WHATWG, U+FFFD per maximal subpart, BOM kept)', () => {
    const shown = of('decode').filter((c) => c.bytes !== undefined);
    expect(shown.length).toBeGreaterThan(500);
    const clamp = (d: number | undefined, dflt: number, len: number): number =>
      d === undefined ? dflt : d > 0 ? Math.min(Math.trunc(d), len) : 0;
    for (const c of shown) {
      const bytes = unhex(c.bytes as string);
      // JSON turns NaN and the infinities into null: the name keeps them.
      const m = /start\/end (\S+) (\S+)$/.exec(c.name!);
      const num = (v: unknown, text: string | undefined): number | undefined =>
        text !== undefined && text !== 'undefined' ? Number(text) : (v as number | undefined);
      const start = clamp(num(c.start, m?.[1]), 0, bytes.length);
      const end = Math.max(start, clamp(num(c.end, m?.[2]), bytes.length, bytes.length));
      const want = [...decoder.decode(bytes.subarray(start, end))].map((ch) => ch.codePointAt(0));
      expect(c.cps, c.name).toEqual(want);
    }
  });

  it('decode: the host function takes an ArrayBuffer, a DataView and an Int8Array, and refuses the rest', () => {
    const [d] = of('decode-inputs');
    expect(d).toMatchObject({
      arrayBuffer: true,
      arrayBufferRange: true,
      dataView: true,
      int8: true,
      uint16: 'TypeError',
      noArgument: 'TypeError',
      notBuffer: 'TypeError',
      encodeNumber: '3132',
    });
  });

  it('useNativeUtf8 routes src/util/utf8.ts to the C and back on XS', () => {
    const [r] = of('routing');
    expect(r).toMatchObject({ before: false, routed: true, roundTrip: true, after: false });
  });
});
