// The firmware's CA bundle (src/net/ca-roots.ts, made by tools/gen-ca-roots.mjs)
// in the form the Moddable SDK's TLS validates against: its certificate
// manager (modules/crypt/ssl/ssl_cert.js) takes the authority key identifier
// of the last certificate a server sends, finds it among the 20-byte subject
// key identifiers of the resource "ca.ski" at slot i, and checks the chain
// against the DER certificate in resource "ca<i>.der". tools/build-device.mjs
// writes that store into build/device/<type>/tls/, which manifest.json lists
// as resources in place of the SDK's own store.
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
/** id-ce-subjectKeyIdentifier, 2.5.29.14, as DER content bytes. */
const SKI_OID = '551d0e';
/** The width of one ca.ski slot (a SHA-1 sized key identifier). */
export const SKI_BYTES = 20;

/** The PEM roots the firmware embeds (the release bundle: no test CA). */
export function caRootsPem(root) {
  return readFileSync(join(root, 'src/net/ca-roots.ts'), 'utf8').match(PEM_BLOCK) ?? [];
}

/** One DER element at `at`: its tag, where its content starts and ends. */
function element(der, at) {
  const tag = der[at];
  let len = der[at + 1];
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n < 1 || n > 3) throw new Error(`DER length of ${n} bytes at ${at}`);
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[start + i];
    start += n;
  }
  if (tag === undefined || start + len > der.length) throw new Error(`truncated DER at ${at}`);
  return { tag, start, end: start + len };
}

function children(der, parent) {
  const out = [];
  for (let at = parent.start; at < parent.end; ) {
    const e = element(der, at);
    out.push(e);
    at = e.end;
  }
  return out;
}

/** The subjectKeyIdentifier extension's key identifier of a DER certificate, or null. */
export function subjectKeyIdentifier(der) {
  const cert = element(der, 0);
  const tbs = children(der, cert)[0];
  const extensions = children(der, tbs).find((e) => e.tag === 0xa3);
  if (!extensions) return null;
  for (const ext of children(der, children(der, extensions)[0])) {
    const parts = children(der, ext);
    const oid = parts[0];
    if (oid.tag !== 0x06 || Buffer.from(der.subarray(oid.start, oid.end)).toString('hex') !== SKI_OID) continue;
    const value = parts[parts.length - 1]; // after the optional critical flag
    const inner = element(der, value.start);
    if (inner.tag !== 0x04) throw new Error('subjectKeyIdentifier is not an OCTET STRING');
    return der.subarray(inner.start, inner.end);
  }
  return null;
}

/**
 * Writes the SDK-form store for these PEM roots into dir (replacing it):
 * ca.ski with slot 0 left zero (an authority key identifier is never all
 * zeros, so it matches nothing) and root n in slot n and ca<n>.der.
 * Refuses a root without a 20-byte key identifier: the SDK could never
 * match it, so it would silently not be trusted.
 */
export function writeCaStore(dir, pems) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const ski = Buffer.alloc(SKI_BYTES * (pems.length + 1));
  const roots = pems.map((pem, i) => {
    const cert = new X509Certificate(pem);
    const der = cert.raw;
    const id = subjectKeyIdentifier(der);
    const name = /CN=([^\n]*)/.exec(cert.subject)?.[1] ?? cert.subject;
    if (!id || id.length !== SKI_BYTES) throw new Error(`CA root ${name}: no ${SKI_BYTES}-byte subject key identifier, which the SDK's store needs`);
    const slot = i + 1;
    Buffer.from(id).copy(ski, slot * SKI_BYTES);
    writeFileSync(join(dir, `ca${slot}.der`), der);
    return { slot, name, ski: Buffer.from(id).toString('hex'), validTo: cert.validTo };
  });
  writeFileSync(join(dir, 'ca.ski'), ski);
  return roots;
}
