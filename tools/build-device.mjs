#!/usr/bin/env node
// `npm run build:device -- --board <type>` and `npm run flash -- --board <type>`:
// the device build (docs/device.md, "Build and flash each board"). Every stage
// the Moddable SDK can run without the ESP32-S3's Xtensa compiler runs here:
//   1. bundle: hosts/esp32/entry.ts with src/ into build/device/<type>/firmware.js
//      (an ES module: the SDK's modules and desk-native stay imports), the
//      owner's web page built in; release build: no test CA, no test signing
//      key; beside it sdkconfig/ (hosts/esp32/sdkconfig plus the firmware
//      version, which tools/release.mjs reads back), tls/ (the CA bundle as the
//      SDK's certificate store: tools/ca-store.mjs) and bleservices/ (the GATT
//      table from the firmware's own definition: tools/gatt-json.mjs);
//   2. tsc: hosts/esp32 against the SDK's own typings (tools/device-typecheck.mjs),
//      skipped when nothing it reads changed since it last passed;
//   3. mcconfig -p esp32/esp32s3 on boards/<type>/manifest.json: manifest
//      processing into the makefile under build/device/<type>/sdk;
//   4. that makefile's own rules up to the C: xsc for every module, xsid, the
//      PRELOADING xsl link (mc.xs.c; its figures are printed), mcrez (the
//      resources: mc.resources.c) and bles2gatt (the GATT table); then the
//      licence inventory of what the makefile links and the bundle holds
//      (tools/licenses.mjs): build/device/<type>/licenses/ (SPDX, NOTICE);
//      and the image's size estimate with the margin left in the app slot
//      (tools/image-estimate.mjs: what it measures and what it cannot);
//   5. the C compile and link of the image (and, with --flash, writing it and
//      the fonts partition, build/assets/fonts.bin, with esptool.py):
//      only with ESP-IDF (IDF_PATH, its xtensa-esp32s3-elf-gcc on PATH); without
//      them the build stops here with one line saying so (exit 0: everything
//      this machine can build is built; --flash exits 1).
// The SDK is found by tools/sdk.mjs (MODDABLE, or the archive built into
// build/moddable); without one the build stops before stage 1 and says why.
//
// Usage: node tools/build-device.mjs --board <type> [--flash] [--port DEV] [--bundle-only]
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { ROOT, XS_TARGET, firmwareVersion, gitBuildId } from './build.mjs';
import { caRootsPem, writeCaStore } from './ca-store.mjs';
import { deviceTypecheck } from './device-typecheck.mjs';
import { buildAssets, FONTS_PACK } from './assets.mjs';
import { imageEstimate } from './image-estimate.mjs';
import { docsFiles, docsPack } from './docs-pack.mjs';
import { ensureSdk, sdkEnv } from './sdk.mjs';
import { buildWebPage, webPageDefine } from './web-page.mjs';
import { loadGattServices, writeBleServices } from './gatt-json.mjs';
import { inventory, problems as licenseProblems, writeLicenseDocuments } from './licenses.mjs';

export const DEVICE_TYPES = ['ring-tft', 'panel-28', 'panel-35', 'panel-40'];
/** The SDK's build target every board uses (a generic ESP32-S3). */
/** Our own target (hosts/esp32/target): the SDK's esp32s3 without its development-kit LED and button; mcconfig lower-cases the path, so it stays relative to the project root (mcconfig runs there). */
export const SDK_PLATFORM = 'esp32:hosts/esp32/target';
/** The folders mcconfig names after the target's platform and SUBPLATFORM. */
export const SDK_PLATFORM_DIRS = ['esp32', 'esp32s3'];
/**
 * The Moddable SDK modules the bundle may import, each with the SDK manifest
 * that maps it (hosts/esp32/sdk-modules.json): the bundle leaves exactly these
 * to the module map, so an import nobody maps fails the bundle here.
 */
