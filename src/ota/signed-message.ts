// The text an update signature covers (spec Versioning 4): a version marker,
// the version, the device type and the image's lowercase SHA-256 hex, each
// followed by a newline. The device rebuilds it from what it downloaded; the
// release tool (tools/release.mjs) builds the same bytes to sign them.
//
// The brand in the marker is the neutral 'desk' (docs/decisions.md,
// "Firmware updates"). The legacy v1 message of the transition release has
// the same shape with marker 'desk-ota-v1' and the build tag in place of the
// type, so a v1 signature can never be replayed as a v2 one.

import { encode } from '../util/utf8.ts';

export const OTA_BRAND = 'desk';

export type ManifestSchema = 1 | 2;

/** The marker line of a schema's message. */
export function messageMarker(schema: ManifestSchema): string {
  return `${OTA_BRAND}-ota-v${schema}`;
}

/**
 * The signed bytes. `variant` is the device type (schema 2) or the build tag
 * (schema 1); `sha256Hex` is lowercase hex.
 */
export function signedMessage(schema: ManifestSchema, version: string, variant: string, sha256Hex: string): Uint8Array {
  return encode([messageMarker(schema), version, variant, sha256Hex, ''].join('\n'));
}
