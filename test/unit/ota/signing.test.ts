// Update signatures and manifests (spec: Firmware manifest, Versioning 4-5,
// Authentication 17): the signed message is the same bytes on the device and
// in the release tool; signatures made by the release tool verify with the
// openssl command line, and openssl's own signatures verify on the device
// (DER, or compact; high-S accepted); the release tool lays out an update
// base folder and refuses a version that is not the image's.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { p256 } from '@noble/curves/nist.js';
import { sha256Fallback } from '../../../modules/sha256/sha256.ts';
import { RELEASE_KEYS } from '../../../src/ota/keys.ts';
import { parseManifest, resolveImageUrl, selectVariant } from '../../../src/ota/manifest.ts';
import { signedMessage } from '../../../src/ota/signed-message.ts';
import { decodeSignature, verifySignature } from '../../../src/ota/verify.ts';
import { makeImage, ROOT } from '../../../tools/build.mjs';
import { loadSigningKey, signDer, signedMessage as toolMessage, signVariant } from '../../../tools/ota-sign.mjs';
import { imageVersion, release } from '../../../tools/release.mjs';

const dir = mkdtempSync(join(tmpdir(), 'ota-signing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openssl(args: string[]): string {
  return execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const keyPath = join(dir, 'k.pem');
openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyPath]);
openssl(['ec', '-in', keyPath, '-pubout', '-out', join(dir, 'k.pub.pem')]);
const keyPem = readFileSync(keyPath, 'utf8');
const signer = loadSigningKey(keyPem);
const trusted = [{ id: 'k', publicKeyHex: signer.publicKeyHex }];
const SHA = 'ab'.repeat(32);

describe('the signed message', () => {
  it('is marker, version, type and lowercase sha256 hex, each followed by a newline, identical in firmware and tools', () => {
    const text = 'desk-ota-v2\nv1.2.3\npanel-35\n' + SHA + '\n';
    expect(Buffer.from(signedMessage(2, 'v1.2.3', 'panel-35', SHA)).toString('utf8')).toBe(text);
    expect(toolMessage(2, 'v1.2.3', 'panel-35', SHA).toString('utf8')).toBe(text);
    expect(Buffer.from(signedMessage(1, 'v1.2.3', 'panel-35', SHA)).toString('utf8')).toBe(text.replace('-v2', '-v1'));
  });
});

describe('signatures across openssl and the device', () => {
  const msg = signedMessage(2, 'v1.2.3', 'panel-35', SHA);
  it('the release tool signs in DER that `openssl dgst -sha256 -verify` accepts', () => {
    writeFileSync(join(dir, 'msg'), msg);
    writeFileSync(join(dir, 'sig.der'), Buffer.from(signVariant(signer.secret, 2, 'v1.2.3', 'panel-35', SHA), 'base64'));
    expect(openssl(['dgst', '-sha256', '-verify', join(dir, 'k.pub.pem'), '-signature', join(dir, 'sig.der'), join(dir, 'msg')])).toMatch(/Verified OK/);
  });

  it('openssl-made signatures verify on the device, and nothing else does', () => {
    writeFileSync(join(dir, 'msg'), msg);
    for (let i = 0; i < 4; i++) {
      // several, so both low-S and high-S values turn up (openssl does not normalise S)
      const der = execFileSync('openssl', ['dgst', '-sha256', '-sign', keyPath, join(dir, 'msg')]);
      const sig = decodeSignature(der.toString('base64'))!;
      expect(verifySignature(msg, sig, trusted, sha256Fallback)?.id).toBe('k');
      expect(verifySignature(signedMessage(2, 'v1.2.4', 'panel-35', SHA), sig, trusted, sha256Fallback)).toBeNull();
      expect(verifySignature(signedMessage(2, 'v1.2.3', 'panel-28', SHA), sig, trusted, sha256Fallback)).toBeNull();
      expect(verifySignature(msg, sig, RELEASE_KEYS, sha256Fallback)).toBeNull();
    }
  });

  it('accepts the 64-byte compact form and a high-S signature', () => {
    const digest = createHash('sha256').update(msg).digest();
    const compact = p256.sign(digest, signer.secret, { prehash: false, lowS: true });
    const s = p256.Signature.fromBytes(compact);
    const high = new p256.Signature(s.r, p256.Point.CURVE().n - s.s).toBytes('compact');
    for (const sig of [compact, high]) expect(verifySignature(msg, decodeSignature(Buffer.from(sig).toString('base64'))!, trusted, sha256Fallback)).not.toBeNull();
  });

  it('refuses signature text that is not base64 of a plausible signature', () => {
    for (const bad of ['', 'not base64!', Buffer.alloc(63).toString('base64'), Buffer.alloc(70, 1).toString('base64'), Buffer.alloc(64).toString('hex'), 42]) {
      expect(decodeSignature(bad)).toBeNull();
    }
  });

  it('compiles in a valid release public key (its private key is not in the repository)', () => {
    expect(RELEASE_KEYS.length).toBeGreaterThan(0);
    for (const k of RELEASE_KEYS) expect(() => p256.Point.fromHex(k.publicKeyHex)).not.toThrow();
    const pems = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => /\.(pem|key)$/.test(f));
    for (const f of pems) expect(readFileSync(join(ROOT, f), 'utf8')).not.toMatch(/PRIVATE KEY/);
  });
});

