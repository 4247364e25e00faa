// A compact QR Code encoder (ISO/IEC 18004) for the device's own screens:
// byte mode only, error correction level M (or L), versions 1-10 (up to 213
// bytes at M, 271 at L): enough for a sign-in link and a Wi-Fi join string,
// with room to spare. The mask is chosen by the standard's penalty rules
// (N1-N4), or forced for tests. test/unit/ui/qr.test.ts checks every module
// against the `qrcode` npm package and decodes the symbols with jsQR.
//
// Cost: one encode builds a size x size matrix a few times over (8 masks);
// a version 3 symbol takes well under a millisecond on a PC and is rebuilt
// only when its text changes.

import { encode } from '../util/utf8.ts';

export type QrEcl = 'L' | 'M';

export interface QrCode {
  version: number;
  /** Modules per side (17 + 4 * version), without the quiet zone. */
  size: number;
  ecl: QrEcl;
  mask: number;
  /** size * size, row-major; 1 = dark. */
  modules: Uint8Array;
}

export const QR_MAX_VERSION = 10;

/**
 * Error-correction block structure for versions 1-10: per level, per
 * version, [EC codewords per block, blocks in group 1, data codewords per
 * group-1 block, blocks in group 2] (group-2 blocks hold one more data
 * codeword). Checked against the total codewords of each version below.
 */
const BLOCKS: Record<QrEcl, ReadonlyArray<readonly [number, number, number, number]>> = {
  L: [
    [7, 1, 19, 0], [10, 1, 34, 0], [15, 1, 55, 0], [20, 1, 80, 0], [26, 1, 108, 0],
    [18, 2, 68, 0], [20, 2, 78, 0], [24, 2, 97, 0], [30, 2, 116, 0], [18, 2, 68, 2],
  ],
  M: [
    [10, 1, 16, 0], [16, 1, 28, 0], [26, 1, 44, 0], [18, 2, 32, 0], [24, 2, 43, 0],
    [16, 4, 27, 0], [18, 4, 31, 0], [22, 2, 38, 2], [22, 3, 36, 2], [26, 4, 43, 1],
  ],
};

/** Alignment pattern centres for versions 2-10 (version 1 has none). */
const ALIGN: ReadonlyArray<readonly number[]> = [
  [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
];

const FORMAT_ECL: Record<QrEcl, number> = { L: 1, M: 0 };

/** Modules available for data and EC codewords (the rest are function patterns). */
function rawDataModules(version: number): number {
  let n = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    n -= (25 * align - 10) * align - 55;
    if (version >= 7) n -= 36;
  }
  return n;
}

function dataCodewords(version: number, ecl: QrEcl): number {
  const [, g1, d1, g2] = BLOCKS[ecl][version - 1]!;
  return g1 * d1 + g2 * (d1 + 1);
}

/** Bytes that fit in one symbol of this version and level (byte mode). */
export function qrCapacity(version: number, ecl: QrEcl): number {
  const countBits = version <= 9 ? 8 : 16;
  return Math.floor((dataCodewords(version, ecl) * 8 - 4 - countBits) / 8);
}

// --- Reed-Solomon over GF(256), polynomial 0x11d ----------------------------

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;
}

/** Coefficients of prod (x - a^i), i < degree, highest power first (leading 1 dropped). */
function makeGenerator(degree: number): Uint8Array {
  const g = new Uint8Array(degree);
  g[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      g[j] = mul(g[j]!, root) ^ (j + 1 < degree ? g[j + 1]! : 0);
    }
    root = mul(root, 2);
  }
  return g;
}

/**
 * The generator of every EC block size BLOCKS uses, made when the module
 * loads: on the device that is the preload, which puts them in flash (and
 * leaves the Map read-only: nothing is added to it afterwards).
 */
const generators = new Map<number, Uint8Array>();
for (const rows of Object.values(BLOCKS)) for (const [ec] of rows) if (!generators.has(ec)) generators.set(ec, makeGenerator(ec));

function generator(degree: number): Uint8Array {
  const g = generators.get(degree);
  if (!g) throw new Error(`no Reed-Solomon generator of degree ${degree}`);
  return g;
}

