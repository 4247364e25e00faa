// The public keys update signatures are checked against (spec Authentication
// 17 and Versioning 5): compiled into the firmware, so whoever controls the
// update base still cannot make a device run an image we did not sign.
//
// Rotation (Versioning 5), one step per release:
//   1. generate the new key pair (tools/release.mjs --new-key <file>), append
//      its public key below, and ship that release signed with the OLD key;
//   2. switch the release secret to the new private key; later releases are
//      signed with it (every device already trusts it since step 1);
//   3. one release after that, drop the old entry.
// Never remove a key before a release signed by its successor has shipped.
//
// The private half of a release key never enters this repository: the
// release job reads it from the secret OTA_SIGNING_KEY (PEM, P-256); its
// custody is the release owner's (docs/decisions.md, "Firmware updates").
//
// Test builds also trust the local test signing key that tools/test-keys.mjs
// makes under build/ (tools/build.mjs injects its public key as
// __TEST_OTA_PUBKEY__, as it injects the test CA), so tests can sign images.

declare const __TEST_OTA_PUBKEY__: string | undefined;

export interface TrustedKey {
  /** A label for logs and the rotation procedure. */
  id: string;
  /** The uncompressed SEC1 public point, 65 bytes as lowercase hex ('04' + X + Y). */
  publicKeyHex: string;
}

/** Release keys, oldest first. */
export const RELEASE_KEYS: readonly TrustedKey[] = [
  {
    id: 'release-2026-1',
    publicKeyHex:
      '045e4c14b9c62d66efa76390ebc5b53bb8e68df98549f74495533077fea5fdcaf5e663d50b862a9cab16db6a934b83eb13e905ee9fd985493254be4f12ba7cf38d',
  },
];

/** The keys this build trusts: the release keys, plus the local test key in test builds. */
export const TRUSTED_KEYS: readonly TrustedKey[] =
  typeof __TEST_OTA_PUBKEY__ === 'string' && __TEST_OTA_PUBKEY__.length > 0
    ? [...RELEASE_KEYS, { id: 'test-local', publicKeyHex: __TEST_OTA_PUBKEY__ }]
    : RELEASE_KEYS;
