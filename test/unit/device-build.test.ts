// The device build as far as it runs without the Moddable SDK: the clear
// refusal without an SDK and the reason ESP-IDF's stage cannot run, the
// per-board firmware bundle (release defines only, only the board's drivers,
// the Notifier's GATT table), the mcconfig command line, and that every host
// function desk-native.js binds exists in the C the manifests link. What the
// SDK runs of the build is test/unit/device-sdk.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleDevice, checkIdf, mcconfigArgs } from '../../tools/build-device.mjs';
import { testCaPem } from '../../tools/test-ca.mjs';
import { buildWebPage, webPageDefine } from '../../tools/web-page.mjs';
import { ensureTestSigningKey } from '../../tools/test-keys.mjs';
import { DEVICE_TYPES } from '../../src/hal/index.ts';
import { gattMismatch } from '../../hosts/esp32/hal/gatt-table.ts';
import { CONFIG_UUID, FRAME_UUID, NOTIFIER_GATT, NOTIFIER_SERVICE_UUID, STATUS_UUID } from '../../src/notifier/gatt.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = mkdtempSync(join(tmpdir(), 'device-build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const DRIVER_MANIFESTS: Record<string, string> = {
  ili9341: '$(MODDABLE)/modules/drivers/ili9341/manifest.json',
  gc9a01: '$(MODDABLE)/modules/drivers/gc9a01/manifest.json',
  ft6206: '$(MODDABLE)/modules/drivers/ft6206/manifest.json',
  gt911: '$(MODDABLE)/modules/drivers/gt911/manifest.json',
  'pins/audioout': '$(MODDABLE)/modules/pins/i2s/manifest.json',
};
const IMPORT = /^import .* from "([^"]+)";$/gm;

describe('npm run build:device without an SDK or ESP-IDF', () => {
  it('names what the C compile needs', () => {
    expect(checkIdf({}).reason).toMatch(/^IDF_PATH is not set: ESP-IDF v6\.0 \(with xtensa-esp32s3-elf-gcc\)/);
    expect(checkIdf({ IDF_PATH: out }).reason).toMatch(/is not an ESP-IDF checkout/);
  });

  it('stops before building without an SDK, saying why, and refuses an unknown board', () => {
    // no MODDABLE, and an archive that is not there: no SDK at all
    const env = { ...process.env, MODDABLE: '', IDF_PATH: '', DESK_SDK_ARCHIVE: join(out, 'no-such-sdk.tar.xz') };
    const r = spawnSync(process.execPath, ['tools/build-device.mjs', '--board', 'panel-35'], { cwd: ROOT, encoding: 'utf8', env });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^build:device: cannot build the panel-35 image here: no Moddable SDK: MODDABLE is not set and no moddable-sdk-8\.2\.3\.tar\.xz was found/);
    const flash = spawnSync(process.execPath, ['tools/build-device.mjs', '--flash', '--board', 'ring-tft'], { cwd: ROOT, encoding: 'utf8', env });
    expect(flash.status).toBe(1);
    expect(flash.stderr).toMatch(/^flash: cannot build the ring-tft image here/);
    const bad = spawnSync(process.execPath, ['tools/build-device.mjs', '--board', 'eink'], { cwd: ROOT, encoding: 'utf8', env });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--board must be one of ring-tft, panel-28, panel-35, panel-40/);
  });

  it('runs mcconfig for our esp32s3 target on the board manifest (the makefile alone, make, deploy to flash)', () => {
    const args = mcconfigArgs('panel-40');
    expect(args.slice(0, 3)).toEqual(['-m', '-p', 'esp32:hosts/esp32/target']);
    expect(args.at(-1)).toBe(join(ROOT, 'boards/panel-40/manifest.json'));
    expect(mcconfigArgs('panel-40', { make: false }).slice(0, 2)).toEqual(['-p', 'esp32:hosts/esp32/target']);
    expect(mcconfigArgs('panel-40', { flash: true, port: '/dev/ttyACM0' })).toEqual(expect.arrayContaining(['-t', 'deploy', 'UPLOAD_PORT=/dev/ttyACM0']));
  });
});