export const SDK_MODULES = JSON.parse(readFileSync(join(ROOT, 'hosts/esp32/sdk-modules.json'), 'utf8')).modules;
const SDK_IMPORT = new RegExp(`^(${Object.keys(SDK_MODULES).map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);

/** The ESP-IDF compiler of the ESP32-S3's cores. */
export const XTENSA_CC = 'xtensa-esp32s3-elf-gcc';
/** The ESP-IDF version the SDK 8.2.3 builds with (its make.esp32.mk: EXPECTED_ESP_IDF). */
export const ESP_IDF_VERSION = 'v6.0';

function onPath(cmd, env) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore', env }).status === 0;
}

/**
 * What the C compile of the image needs, or why it cannot run here: ESP-IDF
 * (IDF_PATH, a checkout with tools/idf.py) and its Xtensa compiler on PATH.
 */
export function checkIdf(env = process.env) {
  if (!env.IDF_PATH) return { ok: false, reason: `IDF_PATH is not set: ESP-IDF ${ESP_IDF_VERSION} (with ${XTENSA_CC}) compiles and links the image; install it and source its export.sh (docs/device.md)` };
  if (!existsSync(join(env.IDF_PATH, 'tools/idf.py'))) return { ok: false, reason: `IDF_PATH=${env.IDF_PATH} is not an ESP-IDF checkout (no tools/idf.py)` };
  if (!onPath(XTENSA_CC, env)) return { ok: false, reason: `${XTENSA_CC} is not on PATH: source ESP-IDF ${ESP_IDF_VERSION}'s export.sh` };
  return { ok: true, reason: null };
}

/** Copies a file, leaving the destination untouched when its bytes are the same (so the SDK's make relinks only then). */
export function copyIfChanged(from, to) {
  const bytes = readFileSync(from);
  if (!existsSync(to) || !readFileSync(to).equals(bytes)) writeFileSync(to, bytes);
}

