// The P-256 hotspot's API: u1*G + u2*Q on NIST P-256, the costly step of an
// ECDSA signature check (src/ota/verify.ts). The C in xs_p256.c (the Moddable
// SDK's crypt arithmetic, through __native on XS) and the fallback here
// (@noble/curves' points) give the same x coordinate.
//
// Runs on XS: ES2022 only, no host globals. The host passes the __native
// object to p256Native(); nothing here reads globals.

import { p256 } from '@noble/curves/nist.js';

export interface P256Api {
  readonly native: boolean;
  /** The affine x of u1*G + u2*Q, or null for the point at infinity. Q must be on the curve. */
  mulAdd(u1: bigint, qx: bigint, qy: bigint, u2: bigint): bigint | null;
}

/** The function the runtime puts on `__native` (docs/sim-protocol.md). */
export interface NativeEc {
  /** k1*P1 + k2*P2 on y^2 = x^3 + a*x + b (mod m), normalised: z is 1n, or 0n at infinity. */
  ecMul2(m: bigint, a: bigint, b: bigint, x1: bigint, y1: bigint, k1: bigint, x2: bigint, y2: bigint, k2: bigint): { x: bigint; y: bigint; z: bigint };
}

/** True when obj carries ecMul2 (e.g. the runtime's __native). */
export function hasNativeEc(obj: unknown): obj is NativeEc {
  const n = obj as Partial<NativeEc> | null | undefined;
  return !!n && typeof n.ecMul2 === 'function';
}

/** The C implementation through the runtime's __native function. */
export function p256Native(n: NativeEc): P256Api {
  const mul2 = n.ecMul2;
  const { p, a, b, Gx, Gy } = p256.Point.CURVE();
  return {
    native: true,
    mulAdd(u1, qx, qy, u2) {
      const r = mul2(p, a, b, Gx, Gy, u1, qx, qy, u2);
      return r.z === 0n ? null : r.x;
    },
  };
}

/** @noble/curves' multiply for public values (not constant time), in TypeScript. */
export const p256Fallback: P256Api = {
  native: false,
  mulAdd(u1, qx, qy, u2) {
    // Strauss-Shamir on one doubling chain, as @noble/curves' own verify does it.
    const R = p256.Point.BASE.mulAddUnsafe(u1, p256.Point.fromAffine({ x: qx, y: qy }), u2);
    return R.is0() ? null : R.toAffine().x;
  },
};
