// The device image's size, estimated from what this machine can build (no
// ESP-IDF here: the image itself is never linked), for `npm run build:device`:
//   - the preloaded XS archive xsl wrote (mc.xs.c): its heap and stack slots
//     (16 bytes each on the ESP32-S3's 32-bit XS), its key, name, symbol,
//     slot-pointer, RegExp and BigInt tables (4 bytes an entry), its byte-code
//     arrays and every string literal it holds (byte code, strings, the web
//     page and the documentation, counted as the C compiler stores them);
//   - the resources mcrez wrote (mc.resources.c): the image's assets, the CA
//     store (each array's bytes);
//   - our C (tools/check-device.mjs's PORTABLE_C), compiled for RISC-V rv32imc
//     with Debian's cross compiler at -Os as a stand-in for the Xtensa code
//     size (text + data of the objects).
// Not measured here: ESP-IDF (Wi-Fi, BLE, lwIP, mbedTLS, FreeRTOS), the XS
// engine and the SDK's own C modules; the margin printed is what is left for
// them in the 6.5 MB slot. The fonts partition's pack (the CJK glyphs) is
// checked against its partition the same way.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CROSS, ensureDebianTools, PORTABLE_C, stubIncludes } from './check-device.mjs';


/** Bytes of the preloaded archive in mc.xs.c (see the header). */
export function xsArchiveBytes(mcXsC) {
  const define = (name) => Number(new RegExp(`#define ${name} (\\d+)`).exec(mcXsC)?.[1] ?? 0);
  const slots = (define('mxHeapCount') + define('mxStackCount')) * 16;
  const tables = (define('mxKeysCount') + define('mxNamesCount') + define('mxSymbolsCount') + define('mxSlotCount') + define('mxRegExpCount') + define('mxBigIntCount')) * 4;
  let code = 0;
  for (const m of mcXsC.matchAll(/static const txU1 gxCode\d+\[(\d+)\] =/g)) code += Number(m[1]);
  let strings = 0;
  for (const m of mcXsC.matchAll(/"((?:[^"\\]|\\.)*)"/g)) strings += m[1].replace(/\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\./g, 'x').length + 1;
  return { slots, tables, code, strings, total: slots + tables + code + strings };
}

/** Bytes of each resource in mc.resources.c. */
export function resourceBytes(mcResourcesC) {
  const sizes = new Map();
  const arrays = [...mcResourcesC.matchAll(/static const unsigned char (_\d+)\[\][^{]*\{/g)];
  arrays.forEach((m, i) => {
    const end = i + 1 < arrays.length ? arrays[i + 1].index : mcResourcesC.length;
    const body = mcResourcesC.slice(m.index + m[0].length, end);
    sizes.set(m[1], (body.match(/0x[0-9a-fA-F]{2}/g) ?? []).length);
  });
  const out = [];
  for (const m of mcResourcesC.matchAll(/\{"([^"]+)", (_\d+), sizeof/g)) out.push({ name: m[1], bytes: sizes.get(m[2]) ?? 0 });
  return out;
}

/** text + data of our portable C built for RISC-V (-Os). */
export function riscvCodeBytes(root, work, log) {
  const rv = CROSS.find((c) => c.name.startsWith('RISC-V'));
  ensureDebianTools([{ cmd: rv.cc, pkg: rv.pkg }], log);
  mkdirSync(work, { recursive: true });
  const inc = stubIncludes(join(work, 'include'));
  let total = 0;
  const skipped = [];
  for (const file of PORTABLE_C) {
    const obj = join(work, file.replace(/[/.]/g, '_') + '.o');
    const cc = spawnSync(rv.cc, [...rv.flags, '-ffreestanding', '-I', inc, '-Os', '-c', join(root, file), '-o', obj], { encoding: 'utf8' });
    if (cc.status !== 0) {
      // a file the freestanding build cannot compile (npm run check:device says why) is left out and named
      skipped.push(file);
      continue;
    }
    const size = spawnSync(rv.cc.replace(/gcc$/, 'size'), [obj], { encoding: 'utf8' });
    const row = size.stdout.trim().split('\n')[1]?.trim().split(/\s+/).map(Number) ?? [0, 0];
    total += row[0] + row[1];
  }
  return { bytes: total, skipped };
}

/** Partition sizes from partitions.csv. */
export function partitionSize(csv, name) {
  const row = csv.split('\n').find((l) => l.split(',')[0]?.trim() === name);
  return row ? Number(row.split(',')[4].trim()) : null;
}

const MB = (n) => `${(n / 1024 / 1024).toFixed(2)} MB`;

/** The estimate's lines for build:device (dir: the makefile's folder). */
export function imageEstimate(root, dir, { log = () => {}, fontsPack } = {}) {
  const csv = readFileSync(join(root, 'partitions.csv'), 'utf8');
  const slot = partitionSize(csv, 'ota_0');
  const xs = xsArchiveBytes(readFileSync(join(dir, 'mc.xs.c'), 'utf8'));
  const res = resourceBytes(readFileSync(join(dir, 'mc.resources.c'), 'utf8'));
  const resTotal = res.reduce((s, r) => s + r.bytes, 0);
  const assets = res.find((r) => r.name === 'assets.bin')?.bytes ?? 0;
  const c = riscvCodeBytes(root, join(root, 'build/image-estimate'), log);
  const measured = xs.total + resTotal + c.bytes;
  const lines = [
    `image estimate: ${MB(measured)} measured = preloaded XS ${MB(xs.total)} (slots ${MB(xs.slots)}, tables ${MB(xs.tables)}, byte code and strings ${MB(xs.code + xs.strings)}) + resources ${MB(resTotal)} (assets.bin ${MB(assets)}, ${res.length - 1} more) + our C ${(c.bytes / 1024).toFixed(0)} KB (RISC-V -Os stand-in${c.skipped.length ? `; not compiled freestanding: ${c.skipped.join(', ')}` : ''})`,
    `slot ${MB(slot)} (partitions.csv ota_0): ${MB(slot - measured)} left for ESP-IDF, the XS engine and the SDK's C modules, which this machine cannot compile (no ESP-IDF)`,
  ];
  const fontsSize = partitionSize(csv, 'fonts');
  if (fontsPack && existsSync(fontsPack) && fontsSize) {
    const n = statSync(fontsPack).size;
    lines.push(`fonts partition: ${MB(n)} (the CJK glyphs, build/assets/fonts.bin) in ${MB(fontsSize)}: ${MB(fontsSize - n)} free`);
  }
  return { lines, measured, slot, margin: slot - measured, xs, resources: res, c };
}