/** Bundles the device firmware module; returns its folder. */
export async function bundleDevice(board, { outRoot = join(ROOT, 'build/device'), version = firmwareVersion() } = {}) {
  if (!DEVICE_TYPES.includes(board)) throw new Error(`--board must be one of ${DEVICE_TYPES.join(', ')}`);
  const outDir = join(outRoot, board);
  mkdirSync(outDir, { recursive: true });
  const build = { version, buildId: gitBuildId(), testBuild: false };
  const caRoots = writeCaStore(join(outDir, 'tls'), caRootsPem(ROOT));
  const gatt = writeBleServices(join(outDir, 'bleservices'), await loadGattServices(ROOT));
  // the image's read-only data (tools/assets.mjs), linked as the resource assets.bin (manifest.json "data")
  copyIfChanged(await buildAssets(), join(outDir, 'assets.bin'));
  const pageInputs = [];
  const webPage = await buildWebPage({ inputs: pageInputs });
  const result = await esbuild.build({
    entryPoints: [join(ROOT, 'hosts/esp32/entry.ts')],
    write: false,
    metafile: true,
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
      __WEB_PAGE__: JSON.stringify(webPageDefine(webPage)),
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
  // Every file the bundle was made from, for the license inventory (tools/licenses.mjs): the
  // modules esbuild read (src/, hosts/esp32/, node_modules/), the web page's, and the docs pack's.
  const rel = (f) => relative(ROOT, resolve(f));
  writeJsonIfChanged(join(outDir, 'inputs.json'), {
    firmware: Object.keys(result.metafile.inputs).map(rel).sort(),
    webPage: pageInputs.map(rel).sort(),
    docs: docsFiles(ROOT).sort(),
  });
  // Rewritten only when its bytes change, so the SDK's make relinks only then.
  const js = Buffer.from(result.outputFiles[0].contents);
  const out = join(outDir, 'firmware.js');
  if (!existsSync(out) || !readFileSync(out).equals(js)) writeFileSync(out, js);
  const sdkconfig = join(outDir, 'sdkconfig');
  rmSync(sdkconfig, { recursive: true, force: true });
  cpSync(join(ROOT, 'hosts/esp32/sdkconfig'), sdkconfig, { recursive: true });
  const defaults = join(sdkconfig, 'sdkconfig.defaults');
  writeFileSync(defaults, `${readFileSync(defaults, 'utf8')}CONFIG_APP_PROJECT_VER="${version}"\n`);
  return { outDir, build, caRoots, gatt };
}

/** Writes value as JSON, only when the text changes (the SDK's make watches the folder's files). */
function writeJsonIfChanged(path, value) {
  const text = JSON.stringify(value, null, 1) + '\n';
  if (!existsSync(path) || readFileSync(path, 'utf8') !== text) writeFileSync(path, text);
}

/** The mcconfig output folder of a board. */
export function sdkOut(board, outRoot = join(ROOT, 'build/device')) {
  return join(outRoot, board, 'sdk');
}

/** The mcconfig command line for a board (make: build with the SDK's makefile; flash: build and write the device). */
export function mcconfigArgs(board, { flash = false, port, make = true, outRoot } = {}) {
  const args = ['-p', SDK_PLATFORM, '-o', sdkOut(board, outRoot), join(ROOT, 'boards', board, 'manifest.json')];
  if (make) args.unshift('-m');
  if (flash) args.unshift('-t', 'deploy');
  if (port) args.push(`UPLOAD_PORT=${port}`);
  return args;
}

/** Every .ts the device typecheck reads, and the SDK version: the typecheck's identity. */
function typecheckInputs(sdk) {
  const h = createHash('sha256').update(`${sdk.moddable}\n${sdk.version}\n`);
  const visit = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'test') visit(p);
      } else if (/\.(ts|json)$/.test(e.name)) h.update(p).update(readFileSync(p));
    }
  };
  for (const d of ['src', 'hosts/esp32', 'hosts/lin', 'modules', 'boards']) visit(join(ROOT, d));
  for (const f of ['tsconfig.base.json', 'tsconfig.device.json', 'package-lock.json']) h.update(readFileSync(join(ROOT, f)));
  return h.digest('hex');
}

/** Stage 2: the device typecheck against the SDK's typings, once per set of inputs. */
export function typecheckStage(sdk) {
  const stamp = join(ROOT, 'build/device/typecheck.ok');
  const id = typecheckInputs(sdk);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === id) return { ok: true, cached: true, output: '' };
  const r = deviceTypecheck(sdk.moddable);
  if (r.ok) {
    mkdirSync(join(ROOT, 'build/device'), { recursive: true });
    writeFileSync(stamp, id);
  }
  return { ...r, cached: false };
}

/** The folder mcconfig generated the makefile in (tmp/esp32/esp32s3/release/<type>). */
export function makefileDir(board, outRoot) {
  return join(sdkOut(board, outRoot), 'tmp', ...SDK_PLATFORM_DIRS, 'release', board);
}

/**
 * xsl's figures: its own line ("### N instances, K keys, C colors, H holes")
 * and what it wrote into mc.xs.c (the preloaded heap in slots, the alias
 * table, the keys, the stack it reserved), with the creation sizes the
 * makefile passed it (-c).
 */
export function xslFigures(xslOutput, mcXsC, makefile) {
  const line = /### (\d+) instances, (\d+) keys, (\d+) colors, (\d+) holes/.exec(xslOutput);
  const define = (name) => {
    const m = new RegExp(`#define ${name} (\\d+)`).exec(mcXsC);
    return m ? Number(m[1]) : null;
  };
  const c = /^CREATION = -c (.*)$/m.exec(makefile)?.[1].split(',') ?? [];
  const n = (i) => (c[i] === undefined ? null : Number(c[i]));
  return {
    instances: line ? Number(line[1]) : null,
    keys: line ? Number(line[2]) : null,
    colors: line ? Number(line[3]) : null,
    holes: line ? Number(line[4]) : null,
    heapSlots: define('mxHeapCount'),
    aliases: define('mxAliasCount'),
    keysCount: define('mxKeysCount'),
    creation: {
      chunk: { initial: n(0), incremental: n(1) },
      heap: { initial: n(2), incremental: n(3) },
      stack: n(4),
      keys: { initial: n(5), incremental: n(6), name: n(7), symbol: n(8) },
      parser: { buffer: n(9), table: n(10) },
      static: n(11),
    },
  };
}