function mul(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a]! + LOG[b]!]!;
}

function remainder(data: Uint8Array, degree: number): Uint8Array {
  const g = generator(degree);
  const rem = new Uint8Array(degree);
  for (const b of data) {
    const factor = b ^ rem[0]!;
    rem.copyWithin(0, 1);
    rem[degree - 1] = 0;
    for (let i = 0; i < degree; i++) rem[i] = rem[i]! ^ mul(g[i]!, factor);
  }
  return rem;
}

// --- codewords --------------------------------------------------------------

function dataBits(bytes: Uint8Array, version: number, ecl: QrEcl): Uint8Array {
  const capacity = dataCodewords(version, ecl);
  const out = new Uint8Array(capacity);
  let bit = 0;
  const put = (value: number, n: number): void => {
    for (let i = n - 1; i >= 0; i--, bit++) if ((value >>> i) & 1) out[bit >> 3] = out[bit >> 3]! | (0x80 >> (bit & 7));
  };
  put(0b0100, 4); // byte mode
  put(bytes.length, version <= 9 ? 8 : 16);
  for (const b of bytes) put(b, 8);
  put(0, Math.min(4, capacity * 8 - bit)); // terminator
  bit = (bit + 7) & ~7;
  for (let pad = 0xec; bit < capacity * 8; pad ^= 0xec ^ 0x11) put(pad, 8);
  return out;
}

/** Splits into blocks, appends each block's EC codewords, interleaves. */
function interleave(data: Uint8Array, version: number, ecl: QrEcl): Uint8Array {
  const [ec, g1, d1, g2] = BLOCKS[ecl][version - 1]!;
  const blocks: Uint8Array[] = [];
  const ecs: Uint8Array[] = [];
  let at = 0;
  for (let b = 0; b < g1 + g2; b++) {
    const len = b < g1 ? d1 : d1 + 1;
    const block = data.subarray(at, at + len);
    at += len;
    blocks.push(block);
    ecs.push(remainder(block, ec));
  }
  const out = new Uint8Array(data.length + ec * blocks.length);
  let o = 0;
  for (let i = 0; i <= d1; i++) for (const block of blocks) if (i < block.length) out[o++] = block[i]!;
  for (let i = 0; i < ec; i++) for (const e of ecs) out[o++] = e[i]!;
  return out;
}

// --- the matrix ---------------------------------------------------------------

class Matrix {
  readonly modules: Uint8Array;
  readonly fn: Uint8Array;
  constructor(readonly size: number) {
    this.modules = new Uint8Array(size * size);
    this.fn = new Uint8Array(size * size);
  }
  setFn(x: number, y: number, dark: boolean): void {
    const i = y * this.size + x;
    this.modules[i] = dark ? 1 : 0;
    this.fn[i] = 1;
  }
}

function drawFinder(m: Matrix, cx: number, cy: number): void {
  for (let dy = -4; dy <= 4; dy++) {
    for (let dx = -4; dx <= 4; dx++) {
      const x = cx + dx;
      const y = cy + dy;
      if (x < 0 || y < 0 || x >= m.size || y >= m.size) continue;
      const d = Math.max(Math.abs(dx), Math.abs(dy));
      m.setFn(x, y, d !== 2 && d !== 4);
    }
  }
}

function drawFunctionPatterns(m: Matrix, version: number): void {
  const size = m.size;
  for (let i = 0; i < size; i++) {
    m.setFn(6, i, i % 2 === 0);
    m.setFn(i, 6, i % 2 === 0);
  }
  drawFinder(m, 3, 3);
  drawFinder(m, size - 4, 3);
  drawFinder(m, 3, size - 4);
  const align = ALIGN[version - 1]!;
  const last = align.length - 1;
  for (let i = 0; i <= last; i++) {
    for (let j = 0; j <= last; j++) {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) m.setFn(align[i]! + dx, align[j]! + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }
  }
  drawFormat(m, 'M', 0); // reserves the format areas; the real bits come after masking
  if (version >= 7) {
    let rem = version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >>> i) & 1) === 1;
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      m.setFn(a, b, dark);
      m.setFn(b, a, dark);
    }
  }
}

