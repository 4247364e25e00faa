#!/usr/bin/env node
// The firmware in the Moddable SDK's own desktop runtime (docs/device.md,
// "The SDK's desktop runtime"): the same src/ as the device, on the lin HAL
// (hosts/lin), preloaded by the SDK's xsl with the device's creation sizes,
// built by the SDK's mcconfig from a board manifest (-p lin), and run headless
// by build/lin/desk-lin (hosts/lin/runner.c).
//   1. bundles hosts/lin/entry.ts with src/ into build/lin/<type>/firmware.js
//      (a test build, as the simulator's: the offline demo, the test CA and
//      test signing key, the serial test console), rewritten only when its
//      bytes change, so the SDK's make rebuilds nothing when nothing changed;
//   2. writes the certificate store (the roots and the test CA) into
//      build/lin/<type>/tls/;
//   3. mcconfig -m -p lin -o build/lin/<type>/sdk boards/<type>/manifest.json
//      (xsc, xsl's preloading link, mcrez, cc: build/lin/<type>/sdk/.../mc.so);
//   4. compiles the runner (build/lin/desk-lin) when its source changed.
// Needs the SDK with its Linux tools (tools/sdk.mjs).
//
// Usage: node tools/build-lin.mjs [--board <type>]   (prints the mc.so path)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { ROOT, XS_TARGET, firmwareVersion, gitBuildId } from './build.mjs';
import { copyIfChanged, DEVICE_TYPES, SDK_MODULES } from './build-device.mjs';
import { buildAssets } from './assets.mjs';
import { caRootsPem, writeCaStore } from './ca-store.mjs';
import { docsPack } from './docs-pack.mjs';
import { ensureSdk, sdkEnv } from './sdk.mjs';
import { testCaPem } from './test-ca.mjs';
import { ensureTestSigningKey } from './test-keys.mjs';
import { buildWebPage, webPageDefine } from './web-page.mjs';

