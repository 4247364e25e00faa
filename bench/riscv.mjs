// The device-core section of `npm run bench`: instructions the C hotspots
// execute on a RISC-V core (rv32imc, the target flags), counted by
// qemu-user with a small instruction-counting plugin (bench/riscv/insncount.c).
// Each workload is built twice from bench/riscv/program.c, with and without
// the measured call; the count of the work is the difference. Installs
// qemu-user and Debian's RISC-V compiler when they are missing (as root), or
// says how to.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../tools/build.mjs';
import { ensureDebianTools, stubIncludes } from '../tools/check-device.mjs';

const RV = ['-march=rv32imc', '-mabi=ilp32'];

function countInsns(plugin, program) {
  const r = spawnSync('qemu-riscv32', ['-plugin', plugin, '-d', 'plugin', program], { encoding: 'utf8' });
  const m = /insns: (\d+)/.exec(r.stderr + r.stdout);
  if (!m) throw new Error(`no instruction count from ${program}: ${r.stderr}`);
  return Number(m[1]);
}

export function riscvCounts() {
  ensureDebianTools([
    { cmd: 'riscv64-unknown-elf-gcc', pkg: 'gcc-riscv64-unknown-elf' },
    { cmd: 'qemu-riscv32', pkg: 'qemu-user' },
  ]);
  const dir = join(ROOT, 'build/riscv-bench');
  mkdirSync(dir, { recursive: true });
  const stub = stubIncludes(join(dir, 'stub'));
  const plugin = join(dir, 'insncount.so');
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-o', plugin, join(ROOT, 'bench/riscv/insncount.c')]);
  const build = (work, run) => {
    const out = join(dir, `program-${work}-${run}`);
    execFileSync('riscv64-unknown-elf-gcc', [
      ...RV, '-O2', '-ffreestanding', '-nostdlib', '-static', '-Wl,--no-relax', '-I', stub,
      '-I', join(ROOT, 'modules/vecdot'), '-I', join(ROOT, 'modules/sha256'), `-DWORK=${work}`, `-DRUN=${run}`,
      '-o', out, join(ROOT, 'bench/riscv/program.c'), join(ROOT, 'modules/vecdot/vecdot.c'), join(ROOT, 'modules/sha256/sha256.c'), '-lgcc',
    ]);
    return out;
  };
  const work = (n) => countInsns(plugin, build(n, 1)) - countInsns(plugin, build(n, 0));
  const version = execFileSync('riscv64-unknown-elf-gcc', ['-dumpversion'], { encoding: 'utf8' }).trim();
  const qemu = /version ([\d.]+)/.exec(execFileSync('qemu-riscv32', ['--version'], { encoding: 'utf8' }))?.[1] ?? '?';
  return { search: work(1), ties: work(3), hash: work(2), compiler: `riscv64-unknown-elf-gcc ${version} ${RV.join(' ')} -O2`, qemu };
}

export async function riscvBench(row) {
  const c = riscvCounts();
  const bytes = 6656 * 1024;
  const mhz = 160;
  const macs = 6000 * 256;
  row(
    `top-5 over 6000 x 256 int8, RISC-V (${c.compiler}, counted by qemu-riscv32 ${c.qemu})`,
    `${(c.search / 1e6).toFixed(2)} M instructions (${(c.search / macs).toFixed(1)} per multiply-add); at one instruction per cycle on a ${mhz} MHz core at least ${(c.search / (mhz * 1e3)).toFixed(0)} ms`,
    '<= 4 per multiply-add',
    c.search / macs <= 4 ? 'met' : 'MISSED',
  );
  row(
    '  the same with every score equal (every row scored: the worst case)',
    `${(c.ties / 1e6).toFixed(2)} M instructions (${(c.ties / macs).toFixed(1)} per multiply-add); at least ${(c.ties / (mhz * 1e3)).toFixed(0)} ms`,
  );
  row(
    'SHA-256 of 6.5 MB, RISC-V (portable C, same compiler)',
    `${(c.hash / 1e6).toFixed(1)} M instructions (${(c.hash / bytes).toFixed(1)} per byte); at one instruction per cycle on a ${mhz} MHz core at least ${(c.hash / (mhz * 1e6)).toFixed(2)} s (the device hashes on its SHA accelerator through mbedtls instead)`,
  );
  return c;
}
