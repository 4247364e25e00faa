// SHA-256 fallback (modules/sha256/sha256.ts): FIPS 180-2 vectors, streaming
// in odd chunk sizes, and a cross-check against node:crypto on random input.
// The C implementation is checked through the simulator in
// test/e2e/hotspots.test.ts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sha256, sha256Fallback, sha256Native, hasNativeSha256 } from '../../../modules/sha256/sha256.ts';
import type { NativeSha256 } from '../../../modules/sha256/sha256.ts';

const enc = new TextEncoder();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const nodeSha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

const NIST_VECTORS: Array<[string, Uint8Array, string]> = [
  ['empty', new Uint8Array(0), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['abc', enc.encode('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  [
    '448 bits',
    enc.encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'),
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  ],
  [
    '896 bits',
    enc.encode(
      'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
    ),
    'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
  ],
  [
    'one million a',
    new Uint8Array(1_000_000).fill(0x61),
    'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
  ],
];

describe('sha256Fallback', () => {
  it('is not native', () => {
    expect(sha256Fallback.native).toBe(false);
  });

  for (const [name, msg, want] of NIST_VECTORS) {
    it(`gives the FIPS 180-2 digest of ${name}`, () => {
      expect(hex(sha256(sha256Fallback, msg))).toBe(want);
    });
  }

  it('gives the same digest streamed in odd chunk sizes', () => {
    const msg = new Uint8Array(1000);
    for (let i = 0; i < msg.length; i++) msg[i] = (i * 131 + 7) & 0xff;
    const want = nodeSha(msg);
    for (const size of [1, 3, 7, 13, 31, 63, 64, 65, 127, 129, 999]) {
      const h = sha256Fallback.create();
      for (let i = 0; i < msg.length; i += size) h.update(msg.subarray(i, i + size));
      expect(hex(h.digest()), `chunk ${size}`).toBe(want);
    }
  });

  it('gives the right digest for every length around the padding boundaries', () => {
    const msg = new Uint8Array(300);
    for (let i = 0; i < msg.length; i++) msg[i] = (i * 17) & 0xff;
    for (let n = 0; n <= 300; n++) {
      const m = msg.subarray(0, n);
      expect(hex(sha256(sha256Fallback, m)), `length ${n}`).toBe(nodeSha(m));
    }
  });

  it('resets after digest, so a hash can be reused', () => {
    const h = sha256Fallback.create();
    h.update(enc.encode('something else first'));
    h.digest();
    h.update(enc.encode('abc'));
    expect(hex(h.digest())).toBe(NIST_VECTORS[1]![2]);
    expect(hex(h.digest())).toBe(NIST_VECTORS[0]![2]);
  });

  it('reads views at an offset and ignores bytes outside them', () => {
    const buf = new Uint8Array(100).fill(0xee);
    buf.set(enc.encode('abc'), 40);
    expect(hex(sha256(sha256Fallback, buf.subarray(40, 43)))).toBe(NIST_VECTORS[1]![2]);
  });

  it('agrees with node:crypto on random input split at random points', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2000 }),
        fc.array(fc.nat({ max: 2000 }), { maxLength: 6 }),
        (msg, cuts) => {
          const points = [...new Set(cuts.map((c) => c % (msg.length + 1)))].sort((a, b) => a - b);
          const h = sha256Fallback.create();
          let prev = 0;
          for (const p of [...points, msg.length]) {
            h.update(msg.subarray(prev, p));
            prev = p;
          }
          expect(hex(h.digest())).toBe(nodeSha(msg));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('sha256Native', () => {
  // A stand-in for __native built on node:crypto, to check the wrapper's plumbing.
  function fakeNative(): NativeSha256 & { calls: string[] } {
    const calls: string[] = [];
    const chunks = new Map<ArrayBuffer, Uint8Array[]>();
    return {
      calls,
      sha256Init() {
        calls.push('init');
        const ctx = new ArrayBuffer(112);
        chunks.set(ctx, []);
        return ctx;
      },
      sha256Update(ctx, bytes) {
        calls.push('update');
        chunks.get(ctx)!.push(Uint8Array.from(bytes));
      },
      sha256Final(ctx) {
        calls.push('final');
        const h = createHash('sha256');
        for (const c of chunks.get(ctx)!) h.update(c);
        chunks.set(ctx, []);
        const d = h.digest();
        return d.buffer.slice(d.byteOffset, d.byteOffset + 32) as ArrayBuffer;
      },
    };
  }

  it('wraps init/update/final and returns a Uint8Array digest', () => {
    const n = fakeNative();
    expect(hasNativeSha256(n)).toBe(true);
    expect(hasNativeSha256({})).toBe(false);
    expect(hasNativeSha256(undefined)).toBe(false);
    const api = sha256Native(n);
    expect(api.native).toBe(true);
    const h = api.create();
    h.update(enc.encode('a'));
    h.update(enc.encode('bc'));
    const d = h.digest();
    expect(d).toBeInstanceOf(Uint8Array);
    expect(hex(d)).toBe(NIST_VECTORS[1]![2]);
    expect(n.calls).toEqual(['init', 'update', 'update', 'final']);
  });
});
