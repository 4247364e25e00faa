#!/usr/bin/env node
// The figures the device's creation sizes (manifest.json "creation") are
// chosen from, measured on the simulator's XS running the real firmware
// against the provider emulator: a device holding 6000 memories (filled over
// the console, then rebooted so the store loads them from the card), then a
// 10-round tool loop. Reads HEAP? (XS heap, keys created at run time, the XS
// stack's high-water in slots) after boot, after the load and after the
// loop, and TURNSTAT? (the loop's live heap high-water). docs/device.md
// quotes them.
//
// Usage: node bench/creation.mjs [memories]   (after npm run build; also part of npm run bench)
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EMULATOR_NAMES, routeArgs, start, turnObject } from '../tools/provider-emulator.mjs';
import { boardWith } from './turn.mjs';

const FINAL = /^(OK|ERR.*)\r?$/m;
const stat = (text) => Object.fromEntries([...text.matchAll(/(\w+)=([\w.-]+)/g)].map((m) => [m[1], Number(m[2])]));

export async function creationFigures({ memories = 6000, log = () => {} } = {}) {
  const emu = await start();
  const board = boardWith(routeArgs(emu.port, EMULATOR_NAMES));
  const long = async (line, ms) => {
    const from = board.out().length;
    board.write(line);
    const m = await board.waitFor(FINAL, from, ms);
    return board.out().slice(from, from + m.index + m[0].length);
  };
  try {
    const http = await board.waitFor(/^HTTP: (http:\/\/127\.0\.0\.1:\d+)\//m, 0);
    const token = /^([0-9a-f]{24})\r?$/m.exec(await board.command('WEBTOK?'))[1];
    const res = await fetch(`${http[1]}/api/orch`, { method: 'POST', headers: { 'X-Device-Token': token }, body: new URLSearchParams({ key_anthropic: 'sk-bench' }) });
    if (res.status !== 200) throw new Error(`creation: /api/orch ${res.status}`);
    const afterBoot = stat(await long('HEAP?', 60_000));
    log(`filling ${memories} memories...`);
    const fill = await long(`MEMFILL vec ${memories} 100`, 1_800_000);
    if (!/^OK/m.test(fill)) throw new Error(`MEMFILL: ${fill}`);
    const from = board.out().length;
    board.write('REBOOT');
    await board.waitFor(/^HTTP: http:\/\/127\.0\.0\.1:\d+\//m, from, 120_000);
    const status = await long('STATUS', 60_000);
    const vec = Number(/\bvec=(\d+)/.exec(status)?.[1] ?? NaN);
    const afterLoad = stat(await long('HEAP?', 60_000));
    log('10-round tool loop...');
    const tenRounds = [...Array.from({ length: 9 }, (_, i) => ({ tools: [{ name: 'device_status', args: { n: i } }] })), { turn: turnObject('done after ten rounds') }];
    await board.command('HEAPPROBE on');
    emu.script(tenRounds);
    await long('TURN run ten rounds', 120_000);
    const loop = stat(await board.command('TURNSTAT?'));
    const afterLoop = stat(await long('HEAP?', 60_000));
    return { memories: vec, afterBoot, afterLoad, loop, afterLoop };
  } finally {
    await board.stop();
    await emu.close();
  }
}

export async function creationBench(row) {
  const f = await creationFigures();
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  row('XS heap after boot, RAM part (live, no memories)', `${kb(f.afterBoot.xsRam)}; stack high-water ${f.afterBoot.stackPeak} slots; ${f.afterBoot.keys} keys created`);
  row(`keys created at run time (${f.memories} memories loaded, then a ${f.loop.rounds}-round tool loop)`, `${f.afterLoad.keys} after the load, ${f.afterLoop.keys} after the loop`);
  row('XS stack high-water since boot (slots)', `${f.afterLoad.stackPeak} after the load, ${f.afterLoop.stackPeak} after the loop`);
  row(`XS heap, RAM part, ${f.memories} memories loaded (live)`, `${kb(f.afterLoad.xsRam)}; loop high-water (live) ${kb(f.loop.xsLivePeak - f.loop.xsStatic)}`);
  return f;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const f = await creationFigures({ memories: Number(process.argv[2] ?? 6000), log: (l) => console.error(l) });
  console.log(JSON.stringify(f, null, 2));
}
