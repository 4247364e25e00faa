// The local test signing key (made on demand with openssl under build/,
// never committed), like the test CA: test builds of the firmware trust its
// public key next to the release keys (tools/build.mjs defines
// __TEST_OTA_PUBKEY__; src/ota/keys.ts), so tests can sign update images.
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publicKeyHex } from './ota-sign.mjs';

// Not imported from build.mjs: build.mjs loads this module while it runs.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const TEST_KEYS_DIR = join(ROOT, 'build/test-keys');

/** Makes a fresh P-256 private key in PEM with openssl (also for throwaway "wrong" keys). */
export function makeSigningKey(path) {
  mkdirSync(dirname(path), { recursive: true });
  execFileSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', path], { stdio: ['ignore', 'ignore', 'pipe'] });
  return readFileSync(path, 'utf8');
}

/** The test signing key: its PEM path and text, and its public key hex. */
export function ensureTestSigningKey() {
  const path = join(TEST_KEYS_DIR, 'ota-test.key.pem');
  if (!existsSync(path)) {
    // Made aside and linked into place, so processes racing here all end up with the first key.
    const tmp = `${path}.${process.pid}.tmp`;
    makeSigningKey(tmp);
    try {
      linkSync(tmp, path);
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  const pem = readFileSync(path, 'utf8');
  return { path, pem, publicKeyHex: publicKeyHex(pem) };
}
