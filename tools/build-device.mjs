#!/usr/bin/env node
// `npm run build:device -- --board <type>` and `npm run flash -- --board <type>`:
// the device build (docs/device.md).
//   1. bundles hosts/esp32/entry.ts with src/ into build/device/<type>/firmware.js
//      (an ES module: the Moddable SDK's modules and desk-native stay imports),
//      with the owner's web page built in (tools/web-page.mjs);
//      release build: no test CA, no test signing key;
//   2. writes build/device/<type>/sdkconfig (hosts/esp32/sdkconfig plus the
//      firmware version for esp_app_desc_t, which tools/release.mjs reads);
//   3. writes build/device/<type>/tls/ (the CA bundle as the SDK's certificate
//      store: tools/ca-store.mjs) and build/device/<type>/bleservices/ (the
//      GATT table from the firmware's own definition: tools/gatt-json.mjs),
//      both listed by manifest.json;
//   4. runs the SDK's mcconfig on boards/<type>/manifest.json for esp32/esp32s3
//      (flash: the same with -t deploy, which builds and writes the device).
// Without an SDK (MODDABLE unset or wrong) or without ESP-IDF (IDF_PATH), it
// stops before mcconfig with a message naming what is missing.
//
// Usage: node tools/build-device.mjs --board <type> [--flash] [--port DEV] [--bundle-only]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { ROOT, XS_TARGET, firmwareVersion, gitBuildId } from './build.mjs';
import { caRootsPem, writeCaStore } from './ca-store.mjs';
import { docsPack } from './docs-pack.mjs';
import { buildWebPage, webPageDefine } from './web-page.mjs';
import { loadGattServices, writeBleServices } from './gatt-json.mjs';

export const DEVICE_TYPES = ['ring-tft', 'panel-28', 'panel-35', 'panel-40'];
/** The SDK's build target every board uses (a generic ESP32-S3). */
export const SDK_PLATFORM = 'esp32/esp32s3';
/**
 * The Moddable SDK modules the bundle may import, each with the SDK manifest
 * that maps it (hosts/esp32/sdk-modules.json): the bundle leaves exactly these
 * to the module map, so an import nobody maps fails the bundle here.
 */
