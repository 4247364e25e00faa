// Types for tools/ota-sign.mjs.
export const OTA_BRAND: string;
export function signedMessage(schema: 1 | 2, version: string, variant: string, sha256Hex: string): Buffer;
export function loadSigningKey(pem: string): { secret: Uint8Array; publicKeyHex: string };
export function publicKeyHex(pem: string): string;
export function signDer(secret: Uint8Array, message: Uint8Array): Buffer;
export function signVariant(secret: Uint8Array, schema: 1 | 2, version: string, variant: string, sha256Hex: string): string;
