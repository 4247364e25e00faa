// Boots the whole device: main.ts switches the UTF-8 hotspot before anything else runs.
// The UTF-8 hotspot's switching (modules/utf8, src/util/utf8.ts useNativeUtf8):
// the fallback API delegates to the TypeScript codec and stays correct in
// Node; the exported functions follow useNativeUtf8 as live bindings; boot
// routes them to hal.natives.utf8 and back. The C itself is compared with
// the fallback on XS in test/e2e/utf8.test.ts.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { hasNativeUtf8, utf8Fallback, utf8Native, type NativeUtf8 } from '../../../modules/utf8/utf8.ts';
import { boot } from '../../../src/main.ts';
import * as utf8 from '../../../src/util/utf8.ts';
import { decode, encode, nativeUtf8InUse, useNativeUtf8, utf8Length } from '../../../src/util/utf8.ts';
import { createMemHal } from '../../support/memhal.ts';

const nodeEncoder = new TextEncoder();
const nodeDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A stand-in for the runtime's __native built on Node's codec, counting calls. */
function fakeNative(): NativeUtf8 & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    utf8Encode(s) {
      calls.push('encode');
      const b = nodeEncoder.encode(s);
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
    },
    utf8Decode(bytes, start, end) {
      calls.push('decode');
      const view = ArrayBuffer.isView(bytes)
        ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        : new Uint8Array(bytes);
      return nodeDecoder.decode(view.subarray(start ?? 0, end ?? view.length));
    },
    utf8Length(s) {
      calls.push('length');
      return nodeEncoder.encode(s).length;
    },
  };
}

afterEach(() => useNativeUtf8(null));

describe('utf8Fallback', () => {
  it('is the TypeScript codec and is not native', () => {
    expect(utf8Fallback.native).toBe(false);
    expect(utf8Fallback.encode).toBe(utf8.encodeFallback);
    expect(utf8Fallback.decode).toBe(utf8.decodeFallback);
    expect(utf8Fallback.length).toBe(utf8.utf8LengthFallback);
  });

  it('matches TextEncoder and TextDecoder, lone surrogates and ill-formed bytes included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const b = utf8Fallback.encode(s);
        expect(b).toEqual(nodeEncoder.encode(s));
        expect(utf8Fallback.length(s)).toBe(b.length);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        expect(utf8Fallback.decode(b)).toBe(nodeDecoder.decode(b));
      }),
      { numRuns: 1000 },
    );
  });

  it('clamps start and end as the C does: truncated, within [0, length], end below start is empty', () => {
    const b = nodeEncoder.encode('aé€😀z');
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: -3, max: 15 }), fc.double({ min: -3, max: 15 }), fc.constant(NaN), fc.constant(Infinity)),
        fc.oneof(fc.integer({ min: -3, max: 15 }), fc.double({ min: -3, max: 15 }), fc.constant(NaN), fc.constant(-Infinity)),
        (start, end) => {
          const clamp = (d: number): number => (d > 0 ? Math.min(Math.trunc(d), b.length) : 0);
          const s = clamp(start);
          const e = Math.max(s, clamp(end));
          expect(utf8Fallback.decode(b, start, end)).toBe(nodeDecoder.decode(b.subarray(s, e)));
        },
      ),
      { numRuns: 500 },
    );
    expect(utf8Fallback.decode(b, 1)).toBe('é€😀z');
    expect(utf8Fallback.decode(b, undefined, 1)).toBe('a');
    expect(utf8Fallback.decode(b.subarray(1, 3))).toBe('é');
  });
});

describe('useNativeUtf8', () => {
  it('starts on the fallback', () => {
    expect(nativeUtf8InUse()).toBe(false);
    expect([...encode('é\ud800')]).toEqual([...utf8.encodeFallback('é\ud800')]);
    expect(decode(new Uint8Array([0xc3, 0xa9, 0xff]))).toBe(utf8.decodeFallback(new Uint8Array([0xc3, 0xa9, 0xff])));
    expect(utf8Length('😀')).toBe(utf8.utf8LengthFallback('😀'));
  });

  it('routes encode, decode and utf8Length (named and namespace imports alike), and null restores', () => {
    const n = fakeNative();
    expect(hasNativeUtf8(n)).toBe(true);
    const api = utf8Native(n);
    expect(api.native).toBe(true);
    useNativeUtf8(api);
    expect(nativeUtf8InUse()).toBe(true);
    const bytes = encode('héllo 😀');
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect([...bytes]).toEqual([...nodeEncoder.encode('héllo 😀')]);
    expect(decode(bytes, 1, 3)).toBe('é');
    expect(utf8.decode(bytes)).toBe('héllo 😀');
    expect(utf8Length('€')).toBe(3);
    expect(utf8.utf8Length('€')).toBe(3);
    expect(n.calls).toEqual(['encode', 'decode', 'decode', 'length', 'length']);
    // encodeInto stays TypeScript and agrees with the routed utf8Length
    const out = new Uint8Array(utf8Length('é\ud800'));
    expect(utf8.encodeInto('é\ud800', out, 0)).toBe(out.length);
    expect(n.calls).toHaveLength(6);

    useNativeUtf8(null);
    expect(nativeUtf8InUse()).toBe(false);
    encode('x');
    decode(new Uint8Array([0x78]));
    utf8Length('x');
    expect(n.calls).toHaveLength(6);
  });

  it('hasNativeUtf8 wants all three functions', () => {
    const n = fakeNative();
    expect(hasNativeUtf8(undefined)).toBe(false);
    expect(hasNativeUtf8({})).toBe(false);
    expect(hasNativeUtf8({ utf8Encode: n.utf8Encode, utf8Decode: n.utf8Decode })).toBe(false);
    expect(hasNativeUtf8({ ...n, utf8Length: 1 })).toBe(false);
  });
});

describe('boot', () => {
  it('routes the codec to hal.natives.utf8, and a HAL without it gets the fallback back', () => {
    const n = fakeNative();
    const mem = createMemHal();
    mem.hal.natives.utf8 = utf8Native(n);
    const device = boot(mem.hal);
    expect(nativeUtf8InUse()).toBe(true);
    expect(n.calls.length).toBeGreaterThan(0); // boot itself measures and encodes text
    device.stop();

    const plain = createMemHal();
    boot(plain.hal).stop();
    expect(nativeUtf8InUse()).toBe(false);
  });
});
