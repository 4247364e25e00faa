// npm run bench, the assistant section: device-side cost of a turn on XS and
// the XS heap high-water during a 10-round tool loop, on the simulator
// against the provider emulator (loopback, TLS), read from TURNSTAT?.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMULATOR_NAMES, routeArgs, start, turnObject } from '../tools/provider-emulator.mjs';
import { ROOT } from '../tools/build.mjs';

export function boardWith(args) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-turn-'));
  const child = spawn(process.execPath, [join(ROOT, 'build/sim/board.mjs'), '--device-dir', join(dir, 'dev'), '--http-port', '0', '--quiet', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const waitFor = async (re, from, ms = 30_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = re.exec(out.slice(from));
      if (m) return m;
      if (Date.now() > deadline) throw new Error(`bench: no ${re} in ${out.slice(from, from + 400)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const command = async (line) => {
    const from = out.length;
    child.stdin.write(line + '\n');
    const m = await waitFor(/^(OK|ERR.*)\r?$/m, from);
    return out.slice(from, from + m.index + m[0].length);
  };
  const stop = () =>
    new Promise((r) => {
      child.once('exit', () => {
        rmSync(dir, { recursive: true, force: true });
        r();
      });
      child.kill('SIGTERM');
    });
  return { waitFor, command, stop, out: () => out, write: (line) => child.stdin.write(line + '\n'), deviceDir: join(dir, 'dev'), pid: () => child.pid };
}

const stat = (text) => Object.fromEntries([...text.matchAll(/(\w+)=([\w.-]+)/g)].map((m) => [m[1], m[2]]));

export async function turnBench() {
  const emu = await start();
  const board = boardWith(routeArgs(emu.port, EMULATOR_NAMES));
  try {
    const http = await board.waitFor(/^HTTP: (http:\/\/127\.0\.0\.1:\d+)\//m, 0);
    const token = /^([0-9a-f]{24})\r?$/m.exec(await board.command('WEBTOK?'))[1];
    const res = await fetch(`${http[1]}/api/orch`, { method: 'POST', headers: { 'X-Device-Token': token }, body: new URLSearchParams({ key_anthropic: 'sk-bench' }) });
    if (res.status !== 200) throw new Error(`bench: /api/orch ${res.status}`);
    const single = [];
    for (let i = 0; i < 12; i++) {
      emu.script({ turn: turnObject(`Reply number ${i}.`, { mem_write: [{ content: `bench fact ${i}`, importance: 0.5, permanent: false, ttl: 'days' }] }) });
      await board.command(`TURN tell me something, round ${i}`);
      single.push(stat(await board.command('TURNSTAT?')));
    }
    const device = single.slice(2).map((s) => Number(s.deviceMs)).sort((a, b) => a - b);
    const tenRounds = () => [...Array.from({ length: 9 }, (_, i) => ({ tools: [{ name: 'device_status', args: { n: i } }] })), { turn: turnObject('done after ten rounds') }];
    // The loop measured with a collection after every round: live high-water, not collector laziness.
    await board.command('HEAPPROBE on');
    emu.script(tenRounds());
    await board.command('TURN run ten rounds');
    const loop = stat(await board.command('TURNSTAT?'));
    return {
      loopLivePeak: Number(loop.xsLivePeak),
      medianDeviceMs: device[device.length >> 1],
      bestDeviceMs: device[0],
      providerMs: Number(single[single.length - 1].providerMs),
      loopRounds: Number(loop.rounds),
      loopPeak: Number(loop.xsPeak),
      loopStatic: Number(loop.xsStatic),
    };
  } finally {
    await board.stop();
    await emu.close();
  }
}