describe('manifest helpers', () => {
  it('resolves image urls: absolute as is, relative to the manifest folder, rooted on its origin', () => {
    const m = 'https://u.example/releases/latest/manifest.json';
    expect(resolveImageUrl(m, 'https://cdn.example/a.img')).toBe('https://cdn.example/a.img');
    expect(resolveImageUrl(m, '../v2.0.0/desk-v2.0.0.img')).toBe('https://u.example/releases/v2.0.0/desk-v2.0.0.img');
    expect(resolveImageUrl(m, 'img/a.img?x=1')).toBe('https://u.example/releases/latest/img/a.img?x=1');
    expect(resolveImageUrl(m, '/a.img')).toBe('https://u.example/a.img');
    expect(resolveImageUrl(m, 'file:///etc/passwd')).toBeNull();
    expect(resolveImageUrl(m, '//evil.example/a.img')).toBeNull();
  });

  it('caps otaNotes at 1000 bytes on a character boundary', () => {
    const r = parseManifest(JSON.stringify({ schema: 2, version: 'v1.0.0', notes: '€'.repeat(400), variants: {} }));
    expect(r.ok && Buffer.byteLength(r.manifest.notes)).toBe(999);
  });
});

describe('tools/release.mjs', () => {
  const img = join(dir, 'fw.img');
  writeFileSync(img, makeImage(Buffer.from('/* firmware */'), { version: 'v2.1.0', buildId: 't', target: 'sim' }));

  it('writes the image, <version>/manifest.json and latest/manifest.json, one signed variant per device type', () => {
    const out = join(dir, 'base');
    const manifest = release({ image: img, version: 'v2.1.0', keyPem, out, notes: 'Notes.' });
    expect(readFileSync(join(out, 'latest/manifest.json'), 'utf8')).toBe(readFileSync(join(out, 'v2.1.0/manifest.json'), 'utf8'));
    expect(Object.keys(manifest.variants)).toEqual(['ring-tft', 'panel-28', 'panel-35', 'panel-40']);
    const bytes = readFileSync(join(out, 'v2.1.0/desk-v2.1.0.img'));
    const parsed = parseManifest(readFileSync(join(out, 'latest/manifest.json'), 'utf8'));
    if (!parsed.ok) throw new Error(parsed.detail);
    for (const type of Object.keys(manifest.variants)) {
      const v = selectVariant(parsed.manifest, type, 0x680000);
      if (!v.ok) throw new Error('variant');
      expect(v.variant.size).toBe(bytes.length);
      expect(v.variant.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(resolveImageUrl('https://h/releases/latest/manifest.json', v.variant.url)).toBe('https://h/releases/v2.1.0/desk-v2.1.0.img');
      expect(verifySignature(signedMessage(2, 'v2.1.0', type, v.variant.sha256), v.variant.signature, trusted, sha256Fallback)).not.toBeNull();
      writeFileSync(join(dir, 'm'), toolMessage(2, 'v2.1.0', type, v.variant.sha256));
      writeFileSync(join(dir, 's'), Buffer.from(manifest.variants[type]!.sig, 'base64'));
      expect(openssl(['dgst', '-sha256', '-verify', join(dir, 'k.pub.pem'), '-signature', join(dir, 's'), join(dir, 'm')])).toMatch(/Verified OK/);
    }
  });

  it('does not move latest for a -rc pre-release, and writes absolute urls with --base-url', () => {
    const out = join(dir, 'rc');
    const rcImg = join(dir, 'rc.img');
    writeFileSync(rcImg, makeImage(Buffer.from('x'), { version: 'v2.2.0-rc1', buildId: 't', target: 'sim' }));
    const m = release({ image: rcImg, version: 'v2.2.0-rc1', keyPem, out, baseUrl: 'https://u.example/releases/' });
    expect(existsSync(join(out, 'v2.2.0-rc1/manifest.json'))).toBe(true);
    expect(existsSync(join(out, 'latest'))).toBe(false);
    expect(m.variants['panel-35']!.url).toBe('https://u.example/releases/v2.2.0-rc1/desk-v2.2.0-rc1.img');
  });

  it('refuses a version that is not the one stamped in the image, and unknown types, writing nothing', () => {
    const out = join(dir, 'refused');
    expect(() => release({ image: img, version: 'v2.1.1', keyPem, out })).toThrow(/a release tag must equal the firmware version/);
    expect(() => release({ image: img, version: 'v2.1.0', keyPem, out, types: ['eink'] })).toThrow(/unknown device types/);
    expect(existsSync(out)).toBe(false);
  });

  it('reads the version of an ESP-IDF app image (esp_app_desc_t)', () => {
    const bin = Buffer.alloc(256);
    bin[0] = 0xe9;
    bin.writeUInt32LE(0xabcd5432, 32);
    bin.write('v3.0.0', 48, 'latin1');
    expect(imageVersion(bin)).toBe('v3.0.0');
  });

  it('runs from the command line with the key from OTA_SIGNING_KEY, and signs schema 1 with the v1 message', () => {
    const out = join(dir, 'cli');
    const text = execFileSync(process.execPath, [join(ROOT, 'tools/release.mjs'), '--image', img, '--version', 'v2.1.0', '--out', out, '--schema', '1', '--types', 'panel-35'], {
      encoding: 'utf8',
      env: { ...process.env, OTA_SIGNING_KEY: keyPem },
    });
    expect(text).toMatch(/released v2\.1\.0 for panel-35/);
    const m = JSON.parse(readFileSync(join(out, 'latest/manifest.json'), 'utf8'));
    expect(m.schema).toBe(1);
    const v = m.variants['panel-35'];
    expect(verifySignature(signedMessage(1, 'v2.1.0', 'panel-35', v.sha256), decodeSignature(v.sig)!, trusted, sha256Fallback)).not.toBeNull();
    expect(signDer(signer.secret, new Uint8Array([1])).length).toBeGreaterThan(60);
  });
});
