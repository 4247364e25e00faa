#!/usr/bin/env node
// The Moddable SDK, found by one rule (docs/device.md, "Toolchain"; docs/decisions.md,
// "Where the Moddable SDK comes from"):
//   1. MODDABLE, when set: the engineer's own SDK checkout (its tools built by them);
//   2. else the archive moddable-sdk-8.2.3.tar.xz: DESK_SDK_ARCHIVE when set, else the
//      first shared/toolchains/<archive> found walking up from the repository, from its
//      git common folder (a worktree's main checkout) and from a local clone's origin;
//      it is extracted into build/moddable (ignored) and the Linux tools the device
//      build needs are built there (xsc, xsid, xsl and the tools binary: mcconfig,
//      mcrez, bles2gatt), once: a second run finds the stamp and does nothing.
// Without either, `sdk.ok` is false and `reason` says why: the tests that need the SDK
// skip with that reason, and the simulator builds XS from @agoric/xsnap's sources.
//
//   node tools/sdk.mjs            extract and build (incremental); prints MODDABLE
//   node tools/sdk.mjs --xs       extract only (the XS sources the simulator builds)
//   node tools/sdk.mjs --require  as the first, but fails when no SDK is found (CI)
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDebianTools } from './check-device.mjs';
import { applySdkPatches, missingPatches, SDK_PATCHES_ID } from './sdk-patches.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const SDK_VERSION = '8.2.3';
/** The XS version the SDK carries (xs/includes/xs.h), which the device runs. */
export const SDK_XS_VERSION = '17.7';
export const SDK_ARCHIVE = `moddable-sdk-${SDK_VERSION}.tar.xz`;
/** Where the archive's SDK is extracted (its top folder is moddable/). */
export const LOCAL_SDK = join(ROOT, 'build/moddable');
const STAMP = join(LOCAL_SDK, '.desk-sdk.json');
/** The SDK makefiles this project builds, in order (build/makefiles/lin/makefile's release, less xsbug, serial2xsbug and mcsim). */
const TOOL_MAKEFILES = ['xs/makefiles/lin/xsc.mk', 'xs/makefiles/lin/xsid.mk', 'xs/makefiles/lin/xsl.mk', 'build/makefiles/lin/tools.mk'];
/** The commands the device build and the lin runtime call. */
export const SDK_TOOLS = ['xsc', 'xsid', 'xsl', 'mcconfig', 'mcrez', 'bles2gatt'];
/** glib's headers: the SDK's Linux platform (xs/platforms/lin_xs.h) includes gio/gio.h. */
export const SDK_DEBIAN = [{ cmd: 'pkg-config', pkg: 'pkg-config' }, { cmd: 'gio-2.0', check: 'pkg-config --exists gio-2.0', pkg: 'libglib2.0-dev' }];