/**
 * Stages 3 and 4: mcconfig's makefile, then its rules for everything short of
 * the C: the modules (xsc, xsid), the preloading link (xsl: mc.xs.c), the
 * resources (mcrez: mc.resources.c) and the GATT table (bles2gatt). The
 * makefile's ESP-IDF part insists on IDF_PATH and an ESP-IDF version when it
 * is read, and makes mc.xs.c and mc.resources.c wait for ESP-IDF's
 * sdkconfig.h; these three variables are given on make's command line so its
 * own rules run without ESP-IDF (no rule that uses them runs).
 */
export function sdkStages(sdk, board, { outRoot, log = () => undefined } = {}) {
  const env = { ...sdkEnv(sdk), DESK_ROOT: ROOT, PATH: `${sdk.bin}:${join(ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}` };
  mkdirSync(sdkOut(board, outRoot), { recursive: true });
  const mc = spawnSync(join(sdk.bin, 'mcconfig'), mcconfigArgs(board, { make: false, outRoot }), { cwd: ROOT, env, encoding: 'utf8' });
  if (mc.status !== 0) return { ok: false, stage: 'mcconfig', output: `${mc.stdout}${mc.stderr}` };
  log(`mcconfig -p ${SDK_PLATFORM}: ${join(makefileDir(board, outRoot), 'makefile').slice(ROOT.length + 1)}`);
  const dir = makefileDir(board, outRoot);
  const noIdf = join(dir, 'no-idf.stamp');
  if (!existsSync(noIdf)) writeFileSync(noIdf, 'stands in for ESP-IDF\'s sdkconfig.h in the stages before the C (tools/build-device.mjs)\n');
  const targets = ['mc.xs.c', 'mc.resources.c', 'mc.bleservices'].map((t) => join(dir, t));
  const make = spawnSync('make', ['-f', join(dir, 'makefile'), `IDF_PATH=${join(dir, 'no-esp-idf')}`, `IDF_VERSION=${ESP_IDF_VERSION}`, `SDKCONFIG_H=${noIdf}`, 'MAKEFLAGS_JOBS=-j2', ...targets], {
    cwd: dir,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${make.stdout}${make.stderr}`;
  if (make.status !== 0) return { ok: false, stage: 'xsc, xsl, mcrez, bles2gatt', output };
  const mcXs = join(dir, 'mc.xs.c');
  // xsl prints its figures only when it links; an up-to-date mc.xs.c keeps the last ones.
  const figuresFile = join(dir, 'xsl-figures.txt');
  const xslLine = /### \d+ instances.*$/m.exec(output)?.[0];
  if (xslLine) writeFileSync(figuresFile, xslLine + '\n');
  const figures = xslFigures(existsSync(figuresFile) ? readFileSync(figuresFile, 'utf8') : '', readFileSync(mcXs, 'utf8').slice(0, 4096), readFileSync(join(dir, 'makefile'), 'utf8'));
  const warnings = (output.match(/^### warning/gm) ?? []).length;
  return { ok: true, dir, figures, warnings, output };
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
  const say = (line) => console.log(`${what}: ${board}: ${line}`);
  let sdk = null;
  if (!values['bundle-only']) {
    try {
      sdk = ensureSdk({ log: (l) => console.error(l) });
    } catch (e) {
      console.error(`${what}: cannot build the ${board} image here: ${e.message}`);
      process.exit(1);
    }
    if (!sdk.ok || !sdk.tools) {
      console.error(`${what}: cannot build the ${board} image here: ${sdk.reason}\n(the firmware bundle alone: node tools/build-device.mjs --board ${board} --bundle-only)`);
      process.exit(1);
    }
  }
  const { outDir } = await bundleDevice(board);
  say(`bundled ${join(outDir, 'firmware.js').slice(ROOT.length + 1)} (${statSync(join(outDir, 'firmware.js')).size} bytes)`);
  if (values['bundle-only']) return;
  const tc = typecheckStage(sdk);
  if (!tc.ok) {
    console.error(`${what}: ${board}: tsc against the SDK ${sdk.version} typings failed:\n${tc.output}`);
    process.exit(1);
  }
  say(`tsc: hosts/esp32 checks against the SDK ${sdk.version} typings${tc.cached ? ' (unchanged since it last passed)' : ''}`);
  const stages = sdkStages(sdk, board, { log: say });
  if (!stages.ok) {
    console.error(`${what}: ${board}: ${stages.stage} failed:\n${stages.output.split('\n').filter((l) => !/^### warning/.test(l)).slice(-40).join('\n')}`);
    process.exit(1);
  }
  const f = stages.figures;
  say(`xsc, xsl (preloaded): ${f.instances} instances, ${f.keys} keys, preloaded heap ${f.heapSlots} slots, ${f.aliases} aliases (${stages.warnings} xsl warnings); mcrez: mc.resources.c; bles2gatt: mc.bleservices`);
  // The licence inventory of what this image links (tools/licenses.mjs): its SPDX document and NOTICE beside the build.
  const inv = inventory(board);
  const docs = writeLicenseDocuments(inv, join(outDir, 'licenses'), { version: firmwareVersion() });
  const wrong = licenseProblems(inv);
  say(`licenses: ${inv.packages.length} components in ${relative(ROOT, docs.spdx)} and ${relative(ROOT, docs.notice)}${wrong.length ? `; not shippable: ${wrong.join('; ')}` : ''}`);
  // the image's size as far as this machine can measure it, and the slot's margin (tools/image-estimate.mjs says how)
  try {
    for (const line of imageEstimate(ROOT, stages.dir, { log: say, fontsPack: FONTS_PACK }).lines) say(line);
  } catch (e) {
    say(`image estimate: not made (${e.message.split('\n')[0]})`);
  }
  const idf = checkIdf();
  if (!idf.ok) {
    console.log(`${what}: ${board}: stopped before the C compile, no image built: ${idf.reason}`);
    process.exit(values.flash ? 1 : 0);
  }
  const args = mcconfigArgs(board, { flash: values.flash, port: values.port });
  say(`${join(sdk.bin, 'mcconfig')} ${args.join(' ')}`);
  const r = spawnSync(join(sdk.bin, 'mcconfig'), args, { cwd: ROOT, stdio: 'inherit', env: { ...sdkEnv(sdk), DESK_ROOT: ROOT } });
  if (r.status !== 0) process.exit(r.status ?? 1);
  if (values.flash) {
    // the fonts partition (the CJK glyphs): written beside the app, as idf.py writes a data partition's image
    const offset = readFileSync(join(ROOT, 'partitions.csv'), 'utf8').split('\n').find((l) => l.startsWith('fonts,'))?.split(',')[3]?.trim();
    const w = spawnSync('esptool.py', [...(values.port ? ['--port', values.port] : []), 'write_flash', offset, FONTS_PACK], { stdio: 'inherit' });
    if (w.status !== 0) {
      console.error(`${what}: ${board}: writing the fonts partition failed: the screen shows CJK as boxes until it is written (esptool.py write_flash ${offset} ${FONTS_PACK})`);
      process.exit(w.status ?? 1);
    }
  }
  const image = execFileSync('find', [sdkOut(board), '-name', 'xs_esp32.bin'], { encoding: 'utf8' }).trim().split('\n')[0];
  if (image) say(`image ${image} (release it with tools/release.mjs --image ${image})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
