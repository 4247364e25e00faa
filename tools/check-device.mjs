#!/usr/bin/env node
// `npm run check:device`: the device build's checks that need no SDK (CI runs
// it after `npm test`; docs/device.md):
//   1. the portable C the device links (the hotspots of modules/ and the
//      portable parts of the native glue in hosts/esp32/native) compiles
//      warning-free (-Wall -Wextra -Werror -pedantic) for this host, and the
//      glue's self-test passes;
//   2. the same C compiles warning-free with Debian's cross compilers:
//      RISC-V (riscv64-unknown-elf-gcc -march=rv32imc -mabi=ilp32) and Xtensa
//      (xtensa-lx106-elf-gcc, the closest Xtensa core Debian ships: the
//      ESP32-S3's LX7 compiler comes with ESP-IDF). They ship no C library, so
//      the build is freestanding against a stub string.h;
//   3. the bench's RISC-V programs (bench/riscv/program.c with the hotspots,
//      the ones npm run bench counts instructions of under qemu-user) build
//      and link warning-free, so a bench that prints "NOT MEASURED" on a
//      machine without the tools still has its build checked here.
// Missing cross compilers are installed with apt-get (root) or the check fails
// saying how to install them: a check is never skipped.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Its own root, not build.mjs's: build.mjs reaches this file through sdk.mjs (ensureDebianTools), which made a circle.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The C the device build compiles from this repository that is portable (no XS, no ESP-IDF). */
export const PORTABLE_C = [
  'modules/vecdot/vecdot.c',
  'modules/lexical/lexical.c',
  'modules/sha256/sha256.c',
  'modules/utf8/utf8.c',
  'modules/mp3/mp3mono.c',
  'hosts/esp32/native/sdpath.c',
  'hosts/esp32/native/otastate.c',
  'hosts/esp32/native/resetreason.c',
  'hosts/esp32/native/panel.c',
  'hosts/esp32/native/ledring.c',
];

/** The bench's RISC-V program and the C it links (bench/riscv.mjs). */
export const BENCH_C = ['bench/riscv/program.c', 'modules/vecdot/vecdot.c', 'modules/sha256/sha256.c'];

export const WARN = ['-std=c99', '-Wall', '-Wextra', '-Werror', '-pedantic'];