function git(args, cwd) {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** The folders the archive is looked for above: the repository, its git common folder's checkout, a local origin. */
export function searchStarts(root = ROOT) {
  const starts = [root];
  const common = git(['rev-parse', '--path-format=absolute', '--git-common-dir'], root);
  if (common) starts.push(dirname(common));
  const origin = git(['remote', 'get-url', 'origin'], root);
  if (origin && !/^[\w+.-]+:\/\/|^[\w.-]+@/.test(origin)) starts.push(resolve(root, origin.replace(/^file:\/\//, '')));
  return [...new Set(starts)];
}

/** The archive's path, or null: DESK_SDK_ARCHIVE, else shared/toolchains/<archive> above one of searchStarts(). */
export function findArchive(env = process.env, root = ROOT) {
  if (env.DESK_SDK_ARCHIVE) return existsSync(env.DESK_SDK_ARCHIVE) ? resolve(env.DESK_SDK_ARCHIVE) : null;
  for (const start of searchStarts(root)) {
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, 'shared', 'toolchains', SDK_ARCHIVE);
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}

/** The version an SDK folder says it is (tools/VERSION), or null when it is not an SDK. */
export function sdkVersion(moddable) {
  const file = join(moddable, 'tools/VERSION');
  if (!existsSync(join(moddable, 'xs/sources/xsAll.h')) || !existsSync(file)) return null;
  return readFileSync(file, 'utf8').trim();
}

function binDir(moddable) {
  return join(moddable, 'build/bin/lin/release');
}

function toolsBuilt(moddable) {
  return SDK_TOOLS.every((t) => existsSync(join(binDir(moddable), t)));
}

/**
 * Where the SDK is and whether it is usable, without building anything:
 * { ok, source: 'MODDABLE'|'archive'|null, moddable, bin, archive, version, tools, reason }.
 * ok means the XS sources are there; tools that the Linux tools are built too.
 */
export function locateSdk(env = process.env, root = ROOT) {
  if (env.MODDABLE) {
    const moddable = resolve(env.MODDABLE);
    const version = sdkVersion(moddable);
    if (!version) return { ok: false, tools: false, source: 'MODDABLE', moddable, reason: `MODDABLE=${env.MODDABLE} is not a Moddable SDK (no xs/sources/xsAll.h and tools/VERSION there)` };
    const tools = toolsBuilt(moddable);
    return {
      ok: true, source: 'MODDABLE', moddable, bin: binDir(moddable), version, tools,
      reason: tools ? null : `the SDK at MODDABLE=${moddable} has no built Linux tools (${SDK_TOOLS.join(', ')} in build/bin/lin/release): cd $MODDABLE/build/makefiles/lin && make`,
    };
  }
  const archive = findArchive(env, root);
  const moddable = join(root, 'build/moddable');
  if (!archive) {
    return { ok: false, tools: false, source: null, moddable: null, reason: `no Moddable SDK: MODDABLE is not set and no ${SDK_ARCHIVE} was found (DESK_SDK_ARCHIVE, or shared/toolchains/ above ${searchStarts(root).join(', ')})` };
  }
  const stamp = readStamp(moddable);
  // Extracted with this project's fixes to the SDK's sources (tools/sdk-patches.mjs); a new fix extracts again.
  const extracted = stamp?.archive === archiveId(archive) && stamp.patches === SDK_PATCHES_ID && sdkVersion(moddable) !== null;
  const tools = extracted && stamp.tools === true && toolsBuilt(moddable);
  return {
    ok: extracted, source: 'archive', moddable, bin: binDir(moddable), archive, version: extracted ? sdkVersion(moddable) : null, tools,
    reason: !extracted ? `the SDK archive ${archive} is not extracted yet: node tools/sdk.mjs` : tools ? null : `the SDK's Linux tools are not built yet: node tools/sdk.mjs`,
  };
}

function readStamp(moddable) {
  try {
    return JSON.parse(readFileSync(join(moddable, '.desk-sdk.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** The archive's identity: its size and the SHA-256 of its first and last MB (a full hash of 19 MB costs 60 ms; this costs 2). */
function archiveId(archive) {
  const size = statSync(archive).size;
  const h = createHash('sha256').update(String(size));
  const fd = openSync(archive, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size, 1 << 20));
    readSync(fd, buf, 0, buf.length, 0);
    h.update(buf);
    readSync(fd, buf, 0, buf.length, Math.max(0, size - buf.length));
    h.update(buf);
  } finally {
    closeSync(fd);
  }
  return `${size}:${h.digest('hex').slice(0, 32)}`;
}

function extract(archive, log) {
  const t0 = Date.now();
  log(`sdk: extracting ${archive} into build/moddable...`);
  const tmp = join(ROOT, 'build/moddable.tmp');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  execFileSync('tar', ['-xJf', archive, '-C', tmp], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (!sdkVersion(join(tmp, 'moddable'))) throw new Error(`${archive} holds no moddable/ SDK folder`);
  rmSync(LOCAL_SDK, { recursive: true, force: true });
  renameSync(join(tmp, 'moddable'), LOCAL_SDK);
  rmSync(tmp, { recursive: true, force: true });
  applySdkPatches(LOCAL_SDK, log);
  writeFileSync(STAMP, JSON.stringify({ archive: archiveId(archive), patches: SDK_PATCHES_ID, tools: false }) + '\n');
  log(`sdk: extracted in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** The environment the SDK's tools run in: MODDABLE, and its bin folder on PATH (mcconfig's makefiles call xsc, xsl and mcrez by name). */
export function sdkEnv(sdk, env = process.env) {
  return { ...env, MODDABLE: sdk.moddable, PATH: `${sdk.bin}:${env.PATH ?? ''}` };
}

function buildTools(moddable, log) {
  ensureDebianTools(SDK_DEBIAN, log);
  const t0 = Date.now();
  log(`sdk: building the SDK's Linux tools (${SDK_TOOLS.join(', ')}; a few minutes on 2 cores, once)...`);
  const env = sdkEnv({ moddable, bin: binDir(moddable) });
  const jobs = String(Math.max(1, cpus().length));
  for (const mk of TOOL_MAKEFILES) {
    const r = spawnSync('make', ['-j', jobs, 'GOAL=release', '-f', join(moddable, mk)], { cwd: join(moddable, 'build/makefiles/lin'), env: { ...env, XS_DIR: join(moddable, 'xs'), BUILD_DIR: join(moddable, 'build') }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`building the SDK's ${mk} failed (exit ${r.status}):\n${(r.stdout + r.stderr).trim().split('\n').slice(-25).join('\n')}`);
  }
  if (!toolsBuilt(moddable)) throw new Error(`the SDK's tools build left out ${SDK_TOOLS.filter((t) => !existsSync(join(binDir(moddable), t))).join(', ')}`);
  log(`sdk: Linux tools built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/**
 * Makes the SDK usable: from MODDABLE as it is, or from the archive, extracted and
 * (unless xsOnly) with its Linux tools built, each step only when not done yet.
 * Returns locateSdk()'s answer afterwards; throws only when a step fails.
 */
export function ensureSdk({ xsOnly = false, log = (l) => console.error(l), env = process.env } = {}) {
  let sdk = locateSdk(env);
  if (sdk.source === 'MODDABLE' && sdk.ok) {
    for (const p of missingPatches(sdk.moddable)) log(`sdk: warning: the SDK at MODDABLE=${sdk.moddable} lacks fix ${p.id} to ${p.file} (tools/sdk-patches.mjs says why); the preloaded firmware can crash on it`);
  }
  if (sdk.source !== 'archive') return sdk;
  if (!sdk.ok) extract(sdk.archive, log);
  if (!xsOnly && (!toolsBuilt(sdk.moddable) || readStamp(sdk.moddable)?.tools !== true)) {
    buildTools(sdk.moddable, log);
    writeFileSync(STAMP, JSON.stringify({ archive: archiveId(sdk.archive), patches: SDK_PATCHES_ID, tools: true }) + '\n');
  }
  sdk = locateSdk(env);
  return sdk;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = new Set(process.argv.slice(2));
  try {
    const sdk = ensureSdk({ xsOnly: args.has('--xs') });
    if (!sdk.ok || (!args.has('--xs') && !sdk.tools)) {
      console.error(`sdk: ${sdk.reason}`);
      process.exit(args.has('--require') ? 1 : 0);
    }
    console.log(`MODDABLE=${sdk.moddable} (${sdk.source}, SDK ${sdk.version}${sdk.tools ? `, tools in ${sdk.bin}` : ''})`);
  } catch (e) {
    console.error(`sdk: ${e.message}`);
    process.exit(1);
  }
}