describe('the device firmware bundle', () => {
  let page: { bytes: number; etag: string } | null = null;
  for (const board of DEVICE_TYPES) {
    it(`${board}: a release module importing only what its manifest links`, async () => {
      const { outDir, build, gatt } = await bundleDevice(board, { outRoot: out, version: 'v9.8.7' });
      const js = readFileSync(join(outDir, 'firmware.js'), 'utf8');
      // The Notifier's GATT service compiled in: the SDK's JSON and the table ble.start() is held to.
      expect(gatt).toEqual([{ uuid: NOTIFIER_SERVICE_UUID, characteristics: [STATUS_UUID, FRAME_UUID, CONFIG_UUID] }]);
      expect(gattMismatch(NOTIFIER_GATT, gatt)).toBeNull();
      expect(readdirSync(join(outDir, 'bleservices'))).toEqual(['service0.json']);
      expect(js).toContain(FRAME_UUID);
      expect(build.testBuild).toBe(false);
      expect(js).toContain(`"${board}"`);
      // a release image carries neither the test CA nor the local test signing key
      expect(js).not.toContain(testCaPem().trim().split('\n')[1]);
      expect(js).not.toContain(ensureTestSigningKey().publicKeyHex);
      const imports = [...js.matchAll(IMPORT)].map((m) => m[1]!);
      const manifest = JSON.parse(readFileSync(join(ROOT, 'boards', board, 'manifest.json'), 'utf8')) as { platforms?: { esp32?: { include?: string[] } } };
      const drivers = manifest.platforms?.esp32?.include ?? [];
      for (const name of imports.filter((i) => i in DRIVER_MANIFESTS)) expect(drivers).toContain(DRIVER_MANIFESTS[name]);
      for (const [name, path] of Object.entries(DRIVER_MANIFESTS)) if (drivers.includes(path)) expect(imports).toContain(name);
      expect(imports).toContain('desk-native');
      // the owner's page is built in (not the shell that says the build carries none): its chunks and its ETag
      page ??= webPageDefine(await buildWebPage());
      expect(js.includes(`bytes: ${page.bytes}, etag: '${page.etag}'`), `the page (etag ${page.etag}) built into the ${board} bundle`).toBe(true);
      expect(readFileSync(join(outDir, 'sdkconfig/sdkconfig.defaults'), 'utf8')).toMatch(/CONFIG_APP_PROJECT_VER="v9.8.7"\n$/);
    }, 60_000);
  }
});

describe('desk-native.js', () => {
  const js = readFileSync(join(ROOT, 'hosts/esp32/native/desk-native.js'), 'utf8');
  const bindings = [...js.matchAll(/^function (\w+)\([^)]*\) @ "(\w+)";$/gm)].map((m) => ({ name: m[1]!, c: m[2]! }));
  const cFiles = [
    'modules/vecdot/xs_vecdot.c', 'modules/lexical/xs_lexical.c', 'modules/sha256/xs_sha256.c', 'modules/utf8/xs_utf8.c', 'modules/p256/xs_p256.c', 'modules/mp3/xs_mp3.c',
    ...['desk_sd', 'desk_ota', 'desk_sys', 'desk_nvs', 'desk_console', 'desk_panel', 'desk_ring'].map((f) => `hosts/esp32/native/${f}.c`),
  ].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');

  it('binds every host function to C that the manifests link', () => {
    expect(bindings.length).toBeGreaterThan(40);
    const missing = bindings.filter((b) => !new RegExp(`^void ${b.c}\\(xsMachine \\*the\\)$`, 'm').test(cFiles)).map((b) => b.c);
    expect(missing).toEqual([]);
  });

  it('exports what desk-native.d.ts declares, and nothing else', () => {
    const dts = readFileSync(join(ROOT, 'hosts/esp32/native/desk-native.d.ts'), 'utf8');
    const declared = [...dts.matchAll(/^export declare (?:const|function) (\w+)/gm)].map((m) => m[1]).sort();
    const exported = /export \{([^}]*)\}/.exec(js)![1]!.split(',').map((s) => s.trim()).filter(Boolean).sort();
    expect(exported).toEqual(declared);
    expect(bindings.map((b) => b.name).sort()).toEqual(declared);
  });
});
