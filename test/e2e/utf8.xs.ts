// Runs ON XS (bundled by test/e2e/utf8.test.ts, run with
// `build/sim/xsim --standalone`): the UTF-8 hotspot's C through __native
// against the TypeScript fallback (src/util/utf8.ts), on the same
// deterministic inputs. Prints one JSON line per case: whether the C and the
// fallback agree byte for byte (encoded bytes, and the internal bytes of
// decoded strings), and for short inputs the bytes themselves, which the test
// also checks against Node's TextEncoder/TextDecoder.
import { hasNativeUtf8, utf8Fallback, utf8Native, type NativeUtf8 } from '../../modules/utf8/utf8.ts';
import * as utf8 from '../../src/util/utf8.ts';

declare const __sim: { print(text: string): void };
declare const __native: unknown;
// XS built without mxCESU8 has these: the bytes of a string as XS holds them, and back.
const XsArrayBuffer = ArrayBuffer as unknown as { fromString(s: string): ArrayBuffer };
const XsString = String as unknown as { fromArrayBuffer(b: ArrayBuffer): string };

const out = (obj: unknown): void => __sim.print(JSON.stringify(obj));

const hex = (b: Uint8Array): string => {
  const parts: string[] = [];
  for (const x of b) parts.push((x < 16 ? '0' : '') + x.toString(16));
  return parts.join('');
};
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};
/** The bytes XS holds for a string (its internal UTF-8). */
const inner = (s: string): Uint8Array => new Uint8Array(XsArrayBuffer.fromString(s));

if (!hasNativeUtf8(__native)) {
  out({ kind: 'fatal', message: '__native has no utf8 functions' });
} else {
  run(__native);
}

