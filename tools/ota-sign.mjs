// Update signing, shared by tools/release.mjs and the tests: the signed
// message (the same bytes as src/ota/signed-message.ts builds on the device;
// a unit test holds the two together), P-256 keys from PEM, and ECDSA-SHA256
// signatures with @noble/curves in DER (what `openssl dgst -sha256 -sign`
// writes), base64 in the manifest.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';

export const OTA_BRAND = 'desk';

/** The signed text: marker, version, type (or build tag for schema 1), sha256 hex, each + '\n'. */
export function signedMessage(schema, version, variant, sha256Hex) {
  return Buffer.from([`${OTA_BRAND}-ota-v${schema}`, version, variant, sha256Hex, ''].join('\n'), 'utf8');
}

function b64u(s) {
  return Buffer.from(s, 'base64url');
}

/** A P-256 private key in PEM (SEC1 or PKCS#8): its 32-byte scalar and uncompressed public key hex. */
export function loadSigningKey(pem) {
  const key = createPrivateKey(pem);
  const jwk = key.export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw new Error('the signing key is not a P-256 EC key');
  const secret = new Uint8Array(b64u(jwk.d));
  return { secret, publicKeyHex: '04' + b64u(jwk.x).toString('hex') + b64u(jwk.y).toString('hex') };
}

/** The uncompressed public key hex of a PEM public or private key. */
export function publicKeyHex(pem) {
  const jwk = createPublicKey(pem).export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw new Error('not a P-256 EC key');
  return '04' + b64u(jwk.x).toString('hex') + b64u(jwk.y).toString('hex');
}

/** ECDSA P-256 over SHA-256(message), DER-encoded (like openssl), as bytes. */
export function signDer(secret, message) {
  return Buffer.from(p256.sign(new Uint8Array(message), secret, { prehash: true, lowS: false, format: 'der' }));
}

/** The manifest's sig for one variant. */
export function signVariant(secret, schema, version, variant, sha256Hex) {
  return signDer(secret, signedMessage(schema, version, variant, sha256Hex)).toString('base64');
}