function formatBits(ecl: QrEcl, mask: number): number {
  const data = (FORMAT_ECL[ecl] << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  return ((data << 10) | rem) ^ 0x5412;
}

function drawFormat(m: Matrix, ecl: QrEcl, mask: number): void {
  const bits = formatBits(ecl, mask);
  const bit = (i: number): boolean => ((bits >>> i) & 1) === 1;
  const size = m.size;
  for (let i = 0; i <= 5; i++) m.setFn(8, i, bit(i));
  m.setFn(8, 7, bit(6));
  m.setFn(8, 8, bit(7));
  m.setFn(7, 8, bit(8));
  for (let i = 9; i < 15; i++) m.setFn(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) m.setFn(size - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) m.setFn(8, size - 15 + i, bit(i));
  m.setFn(8, size - 8, true); // the dark module
}

function placeCodewords(m: Matrix, codewords: Uint8Array): void {
  const size = m.size;
  const total = codewords.length * 8;
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let v = 0; v < size; v++) {
      const y = upward ? size - 1 - v : v;
      for (let j = 0; j < 2; j++) {
        const idx = y * size + right - j;
        if (m.fn[idx]) continue;
        // Remainder bits (past the last codeword) stay light before masking.
        if (i < total) m.modules[idx] = (codewords[i >> 3]! >>> (7 - (i & 7))) & 1;
        i++;
      }
    }
  }
}