function run(n: NativeUtf8): void {
  const C = utf8Native(n);
  const T = utf8Fallback;

  let seed = 0x2545f491;
  const rnd = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  const pick = <X>(xs: readonly X[]): X => xs[rnd() % xs.length]!;

  // ---- encode and length: strings ----
  const encodeCase = (name: string, s: string, show: boolean): void => {
    const c = C.encode(s);
    const t = T.encode(s);
    const lc = C.length(s);
    const lt = T.length(s);
    out({
      kind: 'encode',
      name,
      same: sameBytes(c, t),
      lengths: [lc, lt, c.length, t.length],
      view: c instanceof Uint8Array && c.byteOffset === 0 && c.byteLength === c.buffer.byteLength,
      ...(show ? { inner: hex(inner(s)), c: hex(c) } : {}),
    });
  };

  /** A code point of the given UTF-8 width (1-4); surrogates only when asked. */
  const codePoint = (width: number): number => {
    switch (width) {
      case 1: return rnd() % 0x80;
      case 2: return 0x80 + (rnd() % 0x780);
      case 3: {
        const c = 0x800 + (rnd() % 0xf800);
        return c >= 0xd800 && c <= 0xdfff ? c + 0x800 : c;
      }
      default: return 0x10000 + (rnd() % 0x100000);
    }
  };
  const randomString = (len: number, surrogates: boolean): string => {
    const parts: string[] = [];
    for (let i = 0; i < len; i++) {
      const r = rnd() % 10;
      if (surrogates && r === 0) parts.push(String.fromCharCode(0xd800 + (rnd() % 0x800)));
      else if (surrogates && r === 1) parts.push(String.fromCharCode(0xd800 + (rnd() % 0x400)), String.fromCharCode(0xdc00 + (rnd() % 0x400)));
      else parts.push(String.fromCodePoint(codePoint(1 + (rnd() % 4))));
    }
    return parts.join('');
  };

  const fixed: [string, string][] = [
    ['empty', ''],
    ['ascii', 'GET /api/state HTTP/1.1\r\nHost: desk.local\r\n\r\n'],
    ['one of each width', 'Aé€😀'],
    ['NUL inside', 'a\u0000b\u0000'],
    ['only NUL', '\u0000'],
    ['BOM', '\ufeffhello'],
    ['U+FFFD itself', '\ufffd'],
    ['max code point', String.fromCodePoint(0x10ffff, 0xffff, 0x7ff, 0x7f, 0x80, 0x800, 0x10000)],
    ['lone high', '\ud83d'],
    ['lone low', '\ude00'],
    ['lone high at the end', 'abc\ud800'],
    ['lone low first', '\udfffabc'],
    // (join: esbuild would fold a + of two literals into one literal, a pair)
    ['halves concatenated', ['\ud83d', '\ude00'].join('')],
    ['reversed pair', ['\ude00', '\ud83d'].join('')],
    ['pair in one literal', '\ud83d\ude00'],
    ['pair from fromCharCode', String.fromCharCode(0xd83d, 0xde00)],
    ['fromCodePoint with two halves', String.fromCodePoint(0xd83d, 0xde00)],
    ['JSON.parse lone', JSON.parse('"\\ud800x"') as string],
    ['surrogate range edges', [0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000].map((c) => String.fromCharCode(c)).join('')],
  ];
  for (const [name, s] of fixed) encodeCase(name, s, true);

  // Strings only String.fromArrayBuffer can make: shapes XS reads leniently.
  const shapes: [string, number[]][] = [
    ['overlong NUL C0 80', [0x41, 0xc0, 0x80, 0x42]],
    ['overlong 2-byte C1 81', [0xc1, 0x81]],
    ['overlong 3-byte E0 81 81', [0xe0, 0x81, 0x81]],
    ['overlong surrogate F0 8D A0 80', [0xf0, 0x8d, 0xa0, 0x80]],
    ['encoded surrogate ED A0 BD', [0xed, 0xa0, 0xbd]],
    ['above U+10FFFF F4 90 80 80', [0xf4, 0x90, 0x80, 0x80, 0x78]],
    ['above U+10FFFF F7 BF BF BF', [0x61, 0xf7, 0xbf, 0xbf, 0xbf, 0x62]],
    ['invalid lead FF', [0xff, 0x80, 0x80, 0x80]],
    ['invalid lead F8', [0xf8, 0x88, 0x80, 0x80]],
  ];
  for (const [name, bytes] of shapes) {
    let s: string;
    try {
      s = XsString.fromArrayBuffer(new Uint8Array(bytes).buffer);
    } catch (_e) {
      out({ kind: 'encode-shape-refused', name });
      continue;
    }
    encodeCase(`fromArrayBuffer ${name}`, s, true);
  }

  for (let i = 0; i < 300; i++) encodeCase(`random ${i}`, randomString(1 + (rnd() % 40), i % 2 === 0), i < 100);
  const longAscii: string[] = [];
  for (let i = 0; i < 100 * 1024; i++) longAscii.push(String.fromCharCode(32 + (rnd() % 95)));
  const big = longAscii.join('');
  encodeCase('100 KB ascii', big, false);
  const bigMixed = randomString(40 * 1024, true); // about 100 KB of UTF-8
  encodeCase('100 KB mixed with surrogates', bigMixed, false);
  encodeCase('100 KB ascii then one lone surrogate', big + '\udc00', false);

  // ---- decode: bytes ----
  const decodeCase = (name: string, bytes: Uint8Array, start: number | undefined, end: number | undefined, show: boolean): void => {
    const c = C.decode(bytes, start, end);
    const t = T.decode(bytes, start, end);
    const ci = inner(c);
    const ti = inner(t);
    out({
      kind: 'decode',
      name,
      same: c === t && sameBytes(ci, ti),
      lengths: [c.length, t.length, ci.length],
      ...(show ? { bytes: hex(bytes), start, end, cps: Array.from(c, (ch) => ch.codePointAt(0)) } : {}),
    });
  };

  const pieces: number[][] = [
    [0x41], [0x7f], [0x00], [0x0a],
    [0xc3, 0xa9], [0xdf, 0xbf], [0xe2, 0x82, 0xac], [0xef, 0xbf, 0xbd], [0xf0, 0x9f, 0x98, 0x80], [0xf4, 0x8f, 0xbf, 0xbf],
    [0xef, 0xbb, 0xbf], // BOM
    [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xf0, 0x9f], // truncated
    [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xe0, 0x9f, 0xbf], [0xf0, 0x80, 0x80, 0x80], [0xf0, 0x8f, 0xbf, 0xbf], // overlong
    [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xed, 0x9f, 0xbf], // surrogates (and the last one below them)
    [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xf7, 0xbf, 0xbf, 0xbf], // above U+10FFFF
    [0x80], [0xbf], [0x80, 0x80], // stray continuation
    [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfc, 0x84, 0x80, 0x80, 0x80, 0x80], [0xfe], [0xff],
  ];
  const fixedBytes: [string, number[]][] = [
    ['empty', []],
    ['ascii', [0x47, 0x45, 0x54, 0x20, 0x2f]],
    ['BOM then text', [0xef, 0xbb, 0xbf, 0x68, 0x69]],
    ['NUL', [0x00]],
    ['NULs around text', [0x00, 0x61, 0x00, 0x00, 0x62, 0x00]],
    ['ED A0 80', [0xed, 0xa0, 0x80]],
    ['surrogate pair as CESU-8', [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]],
    ['truncated at the end', [0x61, 0xf0, 0x9f, 0x98]],
    ['truncated then ascii', [0xe2, 0x82, 0x61]],
    ['lead then lead', [0xe2, 0xe2, 0x82, 0xac]],
    ['overlongs', [0xc0, 0xaf, 0xe0, 0x80, 0xaf, 0xf0, 0x80, 0x80, 0xaf]],
    ['above max', [0xf4, 0x90, 0x80, 0x80, 0xf8, 0x88, 0x80, 0x80, 0x80]],
    ['all bytes 00..FF', Array.from({ length: 256 }, (_v, i) => i)],
  ];
  for (const [name, b] of fixedBytes) decodeCase(name, new Uint8Array(b), undefined, undefined, true);
  for (const p of pieces) {
    decodeCase(`piece ${hex(new Uint8Array(p))}`, new Uint8Array(p), undefined, undefined, true);
    decodeCase(`piece ${hex(new Uint8Array(p))} between ascii`, new Uint8Array([0x3c, ...p, 0x3e]), undefined, undefined, true);
  }

  const randomBytes = (pieceCount: number): Uint8Array => {
    const bytes: number[] = [];
    for (let i = 0; i < pieceCount; i++) {
      const r = rnd() % 4;
      if (r === 0) bytes.push(rnd() & 0xff); // any byte
      else if (r === 1) for (let k = 0; k < 1 + (rnd() % 12); k++) bytes.push(0x20 + (rnd() % 0x5f)); // an ASCII run
      else for (const b of pick(pieces)) bytes.push(b);
    }
    return new Uint8Array(bytes);
  };
  for (let i = 0; i < 400; i++) decodeCase(`random ${i}`, randomBytes(1 + (rnd() % 24)), undefined, undefined, i < 200);
  for (let i = 0; i < 50; i++) {
    const b = new Uint8Array(1 + (rnd() % 64));
    for (let k = 0; k < b.length; k++) b[k] = rnd() & 0xff;
    decodeCase(`uniform random ${i}`, b, undefined, undefined, true);
  }

  // Long inputs: 100 KB of ASCII, of mixed valid text, and of mixed text with errors.
  const enc = (s: string): Uint8Array => T.encode(s);
  decodeCase('100 KB ascii', enc(big), undefined, undefined, false);
  decodeCase('100 KB mixed', enc(randomString(40 * 1024, false)), undefined, undefined, false);
  decodeCase('100 KB with errors', randomBytes(12 * 1024), undefined, undefined, false);
  const bigAsciiNul = enc(big);
  bigAsciiNul[bigAsciiNul.length - 3] = 0;
  decodeCase('100 KB ascii with a NUL near the end', bigAsciiNul, undefined, undefined, false);

  // Views at offsets, start/end arguments (in range, out of range, fractional, NaN).
  const base = randomBytes(200);
  for (let i = 0; i < 60; i++) {
    const a = rnd() % (base.length + 1);
    const b = a + (rnd() % (base.length + 1 - a));
    decodeCase(`subarray ${a}-${b}`, base.subarray(a, b), undefined, undefined, true);
    const view = base.subarray(a);
    const s = rnd() % (view.length + 2);
    const e = rnd() % (view.length + 2);
    decodeCase(`subarray ${a} start ${s} end ${e}`, view, s, e, true);
    decodeCase(`subarray ${a} start ${s}`, view, s, undefined, true);
  }
  for (const [s, e] of [[-5, 3], [2, -1], [1.7, 5.9], [NaN, 4], [3, NaN], [Infinity, 2], [0, Infinity], [-Infinity, 1e9], [5, 2], [4, 4]] as [number, number][]) {
    decodeCase(`odd start/end ${s} ${e}`, base.subarray(10, 30), s, e, true);
  }
  for (const [s, e] of [[undefined, 7], [3, undefined]] as [number | undefined, number | undefined][]) {
    decodeCase(`undefined start/end ${s} ${e}`, base, s, e, true);
  }

  // The host function reads an ArrayBuffer and a DataView as their bytes.
  const view = base.subarray(7, 77);
  const copy = view.slice();
  const dv = new DataView(base.buffer, base.byteOffset + 7, 70);
  out({
    kind: 'decode-inputs',
    arrayBuffer: n.utf8Decode(copy.buffer) === T.decode(view),
    arrayBufferRange: n.utf8Decode(copy.buffer, 5, 40) === T.decode(view, 5, 40),
    dataView: n.utf8Decode(dv) === T.decode(view),
    int8: n.utf8Decode(new Int8Array(copy.buffer)) === T.decode(view),
    uint16: refusal(() => n.utf8Decode(new Uint16Array(4))),
    noArgument: refusal(() => (n.utf8Decode as () => string)()),
    notBuffer: refusal(() => n.utf8Decode('abc' as unknown as Uint8Array)),
    encodeNumber: hex(C.encode(12 as unknown as string)),
  });

  // The routed exports of src/util/utf8.ts: fallback by default, the C after the switch
  // (each call of encode, decode and utf8Length reaches the C), the fallback again after.
  const before = utf8.nativeUtf8InUse();
  const calls = { n: 0 };
  const counted: NativeUtf8 = {
    utf8Encode: (s) => (calls.n++, n.utf8Encode(s)),
    utf8Decode: (b, start, end) => (calls.n++, n.utf8Decode(b, start, end)),
    utf8Length: (s) => (calls.n++, n.utf8Length(s)),
  };
  utf8.useNativeUtf8(utf8Native(counted));
  const roundTrip = utf8.decode(utf8.encode('héllo \ud83d 😀')) === 'héllo \ufffd 😀' && utf8.utf8Length('é') === 2;
  const routed = utf8.nativeUtf8InUse() && calls.n === 3;
  utf8.useNativeUtf8(null);
  utf8.decode(utf8.encode('x'));
  out({ kind: 'routing', before, routed: routed && calls.n === 3, roundTrip, after: utf8.nativeUtf8InUse() });

  out({ kind: 'done' });
}

function refusal(f: () => unknown): string {
  try {
    f();
    return 'accepted';
  } catch (e) {
    return (e as Error).name;
  }
}