/** The board the SDK runtime build runs by default (the simulator's default). */
export const LIN_BOARD = 'panel-35';
export const LIN_OUT = join(ROOT, 'build/lin');
export const RUNNER = join(LIN_OUT, 'desk-lin');
/** The SDK modules the lin bundle leaves to mcconfig: the device's, and the lin HAL's files and serial modules. */
const LIN_SDK_MODULES = [...Object.keys(SDK_MODULES), 'file', 'embedded:io/serial'];
const SDK_IMPORT = new RegExp(`^(${LIN_SDK_MODULES.map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);

function writeIfChanged(path, bytes) {
  if (existsSync(path) && readFileSync(path).equals(bytes)) return false;
  writeFileSync(path, bytes);
  return true;
}

/** Bundles the lin firmware module and its certificate store; returns the folder. */
export async function bundleLin(board = LIN_BOARD, { version = firmwareVersion() } = {}) {
  if (!DEVICE_TYPES.includes(board)) throw new Error(`--board must be one of ${DEVICE_TYPES.join(', ')}`);
  const outDir = join(LIN_OUT, board);
  mkdirSync(outDir, { recursive: true });
  const build = { version, buildId: `lin-${gitBuildId()}`, testBuild: true };
  writeCaStore(join(outDir, 'tls'), [...caRootsPem(ROOT), testCaPem()]);
  copyIfChanged(await buildAssets(), join(outDir, 'assets.bin'));
  const result = await esbuild.build({
    entryPoints: [join(ROOT, 'hosts/lin/entry.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    ...XS_TARGET,
    write: false,
    outfile: join(outDir, 'firmware.js'),
    define: {
      __DOCS_PACK__: JSON.stringify(docsPack(ROOT)),
      __WEB_PAGE__: JSON.stringify(webPageDefine(await buildWebPage())),
      __DESK_BOARD__: JSON.stringify(board),
      __DESK_BUILD__: JSON.stringify(build),
      __TEST_CA_PEM__: JSON.stringify(testCaPem()),
      __TEST_OTA_PUBKEY__: JSON.stringify(ensureTestSigningKey().publicKeyHex),
    },
    legalComments: 'none',
    logLevel: 'warning',
    loader: { '.md': 'text', '.svg': 'text', '.html': 'text' },
    plugins: [
      {
        name: 'moddable-externals',
        setup(b) {
          b.onResolve({ filter: SDK_IMPORT }, (a) => ({ path: a.path, external: true }));
          b.onResolve({ filter: /lin-native\.js$/ }, () => ({ path: 'lin-native', external: true }));
        },
      },
    ],
  });
  const js = Buffer.from(result.outputFiles[0].contents);
  writeIfChanged(join(outDir, 'firmware.js'), js);
  return { outDir, bytes: js.length };
}

/** The runner, compiled when its source is newer than it. */
export function buildRunner(sdk) {
  const source = join(ROOT, 'hosts/lin/runner.c');
  if (existsSync(RUNNER) && statSync(RUNNER).mtimeMs >= statSync(source).mtimeMs) return RUNNER;
  mkdirSync(LIN_OUT, { recursive: true });
  const glib = execFileSync('pkg-config', ['--cflags', '--libs', 'glib-2.0'], { encoding: 'utf8' }).trim().split(/\s+/);
  const r = spawnSync(process.env.CC || 'cc', ['-std=gnu11', '-O2', '-Wall', '-Wextra', '-Werror', '-I', join(sdk.moddable, 'build/simulators/modules'), '-o', RUNNER, source, ...glib, '-ldl', '-lutil'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`compiling hosts/lin/runner.c failed:\n${r.stderr}`);
  return RUNNER;
}

/** The folder of the makefile mcconfig -p lin generated (and of mc.xs.c). */
export function linMakefileDir(board = LIN_BOARD) {
  return join(LIN_OUT, board, 'sdk/tmp/lin/mc/release', board);
}

/** mc.so under the mcconfig output folder, or null. */
export function findLibrary(board = LIN_BOARD) {
  const out = join(LIN_OUT, board, 'sdk');
  if (!existsSync(out)) return null;
  const found = execFileSync('find', [out, '-name', 'mc.so', '-path', '*/bin/*'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  return found[0] ?? null;
}

/**
 * Builds everything the SDK runtime needs for a board: returns { library, runner, xsl }
 * (xsl: the link's own figures line and the warnings count), or throws with the SDK's output.
 */
export async function buildLin(board = LIN_BOARD, { log = () => undefined } = {}) {
  const sdk = ensureSdk({ log });
  if (!sdk.ok || !sdk.tools) throw new Error(sdk.reason);
  const t0 = Date.now();
  const { outDir, bytes } = await bundleLin(board);
  log(`build-lin: bundled build/lin/${board}/firmware.js (${bytes} bytes)`);
  const out = join(outDir, 'sdk');
  mkdirSync(out, { recursive: true });
  const r = spawnSync(join(sdk.bin, 'mcconfig'), ['-m', '-p', 'lin', '-o', out, join(ROOT, 'boards', board, 'manifest.json')], {
    cwd: ROOT,
    env: { ...sdkEnv(sdk), DESK_ROOT: ROOT },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`mcconfig -p lin failed (exit ${r.status}):\n${output.split('\n').filter((l) => !/^### warning/.test(l)).slice(-40).join('\n')}`);
  const library = findLibrary(board);
  if (!library) throw new Error(`mcconfig -p lin made no mc.so under ${out}`);
  // xsl prints its figures only when it links: keep the last ones beside its makefile
  const xslLine = /### \d+ instances.*$/m.exec(output)?.[0];
  if (xslLine) writeFileSync(join(linMakefileDir(board), 'xsl-figures.txt'), xslLine + '\n');
  log(`build-lin: ${library.slice(ROOT.length + 1)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { library, runner: buildRunner(sdk), output };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { board: { type: 'string', default: LIN_BOARD } } });
  try {
    const { library, runner } = await buildLin(values.board, { log: (l) => console.error(l) });
    console.log(`${runner} ${library}`);
  } catch (e) {
    console.error(`build-lin: ${e.message}`);
    process.exit(1);
  }
}
