// The SHA-256 hotspot's API: streaming init/update/final. The C in sha256.c
// (through __native on XS) and the pure TypeScript fallback here give the
// same digests.
//
// Runs on XS: ES2022 only, no host globals. The host passes the __native
// object to sha256Native(); nothing here reads globals.

export interface Sha256Hash {
  update(bytes: Uint8Array): void;
  /** Returns the 32-byte digest and resets the hash for reuse. */
  digest(): Uint8Array;
}

export interface Sha256Api {
  readonly native: boolean;
  create(): Sha256Hash;
}

/** The functions the runtime puts on `__native` (docs/sim-protocol.md). */
export interface NativeSha256 {
  /** A fresh context (an opaque ArrayBuffer). */
  sha256Init(): ArrayBuffer;
  sha256Update(ctx: ArrayBuffer, bytes: Uint8Array): void;
  /** The 32-byte digest; the context is reset. */
  sha256Final(ctx: ArrayBuffer): ArrayBuffer;
}

/** True when obj carries the SHA-256 functions (e.g. the runtime's __native). */
export function hasNativeSha256(obj: unknown): obj is NativeSha256 {
  const n = obj as Partial<NativeSha256> | null | undefined;
  return (
    !!n &&
    typeof n.sha256Init === 'function' &&
    typeof n.sha256Update === 'function' &&
    typeof n.sha256Final === 'function'
  );
}

/** The C implementation through the runtime's __native functions. */
export function sha256Native(n: NativeSha256): Sha256Api {
  const init = n.sha256Init;
  const update = n.sha256Update;
  const final = n.sha256Final;
  return {
    native: true,
    create(): Sha256Hash {
      const ctx = init();
      return {
        update(bytes: Uint8Array): void {
          update(ctx, bytes);
        },
        digest(): Uint8Array {
          return new Uint8Array(final(ctx));
        },
      };
    },
  };
}

// prettier-ignore
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// prettier-ignore
const H0 = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/**
 * Compresses the 64-byte blocks of p[pos .. pos + 64 * n) into state (int32
 * words). W is a 64-word scratch array. Written for an interpreter: int32
 * locals, the schedule and the rounds in plain loops.
 */
function blocks(state: Int32Array, W: Int32Array, p: Uint8Array, pos: number, n: number): void {
  let h0 = state[0]!, h1 = state[1]!, h2 = state[2]!, h3 = state[3]!;
  let h4 = state[4]!, h5 = state[5]!, h6 = state[6]!, h7 = state[7]!;
  while (n-- > 0) {
    for (let i = 0; i < 16; i++, pos += 4) {
      W[i] = (p[pos]! << 24) | (p[pos + 1]! << 16) | (p[pos + 2]! << 8) | p[pos + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = W[i - 15]!;
      const y = W[i - 2]!;
      W[i] =
        (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) +
        (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) +
        W[i - 7]! +
        W[i - 16]!;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i = 0; i < 64; i++) {
      const t1 =
        (h +
          (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
          (g ^ (e & (f ^ g))) +
          K[i]! +
          W[i]!) |
        0;
      const t2 =
        ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
          ((a & b) | (c & (a | b)))) |
        0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  state[0] = h0; state[1] = h1; state[2] = h2; state[3] = h3;
  state[4] = h4; state[5] = h5; state[6] = h6; state[7] = h7;
}

class FallbackHash implements Sha256Hash {
  private readonly state = new Int32Array(8);
  private readonly W = new Int32Array(64);
  private readonly block = new Uint8Array(64);
  private used = 0; // bytes waiting in block
  private total = 0; // bytes hashed so far (exact up to 2^53)

  constructor() {
    this.state.set(H0);
  }

  update(bytes: Uint8Array): void {
    let len = bytes.length;
    let pos = 0;
    this.total += len;
    if (this.used > 0) {
      const take = Math.min(64 - this.used, len);
      this.block.set(bytes.subarray(0, take), this.used);
      this.used += take;
      pos = take;
      len -= take;
      if (this.used < 64) return;
      blocks(this.state, this.W, this.block, 0, 1);
      this.used = 0;
    }
    const n = len >>> 6;
    if (n > 0) {
      blocks(this.state, this.W, bytes, pos, n);
      pos += n * 64;
      len -= n * 64;
    }
    if (len > 0) {
      this.block.set(bytes.subarray(pos, pos + len), 0);
      this.used = len;
    }
  }

  digest(): Uint8Array {
    const block = this.block;
    let used = this.used;
    block[used++] = 0x80;
    if (used > 56) {
      block.fill(0, used);
      blocks(this.state, this.W, block, 0, 1);
      used = 0;
    }
    block.fill(0, used, 56);
    const bits = this.total * 8;
    const hi = Math.floor(bits / 0x100000000);
    const lo = bits - hi * 0x100000000;
    for (let i = 0; i < 4; i++) {
      block[56 + i] = (hi >>> (24 - 8 * i)) & 0xff;
      block[60 + i] = (lo >>> (24 - 8 * i)) & 0xff;
    }
    blocks(this.state, this.W, block, 0, 1);
    const out = new Uint8Array(32);
    for (let i = 0; i < 8; i++) {
      const v = this.state[i]!;
      out[4 * i] = v >>> 24;
      out[4 * i + 1] = (v >>> 16) & 0xff;
      out[4 * i + 2] = (v >>> 8) & 0xff;
      out[4 * i + 3] = v & 0xff;
    }
    this.state.set(H0);
    this.used = 0;
    this.total = 0;
    return out;
  }
}

/** The pure TypeScript implementation (same digests as the C). */
export const sha256Fallback: Sha256Api = {
  native: false,
  create: () => new FallbackHash(),
};

/** One-shot SHA-256 of bytes with the given implementation. */
export function sha256(api: Sha256Api, bytes: Uint8Array): Uint8Array {
  const h = api.create();
  h.update(bytes);
  return h.digest();
}
