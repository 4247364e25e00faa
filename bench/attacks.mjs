// The owner's latency while the LAN is hostile (issue 26): the simulator as
// `npm start` boots it, an owner with the token asking GET /api/state on a
// fresh connection each time, first on a quiet LAN and then under each
// attack of tools/lan-attacks.mjs (its own process, loopback only), side by
// side in one run. For each: p50, p99 and the slowest answer, and the XS heap
// high-water while it lasted: the live heap (sampled after a collection)
// above where it was before, and the allocator's peak (garbage included)
// since HEAPRESET.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../tools/build.mjs';
import { CONNECTION_ATTACKS, probes, spawnAttack, summarize } from '../tools/lan-attacks.mjs';

const ATTACKS = [...CONNECTION_ATTACKS, ['codes', 16]];

/** Boots the simulator; resolves with its port, a console to it, and stop(). */
function boot(deviceDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'tools/start.mjs'), '--device-dir', deviceDir, '--http-port', '0', '--quiet'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const timer = setTimeout(() => reject(new Error(`no HTTP line in 20 s: ${out}`)), 20_000);
    const command = (line) =>
      new Promise((res) => {
        const from = out.length;
        child.stdin.write(line + '\r\n');
        const look = () => {
          const m = /\n(OK|ERR[^\r\n]*)\r?\n/.exec(out.slice(from));
          if (m) res(out.slice(from, from + m.index));
          else setTimeout(look, 5);
        };
        look();
      });
    const poll = () => {
      const m = /HTTP: http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (!m) return void setTimeout(poll, 10);
      clearTimeout(timer);
      resolve({
        port: Number(m[1]),
        command,
        stop: () =>
          new Promise((r) => {
            child.once('exit', r);
            child.kill('SIGTERM');
          }),
      });
    };
    poll();
  });
}

const num = (text, key) => Number(new RegExp(`\\b${key}=(\\d+)`).exec(text)?.[1] ?? NaN);

export async function attackBench(row) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-attacks-'));
  const sim = await boot(join(dir, 'dev'));
  try {
    const token = (await sim.command('WEBTOK?')).trim().split(/\r?\n/).pop();
    const heap = async () => {
      const h = await sim.command('HEAP?');
      return { ram: num(h, 'xsRam'), peakRam: num(h, 'xsPeak') - num(h, 'xsStatic') };
    };
    const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
    const measure = async (kind, connections) => {
      const before = await heap();
      await sim.command('HEAPRESET');
      const attack = kind ? await spawnAttack(kind, { port: sim.port, connections, seconds: 120 }) : null;
      const results = [];
      let liveHigh = before.ram;
      try {
        for (let round = 0; round < 4; round++) {
          results.push(...(await probes({ port: sim.port, token, n: 50, gapMs: 10 })).results);
          liveHigh = Math.max(liveHigh, (await heap()).ram);
        }
      } finally {
        if (attack) {
          await attack.stop();
          await attack.release();
        }
      }
      const peak = (await heap()).peakRam;
      const s = summarize(results);
      row(
        kind ? `under ${kind} (${connections} ${kind === 'flood' || kind === 'all' ? 'workers' : 'connections'})` : 'quiet LAN',
        `${s.ok} of ${s.n} answered within 2 s; p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, slowest ${s.max.toFixed(1)} ms; live XS heap high-water ${kb(liveHigh)} (+${kb(liveHigh - before.ram)} over before), allocator peak ${kb(peak)} (garbage included: the simulator collects in 2 MB steps)`,
      );
    };
    await measure(null, 0);
    for (const [kind, connections] of ATTACKS) await measure(kind, connections);
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
