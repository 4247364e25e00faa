// Checks an update signature: ECDSA P-256 over SHA-256 of the signed message
// (src/ota/signed-message.ts), against each compiled-in key. The message is
// hashed with the SHA-256 hotspot and handed to @noble/curves prehashed.
//
// Accepted signature forms, base64 in the manifest's `sig`: ASN.1 DER (what
// `openssl dgst -sha256 -sign` writes, and what tools/release.mjs writes) or
// the 64-byte compact r||s. High-S values are accepted, because openssl does
// not normalise S; a signature is not an identifier here, so malleability
// does not matter.

import { p256 } from '@noble/curves/nist.js';
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

/** The key that signed `message`, or null when none of `keys` did. */
export function verifySignature(message: Uint8Array, signature: Uint8Array, keys: readonly TrustedKey[], sha256: Sha256Api): TrustedKey | null {
  const h = sha256.create();
  h.update(message);
  const digest = h.digest();
  const format = signature.length === 64 ? 'compact' : 'der';
  for (const key of keys) {
    const pub = keyBytes(key);
    if (!pub) continue;
    try {
      if (p256.verify(signature, digest, pub, { prehash: false, lowS: false, format })) return key;
    } catch {
      // a malformed signature or key verifies nothing
    }
  }
  return null;
}
