#!/usr/bin/env node
// Builds what is missing or stale, incrementally:
//   1. the simulator runtime (our C and XS: the Moddable SDK's XS 17.x, the
//      device's, when the SDK is here, else @agoric/xsnap's XS 13.3) with make;
//   2. the firmware bundle for XS (esbuild, one script) and its flash image;
//   3. the simulated board (Node) bundle.
// Usage: node tools/build.mjs [--quiet] [--force] [--out DIR] [--version vX.Y.Z]
//                             [--define NAME=VALUE]   (extra esbuild defines, for test images)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { buildAssets, FONTS_PACK } from './assets.mjs';
import { docsPack } from './docs-pack.mjs';
import { ensureSdk, SDK_XS_VERSION } from './sdk.mjs';
import { buildWebPage, webPageDefine } from './web-page.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** esbuild settings for code that runs on XS (see DESIGN.md: the class-field quirk). */
export const XS_TARGET = {
  target: 'es2022',
  // XS 13 throws on a static field that instantiates a class with instance
  // fields (@noble/curves does this); lowering class fields avoids it.
  supported: { 'class-field': false, 'class-static-field': false },
};

function newestMtime(paths) {
  let newest = 0;
  const visit = (p) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const e of readdirSync(p)) if (e !== 'node_modules' && !e.startsWith('.')) visit(join(p, e));
    } else newest = Math.max(newest, st.mtimeMs);
  };
  paths.forEach(visit);
  return newest;
}

function stale(output, inputs) {
  return !existsSync(output) || statSync(output).mtimeMs < newestMtime(inputs);
}

export function firmwareVersion() {
  const text = readFileSync(join(ROOT, 'src/version.ts'), 'utf8');
  const m = /FIRMWARE_VERSION = '(v\d+\.\d+\.\d+(?:-rc\d+)?)'/.exec(text);
  if (!m) throw new Error('src/version.ts: FIRMWARE_VERSION not found');
  return m[1];
}

export function gitBuildId() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty ? `${commit}-dirty` : commit;
  } catch {
    return 'unknown';
  }
}

/** The simulator's app image: magic, header json, bundle, then the assets region when given (docs/sim-protocol.md). */
export function makeImage(bundle, header, assets = null) {
  const json = Buffer.from(JSON.stringify(assets ? { ...header, assets: assets.length } : header));
  const head = Buffer.alloc(16);
  head.write('DSKIMG01', 0, 'latin1');
  head.writeUInt32LE(json.length, 8);
  head.writeUInt32LE(bundle.length, 12);
  return Buffer.concat([head, json, bundle, ...(assets ? [assets] : [])]);
}

/**
 * The XS the simulator runs: the Moddable SDK's (XS 17.x, what the device
 * runs) when the SDK is here (tools/sdk.mjs; from the archive only its
 * sources are extracted, the tools are not built), else @agoric/xsnap's (XS
 * 13.3), which needs nothing beyond npm. DESK_XS=xsnap asks for the fallback.
 */
export function simXs(env = process.env, log = (l) => console.error(l)) {
  const xsnap = { tag: 'xsnap', dir: join(ROOT, 'build/xs-src/moddable/xs'), label: "XS 13.3 from @agoric/xsnap's sources", fetch: true };
  if (env.DESK_XS === 'xsnap') return xsnap;
  try {
    const sdk = ensureSdk({ xsOnly: true, log, env });
    if (sdk.ok) return { tag: 'sdk', dir: join(sdk.moddable, 'xs'), label: `XS ${SDK_XS_VERSION} from the Moddable SDK ${sdk.version}`, fetch: false };
  } catch (e) {
    log(`build: the Moddable SDK's XS is not usable (${e.message}): building @agoric/xsnap's`);
  }
  return xsnap;
}

export function buildRuntime({ quiet = false } = {}) {
  const stdio = quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit';
  const xs = simXs();
  const stamp = join(ROOT, 'build/sim/xsim.xs');
  if (!existsSync(join(ROOT, 'build/sim/xsim')) || !existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== `${xs.tag} ${xs.dir}`) {
    console.error(`build: building the simulator's runtime on ${xs.label} (first time only, about a minute)...`);
  }
  if (xs.fetch) execFileSync(process.execPath, [join(ROOT, 'hosts/sim/runtime/fetch-xs.mjs')], { cwd: ROOT, stdio });
  execFileSync('make', ['-C', 'hosts/sim/runtime', '-j2', '--no-print-directory', `XS=${xs.dir}`, `XS_TAG=${xs.tag}`], { cwd: ROOT, stdio });
  return xs;
}