export const CROSS = [
  { name: 'RISC-V rv32imc', cc: 'riscv64-unknown-elf-gcc', flags: ['-march=rv32imc', '-mabi=ilp32'], pkg: 'gcc-riscv64-unknown-elf' },
  { name: 'Xtensa lx106', cc: 'xtensa-lx106-elf-gcc', flags: ['-mlongcalls'], pkg: 'gcc-xtensa-lx106' },
];

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** A tool is there when its command is (or, with `check`, when that shell command succeeds: a library's headers). */
function present(t) {
  return t.check ? spawnSync('sh', ['-c', t.check], { stdio: 'ignore' }).status === 0 : have(t.cmd);
}

/**
 * Makes sure each command exists (or each `check` succeeds), installing its
 * Debian package when it does not (apt-get as root); throws with instructions
 * when that is impossible.
 */
export function ensureDebianTools(tools, log = (l) => console.log(l)) {
  const missing = tools.filter((t) => !present(t));
  if (!missing.length) return;
  const pkgs = [...new Set(missing.map((t) => t.pkg))];
  const how = `apt-get install -y ${pkgs.join(' ')}`;
  if (typeof process.getuid !== 'function' || process.getuid() !== 0 || !have('apt-get')) {
    throw new Error(`missing ${missing.map((t) => t.check ?? t.cmd).join(', ')}: install them with \`sudo ${how}\` (Debian/Ubuntu) and run again`);
  }
  const t0 = Date.now();
  log(`installing ${pkgs.join(', ')} (apt-get)...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update'], { stdio: 'ignore', env });
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { encoding: 'utf8', env }) : update;
  const still = missing.filter((t) => !present(t));
  if (install.status !== 0 || still.length) {
    throw new Error(`could not install ${pkgs.join(', ')} with apt-get (${install.stderr?.trim().split('\n').pop() ?? `exit ${install.status}`}); install them by hand: ${how}`);
  }
  log(`installed ${pkgs.join(', ')} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Writes the stub string.h and stdlib.h the freestanding cross builds use; returns their folder. */
export function stubIncludes(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'string.h'),
    '/* freestanding stub for the cross-compile check: the declarations the portable C uses */\n#include <stddef.h>\nvoid *memcpy(void *, const void *, size_t);\nvoid *memmove(void *, const void *, size_t);\nvoid *memset(void *, int, size_t);\nsize_t strlen(const char *);\nint strcmp(const char *, const char *);\n',
  );
  // minimp3 includes stdlib.h and uses nothing from it.
  writeFileSync(join(dir, 'stdlib.h'), '/* freestanding stub for the cross-compile check */\n#include <stddef.h>\n');
  // modules/lexical takes log() from the C library.
  writeFileSync(join(dir, 'math.h'), '/* freestanding stub for the cross-compile check */\ndouble log(double);\n');
  return dir;
}

/** Compiles one file (from the repository root, or absolute) with the warning flags: ok only with no diagnostic at all. */
export function compile(cc, flags, file, out) {
  const r = spawnSync(cc, [...flags, ...WARN, '-O2', '-c', resolve(ROOT, file), '-o', out], { encoding: 'utf8' });
  return { ok: r.status === 0 && !r.stderr.trim(), output: (r.stdout + r.stderr + (r.error ? String(r.error) : '')).trim() };
}

export function checkDevice(log = (l) => console.log(l)) {
  const work = join(ROOT, 'build/check-device');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const failures = [];
  // 1. host
  const hostCc = process.env.CC || 'cc';
  for (const file of PORTABLE_C) {
    const r = compile(hostCc, [], file, join(work, 'host.o'));
    if (!r.ok) failures.push(`${hostCc}: ${file}\n${r.output}`);
  }
  log(`host (${hostCc}): ${PORTABLE_C.length} files compiled${failures.length ? ' with errors' : ' warning-free'}`);
  const selftest = join(work, 'glue-selftest');
  const glue = PORTABLE_C.filter((f) => f.startsWith('hosts/esp32/native/')).map((f) => join(ROOT, f));
  const b = spawnSync(hostCc, [...WARN, '-O2', '-o', selftest, join(ROOT, 'hosts/esp32/native/test/selftest.c'), ...glue], { encoding: 'utf8' });
  if (b.status !== 0 || b.stderr.trim()) failures.push(`glue self-test build:\n${b.stderr}`);
  else {
    const t = spawnSync(selftest, { encoding: 'utf8' });
    log(t.stdout.trim());
    if (t.status !== 0) failures.push(`glue self-test failed:\n${t.stdout}`);
  }
  // 2. cross compilers
  ensureDebianTools(CROSS.map((c) => ({ cmd: c.cc, pkg: c.pkg })), log);
  const stub = stubIncludes(join(work, 'stub'));
  for (const c of CROSS) {
    const before = failures.length;
    for (const file of PORTABLE_C) {
      const r = compile(c.cc, [...c.flags, '-ffreestanding', '-I', stub], file, join(work, 'cross.o'));
      if (!r.ok) failures.push(`${c.cc} ${c.flags.join(' ')}: ${file}\n${r.output}`);
    }
    const version = execFileSync(c.cc, ['-dumpversion'], { encoding: 'utf8' }).trim();
    log(`${c.name} (${c.cc} ${version} ${c.flags.join(' ')}): ${PORTABLE_C.length} files compiled${failures.length > before ? ' with errors' : ' warning-free'}`);
  }
  // 3. the bench's RISC-V programs
  const rv = CROSS[0];
  const before = failures.length;
  for (const n of [1, 2, 3]) {
    const r = spawnSync(rv.cc, [
      ...rv.flags, ...WARN, '-O2', '-ffreestanding', '-nostdlib', '-static', '-Wl,--no-relax', '-I', stub,
      '-I', join(ROOT, 'modules/vecdot'), '-I', join(ROOT, 'modules/sha256'), `-DWORK=${n}`, '-DRUN=1',
      '-o', join(work, `bench-${n}`),
      ...BENCH_C.map((f) => join(ROOT, f)), '-lgcc',
    ], { encoding: 'utf8' });
    if (r.status !== 0 || r.stderr.trim()) failures.push(`${rv.cc}: bench/riscv/program.c WORK=${n}\n${(r.stdout + r.stderr).trim()}`);
  }
  log(`${rv.name}: the bench's instruction-count programs ${failures.length > before ? 'did not build' : 'built and linked warning-free'}`);
  return failures;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = Date.now();
  let failures;
  try {
    failures = checkDevice();
  } catch (e) {
    console.error(`check:device: ${e.message}`);
    process.exit(1);
  }
  if (failures.length) {
    console.error(`check:device: FAILED\n${failures.join('\n\n')}`);
    process.exit(1);
  }
  console.log(`check:device: ok (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
