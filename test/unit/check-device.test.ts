// npm run check:device fails on any diagnostic: its compile step (the one it
// runs for the host and for each cross compiler) passes only warning-free C,
// and it covers the bench's RISC-V program. The cross compilers themselves are
// exercised by check:device in CI (they need apt-get), not here.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BENCH_C, compile, CROSS, PORTABLE_C, WARN } from '../../tools/check-device.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'check-device-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cc = process.env['CC'] || 'cc';

describe('check:device compile step', () => {
  it('passes clean C and fails C with a warning or an error', () => {
    writeFileSync(join(dir, 'clean.c'), 'int add(int a, int b);\nint add(int a, int b) { return a + b; }\n');
    writeFileSync(join(dir, 'warn.c'), 'int f(void);\nint f(void) { int unused = 1; return 0; }\n');
    writeFileSync(join(dir, 'broken.c'), 'int g(void) { return nope; }\n');
    expect(compile(cc, [], join(dir, 'clean.c'), join(dir, 'a.o')).ok).toBe(true);
    const warn = compile(cc, [], join(dir, 'warn.c'), join(dir, 'b.o'));
    expect(warn.ok).toBe(false);
    expect(warn.output).toMatch(/unused/);
    expect(compile(cc, [], join(dir, 'broken.c'), join(dir, 'c.o')).ok).toBe(false);
    expect(compile('no-such-compiler-here', [], join(dir, 'clean.c'), join(dir, 'd.o')).ok).toBe(false);
  });

  it('compiles the device C for RISC-V rv32imc and Xtensa, and the bench program with it', () => {
    expect(CROSS.map((c) => c.cc)).toEqual(['riscv64-unknown-elf-gcc', 'xtensa-lx106-elf-gcc']);
    expect(CROSS[0]!.flags).toEqual(['-march=rv32imc', '-mabi=ilp32']);
    for (const f of [...PORTABLE_C, ...BENCH_C]) expect(existsSync(join(ROOT, f)), f).toBe(true);
    expect(BENCH_C).toContain('bench/riscv/program.c');
  });

  it("runs the device glue's self-test on this host: paths, slot states, reset reasons, panel tables, the LED ring's bit timing", () => {
    const glue = PORTABLE_C.filter((f) => f.startsWith('hosts/esp32/native/')).map((f) => join(ROOT, f));
    expect(glue.map((f) => f.slice(ROOT.length + 1))).toContain('hosts/esp32/native/ledring.c');
    const exe = join(dir, 'glue-selftest');
    const b = spawnSync(cc, [...WARN, '-O2', '-o', exe, join(ROOT, 'hosts/esp32/native/test/selftest.c'), ...glue], { encoding: 'utf8' });
    expect(b.status, b.stderr).toBe(0);
    const t = spawnSync(exe, { encoding: 'utf8' });
    expect(t.stdout.trim()).toBe('device glue self-test: ok');
    expect(t.status).toBe(0);
  });
});
