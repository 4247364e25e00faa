// The local test CA (made on demand with openssl, never committed): the
// simulator's test builds trust it next to the real roots, and the local
// fake servers (provider emulator, update server, relay) present
// certificates it issued for whatever names they impersonate.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Not imported from build.mjs: build.mjs loads this module while it runs.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const TEST_CA_DIR = join(ROOT, 'build/test-ca');

function openssl(args, cwd) {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Creates the CA once; returns the paths of its certificate and key. */
export function ensureTestCa() {
  const cert = join(TEST_CA_DIR, 'ca.pem');
  const key = join(TEST_CA_DIR, 'ca.key');
  if (!existsSync(cert) || !existsSync(key)) {
    mkdirSync(TEST_CA_DIR, { recursive: true });
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key], TEST_CA_DIR);
    openssl(['req', '-x509', '-new', '-key', key, '-sha256', '-days', '3650', '-subj', '/CN=Desk assistant local test CA', '-out', cert], TEST_CA_DIR);
  }
  return { cert, key };
}

/**
 * A server certificate from the test CA for the given DNS names (and
 * 127.0.0.1); cached by the names. Returns PEM text of cert and key; cert is
 * the chain a server sends, the certificate and then the CA's, as real
 * servers send theirs: the Moddable SDK's TLS (modules/crypt/ssl/ssl_cert.js)
 * checks the name only on a certificate that comes with its issuer's, and
 * refuses a lone one (docs/device.md, "TLS and the CA store").
 */
export function issueTestCert(names) {
  const ca = ensureTestCa();
  const id = createHash('sha256').update(names.join(',')).digest('hex').slice(0, 12);
  const dir = join(TEST_CA_DIR, 'issued');
  mkdirSync(dir, { recursive: true });
  const cert = join(dir, `${id}.pem`);
  const key = join(dir, `${id}.key`);
  if (!existsSync(cert)) {
    const ext = join(dir, `${id}.ext`);
    writeFileSync(ext, `subjectAltName=${[...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',')}\nextendedKeyUsage=serverAuth\n`);
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key], dir);
    openssl(['req', '-new', '-key', key, '-subj', `/CN=${names[0]}`, '-out', `${id}.csr`], dir);
    openssl(['x509', '-req', '-in', `${id}.csr`, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '825', '-sha256', '-extfile', ext, '-out', cert], dir);
  }
  return { cert: readFileSync(cert, 'utf8') + readFileSync(ca.cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

export function testCaPem() {
  return readFileSync(ensureTestCa().cert, 'utf8');
}
