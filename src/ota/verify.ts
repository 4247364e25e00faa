// Checks an update signature: ECDSA P-256 over SHA-256 of the signed message
// (src/ota/signed-message.ts), against each compiled-in key. The message is
// hashed with the SHA-256 hotspot; @noble/curves decodes and range-checks the
// signature and checks the key is a point of the curve; the verification
// equation (FIPS 186-5 6.4.2: u1 = e/s, u2 = r/s, valid when the x of
// u1*G + u2*Q is r mod n) runs its one costly step, u1*G + u2*Q, on the P-256
// hotspot: the Moddable SDK's C arithmetic where the host has it, else
// @noble/curves' points (modules/p256).
//
// Accepted signature forms, base64 in the manifest's `sig`: ASN.1 DER (what
// `openssl dgst -sha256 -sign` writes, and what tools/release.mjs writes) or
// the 64-byte compact r||s. High-S values are accepted, because openssl does
// not normalise S; a signature is not an identifier here, so malleability
// does not matter.

import { invert } from '@noble/curves/abstract/modular.js';
import { p256 } from '@noble/curves/nist.js';
import { p256Fallback, type P256Api } from '../../modules/p256/p256.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { fromBase64, fromHex } from '../util/encoding.ts';
import type { TrustedKey } from './keys.ts';

/** Decodes the manifest's sig field; null when it is not base64 of a plausible signature. */
export function decodeSignature(text: unknown): Uint8Array | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > 200) return null;
  const bytes = fromBase64(text);
  if (!bytes) return null;
  if (bytes.length === 64) return bytes;
  // DER: SEQUENCE of two INTEGERs, 8 to 72 bytes for P-256.
  if (bytes.length >= 8 && bytes.length <= 72 && bytes[0] === 0x30) return bytes;
  return null;
}

// Decoded at each check (a few keys of 65 bytes, once per update): no cache, which on the
// device would be a Map made at the top level, read-only once preloaded.
function keyBytes(key: TrustedKey): Uint8Array | null {
  return fromHex(key.publicKeyHex);
}

/** The digest as a big-endian integer (SHA-256 and the P-256 order are both 256 bits: no truncation). */
function digestNumber(digest: Uint8Array): bigint {
  let e = 0n;
  for (let i = 0; i < digest.length; i++) e = (e << 8n) | BigInt(digest[i]!);
  return e;
}

/** The key that signed `message`, or null when none of `keys` did. */
export function verifySignature(message: Uint8Array, signature: Uint8Array, keys: readonly TrustedKey[], sha256: Sha256Api, curve: P256Api = p256Fallback): TrustedKey | null {
  const h = sha256.create();
  h.update(message);
  const digest = h.digest();
  let r: bigint;
  let s: bigint;
  try {
    // Rejects r or s outside [1, n-1] and malformed DER.
    ({ r, s } = p256.Signature.fromBytes(signature, signature.length === 64 ? 'compact' : 'der'));
  } catch {
    return null;
  }
  const { n } = p256.Point.CURVE();
  const w = invert(s, n);
  const u1 = (digestNumber(digest) * w) % n;
  const u2 = (r * w) % n;
  for (const key of keys) {
    const pub = keyBytes(key);
    if (!pub) continue;
    let q: { x: bigint; y: bigint };
    try {
      // Rejects a key that is not a point of the curve (or the point at infinity).
      q = p256.Point.fromBytes(pub).toAffine();
    } catch {
      continue;
    }
    const x = curve.mulAdd(u1, q.x, q.y, u2);
    if (x !== null && x % n === r) return key;
  }
  return null;
}
