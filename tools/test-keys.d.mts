// Types for tools/test-keys.mjs.
export const TEST_KEYS_DIR: string;
export function makeSigningKey(path: string): string;
export function ensureTestSigningKey(): { path: string; pem: string; publicKeyHex: string };