/**
 * Bundles the simulator firmware into outDir/firmware.js and firmware.img.
 * Returns the image path. `defines` adds esbuild defines (test images).
 */
export async function buildFirmware({ outDir = join(ROOT, 'build/fw'), version = firmwareVersion(), defines = {}, force = false, entry = 'hosts/sim/hal/entry.ts', testBuild = true } = {}) {
  const js = join(outDir, 'firmware.js');
  const img = join(outDir, 'firmware.img');
  const inputs = ['src', 'hosts/sim/hal', 'modules', 'boards', 'docs', 'package-lock.json', 'tools/build.mjs', 'README.md', 'tools/docs-pack.mjs', 'tools/web-page.mjs', 'tools/assets.mjs', 'tools/embed-table.mjs', 'tools/font-raster.mjs', 'tools/font'].map((p) => join(ROOT, p));
  const custom = Object.keys(defines).length > 0 || version !== firmwareVersion() || entry !== 'hosts/sim/hal/entry.ts';
  if (!force && !custom && !stale(img, inputs)) return img;
  mkdirSync(outDir, { recursive: true });
  // Test builds trust the local test CA next to the real roots (src/net/tls.ts).
  const { testCaPem } = await import('./test-ca.mjs');
  // ... and the local test signing key next to the release keys (src/ota/keys.ts).
  const { ensureTestSigningKey } = await import('./test-keys.mjs');
  const testDefines = testBuild ? { __TEST_CA_PEM__: JSON.stringify(testCaPem()), __TEST_OTA_PUBKEY__: JSON.stringify(ensureTestSigningKey().publicKeyHex) } : {};
  await esbuild.build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    ...XS_TARGET,
    outfile: js,
    // The embedded documentation pack (src/docs/pack.ts), split into sections here.
    // ... and the owner's web page (src/web/built.ts), built from src/web/page/.
    define: { __DOCS_PACK__: JSON.stringify(docsPack(ROOT)), __WEB_PAGE__: JSON.stringify(webPageDefine(await buildWebPage())), ...testDefines, ...defines },
    legalComments: 'none',
    logLevel: 'warning',
    loader: { '.md': 'text', '.svg': 'text', '.html': 'text' },
  });
  const bundle = readFileSync(js);
  const assets = readFileSync(await buildAssets());
  const header = {
    version,
    buildId: gitBuildId(),
    contentHash: createHash('sha256').update(bundle).update(assets).digest('hex').slice(0, 16),
    target: 'sim',
    testBuild,
  };
  writeFileSync(img, makeImage(bundle, header, assets));
  // the fonts partition's pack (the CJK glyphs), flashed beside the image (hosts/sim/board --fonts)
  copyFileSync(FONTS_PACK, join(outDir, 'fonts.bin'));
  return img;
}

export async function buildBoard({ force = false } = {}) {
  const out = join(ROOT, 'build/sim/board.mjs');
  if (!force && !stale(out, [join(ROOT, 'hosts/sim/board'), join(ROOT, 'boards'), join(ROOT, 'partitions.csv'), join(ROOT, 'tools/build.mjs')])) return out;
  await esbuild.build({
    entryPoints: [join(ROOT, 'hosts/sim/board/cli.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: out,
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return out;
}

export async function buildAll({ quiet = false, force = false } = {}) {
  const t0 = Date.now();
  buildRuntime({ quiet });
  const img = await buildFirmware({ force });
  const board = await buildBoard({ force });
  if (!quiet) console.log(`build: runtime, ${img.slice(ROOT.length + 1)}, ${board.slice(ROOT.length + 1)} ready in ${Date.now() - t0} ms`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      quiet: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      out: { type: 'string' },
      version: { type: 'string' },
      define: { type: 'string', multiple: true, default: [] },
    },
  });
  const defines = Object.fromEntries(values.define.map((d) => d.split(/=(.*)/s).slice(0, 2)));
  if (values.out || values.version || values.define.length) {
    buildRuntime({ quiet: values.quiet });
    const img = await buildFirmware({ outDir: values.out ? resolve(values.out) : undefined, version: values.version, defines, force: true });
    console.log(img);
  } else {
    await buildAll({ quiet: values.quiet, force: values.force });
  }
}
