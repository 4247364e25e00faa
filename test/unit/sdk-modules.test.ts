// The device bundle's SDK imports are all mapped: every module specifier the
// per-board firmware bundle leaves to mcconfig is either mapped by one of our
// own manifests or listed in hosts/esp32/sdk-modules.json with the SDK
// manifest that maps it, and the board's manifest chain includes that
// manifest. And the TLS that the HAL opens validates against our CA bundle:
// the build writes it as the SDK's certificate store, which the manifest
// puts in place of the SDK's own.
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleDevice, SDK_MODULES } from '../../tools/build-device.mjs';
import { caRootsPem, SKI_BYTES, subjectKeyIdentifier } from '../../tools/ca-store.mjs';
import { DEVICE_TYPES } from '../../src/hal/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = mkdtempSync(join(tmpdir(), 'sdk-modules-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const IMPORT = /^import .* from "([^"]+)";$/gm;

interface Manifest {
  include?: string | string[];
  modules?: Record<string, unknown>;
  resources?: Record<string, string[]>;
  ble?: Record<string, string[]>;
  platforms?: Record<string, Manifest>;
}
const load = (path: string): Manifest => JSON.parse(readFileSync(path, 'utf8')) as Manifest;
const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The SDK manifests a board's manifest chain includes, and the specifiers our own manifests map. */
function chain(path: string, acc = { sdk: new Set<string>(), own: new Set<string>(), seen: new Set<string>() }) {
  if (acc.seen.has(path)) return acc;
  acc.seen.add(path);
  const m = load(path);
  for (const section of [m, m.platforms?.['esp32'] ?? {}]) {
    for (const key of Object.keys(section.modules ?? {})) if (key !== '*' && key !== '~') acc.own.add(key);
    for (const inc of list(section.include)) {
      if (inc.startsWith('$(MODDABLE)/')) acc.sdk.add(inc);
      else chain(inc.replace('$(DESK_ROOT)', ROOT), acc);
    }
  }
  return acc;
}

/** The imports nothing maps: neither our manifests nor an included SDK manifest named in sdk-modules.json. */
function unmapped(imports: string[], c: { sdk: Set<string>; own: Set<string> }): string[] {
  return imports.filter((i) => !c.own.has(i) && !(i in SDK_MODULES && c.sdk.has(SDK_MODULES[i])));
}

describe('SDK module specifiers of the device bundle', () => {
  const used = new Set<string>();
  for (const board of DEVICE_TYPES) {
    it(`${board}: every import is mapped by a manifest the board includes`, async () => {
      const { outDir } = await bundleDevice(board, { outRoot: out, version: 'v1.2.3' });
      const imports = [...readFileSync(join(outDir, 'firmware.js'), 'utf8').matchAll(IMPORT)].map((m) => m[1]!);
      imports.forEach((i) => used.add(i));
      const c = chain(join(ROOT, 'boards', board, 'manifest.json'));
      expect(imports).toContain('embedded:io/socket/tcp/tls');
      expect(unmapped(imports, c)).toEqual([]);
      // the check bites: without the TLS socket's manifest, its specifier is unmapped
      const withoutTls = { ...c, sdk: new Set([...c.sdk].filter((m) => !m.includes('tlssocket'))) };
      expect(unmapped(imports, withoutTls)).toEqual(['embedded:io/socket/tcp/tls']);
      // main.js's import of the firmware module is ours
      expect(c.own.has('firmware') && c.own.has('desk-native')).toBe(true);
    }, 60_000);
  }

  it('lists no SDK module the bundles do not import', () => {
    expect(Object.keys(SDK_MODULES).filter((m) => !used.has(m))).toEqual([]);
  });
});

describe('the CA bundle as the SDK certificate store', () => {
  const pems = caRootsPem(ROOT);

  it('manifest.json lists the generated store and drops the SDK index, and the host includes the TLS socket', () => {
    const top = load(join(ROOT, 'manifest.json'));
    expect(top.resources?.['*']).toContain('$(DESK_FIRMWARE)/tls/*');
    expect(top.resources?.['~']).toContain('$(MODDABLE)/modules/crypt/data/ca');
    expect(list(load(join(ROOT, 'hosts/esp32/manifest.json')).include)).toContain('$(MODDABLE)/examples/io/tcp/tlssocket/manifest.json');
  });

  it('writes every embedded root where the certificate manager looks it up by key identifier', async () => {
    const { outDir, caRoots } = await bundleDevice('ring-tft', { outRoot: out, version: 'v1.2.3' });
    const dir = join(outDir, 'tls');
    const index = readFileSync(join(dir, 'ca.ski'));
    expect(pems.length).toBeGreaterThanOrEqual(16);
    expect(caRoots).toHaveLength(pems.length);
    expect(index.length).toBe(SKI_BYTES * (pems.length + 1));
    expect(readdirSync(dir).sort()).toEqual(['ca.ski', ...pems.map((_, i) => `ca${i + 1}.der`)].sort());
    // ssl_cert.js: the slot whose 20 bytes equal an issuer's key identifier names ca<slot>.der
    const lookup = (aki: Uint8Array): number => {
      for (let i = 0; (i + 1) * SKI_BYTES <= index.length; i++) if (index.subarray(i * SKI_BYTES, (i + 1) * SKI_BYTES).equals(aki)) return i;
      return -1;
    };
    for (const pem of pems) {
      const der = new X509Certificate(pem).raw;
      const slot = lookup(subjectKeyIdentifier(der)!);
      expect(slot).toBeGreaterThan(0);
      expect(readFileSync(join(dir, `ca${slot}.der`)).equals(der)).toBe(true);
    }
    expect(lookup(new Uint8Array(SKI_BYTES).fill(7))).toBe(-1);
  }, 60_000);

  it('reads the same key identifiers as openssl', () => {
    const tmp = join(out, 'root.pem');
    for (const pem of pems) {
      writeFileSync(tmp, pem);
      const r = spawnSync('openssl', ['x509', '-in', tmp, '-noout', '-ext', 'subjectKeyIdentifier'], { encoding: 'utf8' });
      if (r.error) return; // no openssl on this machine: the lookup test above still holds
      const hex = /\n\s*([0-9A-F:]+)\s*$/.exec(r.stdout)![1]!.replace(/:/g, '').toLowerCase();
      expect(Buffer.from(subjectKeyIdentifier(new X509Certificate(pem).raw)!).toString('hex')).toBe(hex);
    }
  });
});