function masked(mask: number, x: number, y: number): boolean {
  switch (mask) {
    case 0:
      return (x + y) % 2 === 0;
    case 1:
      return y % 2 === 0;
    case 2:
      return x % 3 === 0;
    case 3:
      return (x + y) % 3 === 0;
    case 4:
      return (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0;
    case 5:
      return ((x * y) % 2) + ((x * y) % 3) === 0;
    case 6:
      return (((x * y) % 2) + ((x * y) % 3)) % 2 === 0;
    default:
      return (((x + y) % 2) + ((x * y) % 3)) % 2 === 0;
  }
}

/**
 * The modules each mask inverts (function patterns excluded), per mask: built
 * once for the last version encoded, so choosing among the eight masks is a
 * plain XOR pass each (the sign-in code is re-encoded every couple of minutes).
 */
/** The last version's patterns (a property, not a rebinding: the device preloads this module, which freezes its bindings). */
const maskCache: { version: number; patterns: Uint8Array[] } = { version: -1, patterns: [] };

function maskPatterns(m: Matrix, version: number): Uint8Array[] {
  if (maskCache.version === version) return maskCache.patterns;
  const size = m.size;
  const patterns: Uint8Array[] = [];
  for (let mask = 0; mask < 8; mask++) {
    const p = new Uint8Array(size * size);
    for (let y = 0, i = 0; y < size; y++) for (let x = 0; x < size; x++, i++) if (!m.fn[i] && masked(mask, x, y)) p[i] = 1;
    patterns.push(p);
  }
  maskCache.version = version;
  maskCache.patterns = patterns;
  return patterns;
}

function applyMask(m: Matrix, pattern: Uint8Array): void {
  const mods = m.modules;
  for (let i = 0; i < mods.length; i++) mods[i] = mods[i]! ^ pattern[i]!;
}

/** N1 (runs of five or more) and N3 (finder-like 1:1:3:1:1 with four light) along one row or column. */
function linePenalty(modules: Uint8Array, start: number, step: number, size: number): number {
  let score = 0;
  let run = 0;
  let color = -1;
  let window = 0;
  for (let k = 0, i = start; k < size; k++, i += step) {
    const c = modules[i]!;
    if (c === color) run++;
    else {
      if (run >= 5) score += run - 2;
      color = c;
      run = 1;
    }
    window = ((window << 1) & 0x7ff) | c;
    if (k >= 10 && (window === 0x5d0 || window === 0x05d)) score += 40;
  }
  if (run >= 5) score += run - 2;
  return score;
}

/** The standard's penalty score (N1 runs, N2 blocks, N3 finder look-alikes, N4 balance). */
export function qrPenalty(modules: Uint8Array, size: number): number {
  let score = 0;
  let dark = 0;
  for (let i = 0; i < size * size; i++) dark += modules[i]!;
  for (let line = 0; line < size; line++) score += linePenalty(modules, line * size, 1, size) + linePenalty(modules, line, size, size);
  // N2: 2x2 blocks of one colour, sliding along pairs of rows.
  for (let y = 0; y + 1 < size; y++) {
    const i = y * size;
    let a0 = modules[i]!;
    let b0 = modules[i + size]!;
    for (let x = 1; x < size; x++) {
      const a1 = modules[i + x]!;
      const b1 = modules[i + size + x]!;
      if (a0 === a1 && a0 === b0 && a0 === b1) score += 3;
      a0 = a1;
      b0 = b1;
    }
  }
  const total = size * size;
  return score + 10 * Math.floor(Math.abs(dark * 20 - total * 10) / total);
}

export interface QrOptions {
  /** Preferred level (default M); L is used when the data does not fit at M. */
  ecl?: QrEcl;
  minVersion?: number;
  /** Force a mask 0-7 (tests); otherwise the lowest penalty wins. */
  mask?: number;
}

/** Encodes bytes in byte mode, or throws when they do not fit in version 10 at level L. */
export function encodeQrBytes(bytes: Uint8Array, options: QrOptions = {}): QrCode {
  const levels: QrEcl[] = options.ecl === 'L' ? ['L'] : ['M', 'L'];
  for (const ecl of levels) {
    for (let version = Math.max(1, options.minVersion ?? 1); version <= QR_MAX_VERSION; version++) {
      if (bytes.length > qrCapacity(version, ecl)) continue;
      return build(bytes, version, ecl, options.mask);
    }
  }
  throw new RangeError(`QR: ${bytes.length} bytes do not fit in version ${QR_MAX_VERSION}`);
}

/** Encodes text as UTF-8 in byte mode. */
export function encodeQr(text: string, options: QrOptions = {}): QrCode {
  return encodeQrBytes(encode(text), options);
}

function build(bytes: Uint8Array, version: number, ecl: QrEcl, forcedMask: number | undefined): QrCode {
  const size = 17 + 4 * version;
  const m = new Matrix(size);
  drawFunctionPatterns(m, version);
  placeCodewords(m, interleave(dataBits(bytes, version, ecl), version, ecl));
  const patterns = maskPatterns(m, version);
  const unmasked = m.modules.slice();
  let best = forcedMask === undefined ? -1 : forcedMask & 7;
  if (best < 0) {
    let bestScore = Infinity;
    for (let mask = 0; mask < 8; mask++) {
      m.modules.set(unmasked);
      applyMask(m, patterns[mask]!);
      drawFormat(m, ecl, mask);
      const score = qrPenalty(m.modules, size);
      if (score < bestScore) {
        bestScore = score;
        best = mask;
      }
    }
    m.modules.set(unmasked);
  }
  applyMask(m, patterns[best]!);
  drawFormat(m, ecl, best);
  return { version, size, ecl, mask: best, modules: m.modules };
}

/** Self-check of the block table against the symbol geometry (used by tests). */
export function qrTablesConsistent(): boolean {
  for (const ecl of ['L', 'M'] as const) {
    for (let v = 1; v <= QR_MAX_VERSION; v++) {
      const [ec, g1, , g2] = BLOCKS[ecl][v - 1]!;
      if (dataCodewords(v, ecl) + ec * (g1 + g2) !== Math.floor(rawDataModules(v) / 8)) return false;
    }
  }
  return true;
}

/** Escapes a field of a WIFI: join string (backslash before \ ; , : and "). */
export function wifiEscape(s: string): string {
  const out: string[] = [];
  for (const ch of s) out.push(ch === '\\' || ch === ';' || ch === ',' || ch === ':' || ch === '"' ? '\\' + ch : ch);
  return out.join('');
}

/** The join string phones read from a Wi-Fi QR code (WPA/WPA2 personal). */
export function wifiJoinString(ssid: string, passphrase: string): string {
  return `WIFI:T:WPA;S:${wifiEscape(ssid)};P:${wifiEscape(passphrase)};;`;
}