export const SDK_MODULES = JSON.parse(readFileSync(join(ROOT, 'hosts/esp32/sdk-modules.json'), 'utf8')).modules;
const SDK_IMPORT = new RegExp(`^(${Object.keys(SDK_MODULES).map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);

/**
 * What the device build needs from the machine, or the reasons it cannot run:
 * MODDABLE pointing at an SDK with mcconfig, and ESP-IDF's IDF_PATH.
 */
export function checkToolchain(env = process.env) {
  const missing = [];
  const sdk = env.MODDABLE;
  let mcconfig = null;
  if (!sdk) missing.push('MODDABLE is not set: point it at a Moddable SDK 8.x checkout (git clone https://github.com/Moddable-OpenSource/moddable, then build its tools: see docs/device.md)');
  else if (!existsSync(join(sdk, 'examples/manifest_base.json'))) missing.push(`MODDABLE=${sdk} is not a Moddable SDK (no examples/manifest_base.json there)`);
  else {
    mcconfig = ['lin', 'mac', 'win'].map((os) => join(sdk, 'build/bin', os, 'release', 'mcconfig')).find((p) => existsSync(p)) ?? null;
    if (!mcconfig) missing.push(`the SDK at ${sdk} has no built mcconfig (build/bin/<os>/release/mcconfig): build the SDK tools first (docs/device.md)`);
  }
  if (!env.IDF_PATH) missing.push('IDF_PATH is not set: install ESP-IDF 5.x and source its export.sh (the Moddable SDK builds esp32 targets with it)');
  else if (!existsSync(join(env.IDF_PATH, 'tools/idf.py'))) missing.push(`IDF_PATH=${env.IDF_PATH} is not an ESP-IDF checkout (no tools/idf.py)`);
  return { ok: missing.length === 0, missing, mcconfig };
}

/** Bundles the device firmware module; returns its folder. */
export async function bundleDevice(board, { outRoot = join(ROOT, 'build/device'), version = firmwareVersion() } = {}) {
  if (!DEVICE_TYPES.includes(board)) throw new Error(`--board must be one of ${DEVICE_TYPES.join(', ')}`);
  const outDir = join(outRoot, board);
  mkdirSync(outDir, { recursive: true });
  const build = { version, buildId: gitBuildId(), testBuild: false };
  const caRoots = writeCaStore(join(outDir, 'tls'), caRootsPem(ROOT));
  const gatt = writeBleServices(join(outDir, 'bleservices'), await loadGattServices(ROOT));
  await esbuild.build({
    entryPoints: [join(ROOT, 'hosts/esp32/entry.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    ...XS_TARGET,
    outfile: join(outDir, 'firmware.js'),
    // A release image: the documentation pack, the owner's web page (as the
    // simulator's image carries it), the board and the build; never the test
    // CA (__TEST_CA_PEM__) or the test signing key (__TEST_OTA_PUBKEY__).
    // __DESK_GATT__: the GATT table compiled in, which hal/ble.ts holds ble.start() to.
    define: {
      __DOCS_PACK__: JSON.stringify(docsPack(ROOT)),
      __WEB_PAGE__: JSON.stringify(webPageDefine(await buildWebPage())),
      __DESK_BOARD__: JSON.stringify(board),
      __DESK_BUILD__: JSON.stringify(build),
      __DESK_GATT__: JSON.stringify(gatt),
    },
    legalComments: 'none',
    logLevel: 'warning',
    loader: { '.md': 'text', '.svg': 'text', '.html': 'text' },
    plugins: [
      {
        name: 'moddable-externals',
        setup(b) {
          // the SDK's modules and our host-function module stay imports for mcconfig to link
          b.onResolve({ filter: SDK_IMPORT }, (a) => ({ path: a.path, external: true }));
          b.onResolve({ filter: /desk-native\.js$/ }, () => ({ path: 'desk-native', external: true }));
          // only this board's SDK drivers (the ones its manifest links)
          b.onResolve({ filter: /^\.\/drivers\.ts$/ }, () => ({ path: join(ROOT, 'hosts/esp32/hal/drivers', `${board}.ts`) }));
        },
      },
    ],
  });
  const sdkconfig = join(outDir, 'sdkconfig');
  rmSync(sdkconfig, { recursive: true, force: true });
  cpSync(join(ROOT, 'hosts/esp32/sdkconfig'), sdkconfig, { recursive: true });
  const defaults = join(sdkconfig, 'sdkconfig.defaults');
  writeFileSync(defaults, `${readFileSync(defaults, 'utf8')}CONFIG_APP_PROJECT_VER="${version}"\n`);
  return { outDir, build, caRoots, gatt };
}

/** The mcconfig command line for a board (flash: build and write the device). */
export function mcconfigArgs(board, { flash = false, port } = {}) {
  const args = ['-m', '-p', SDK_PLATFORM, '-o', join(ROOT, 'build/device', board, 'sdk'), join(ROOT, 'boards', board, 'manifest.json')];
  if (flash) args.splice(0, 0, '-t', 'deploy');
  if (port) args.push(`UPLOAD_PORT=${port}`);
  return args;
}

async function main() {
  const { values } = parseArgs({
    options: {
      board: { type: 'string' },
      flash: { type: 'boolean', default: false },
      port: { type: 'string' },
      'bundle-only': { type: 'boolean', default: false },
    },
  });
  const what = values.flash ? 'flash' : 'build:device';
  const board = values.board;
  if (!board || !DEVICE_TYPES.includes(board)) {
    console.error(`${what}: --board must be one of ${DEVICE_TYPES.join(', ')} (npm run ${what} -- --board panel-35)`);
    process.exit(2);
  }
  const tools = checkToolchain();
  if (!tools.ok && !values['bundle-only']) {
    console.error(`${what}: cannot build the ${board} image here:\n${tools.missing.map((m) => `  - ${m}`).join('\n')}\n(the firmware bundle alone: node tools/build-device.mjs --board ${board} --bundle-only)`);
    process.exit(1);
  }
  const { outDir } = await bundleDevice(board);
  console.log(`${what}: bundled ${join(outDir, 'firmware.js').slice(ROOT.length + 1)} (${statSync(join(outDir, 'firmware.js')).size} bytes)`);
  if (values['bundle-only']) return;
  const args = mcconfigArgs(board, { flash: values.flash, port: values.port });
  console.log(`${what}: ${tools.mcconfig} ${args.join(' ')}`);
  const r = spawnSync(tools.mcconfig, args, { stdio: 'inherit', env: { ...process.env, DESK_ROOT: ROOT } });
  if (r.status !== 0) process.exit(r.status ?? 1);
  const image = execFileSync('find', [join(ROOT, 'build/device', board, 'sdk'), '-name', 'xs_esp32.bin'], { encoding: 'utf8' }).trim().split('\n')[0];
  if (image) console.log(`${what}: image ${image} (release it with tools/release.mjs --image ${image})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
