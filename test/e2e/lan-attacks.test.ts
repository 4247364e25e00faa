// Staying available to the owner while another machine on the LAN is hostile
// (issue 26; docs/decisions.md, "Staying available under attack"): under
// each attack of tools/lan-attacks.mjs (run as its own process, loopback
// only, bounded), a client with the token gets its answer within 2 s on 100
// fresh connections out of 100; the firmware never holds more than its 8
// connections; and once the attack stops (and the simulator's clock is moved
// past every deadline) connections, the board's sockets and the live XS
// heap are back where they started. Wrong sign-in codes and launch keys by
// the thousand never keep a valid one from working at once.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_ATTACKS, probes, spawnAttack, summarize } from '../../tools/lan-attacks.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

let device: Device;
let token = '';
let port = 0;

beforeAll(async () => {
  device = await startDevice();
  port = Number(new URL(device.url!).port);
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
});

afterAll(cleanup);

interface Http {
  open: number;
  trusted: number;
  evicted: number;
  refused: number;
  timedOut: number;
}

async function http(): Promise<Http> {
  const line = await device.command('HTTP?');
  const n = (k: string): number => Number(new RegExp(`${k}=(\\d+)`).exec(line)![1]);
  return { open: n('open'), trusted: n('trusted'), evicted: n('evicted'), refused: n('refused'), timedOut: n('timedOut') };
}

/** Live XS heap in RAM after a collection (the code a device keeps in flash left out), and the peak since HEAPRESET. */
async function heap(): Promise<{ ram: number; peakRam: number }> {
  const line = await device.command('HEAP?');
  const n = (k: string): number => Number(new RegExp(`\\b${k}=(\\d+)`).exec(line)![1]);
  return { ram: n('xsRam'), peakRam: n('xsPeak') - n('xsStatic') };
}

async function boardSockets(): Promise<number> {
  return (await device.board.request<{ tcp: { connections: number } }>('status')).tcp.connections;
}

/** Polls (no fixed sleep) until check passes or the wait is over. */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a token holder is answered within 2 s while the LAN is hostile', () => {
  for (const [kind, connections] of CONNECTION_ATTACKS) {
    it(`${kind}: 100 of 100 answered within 2 s; connections and heap bounded, and back to where they were`, async () => {
      // Settle first: the harness's own connections are gone, the heap collected.
      await device.board.request('clock.warp', { ms: 60_000 });
      expect(await until(async () => (await http()).open === 0)).toBe(true);
      const sockets0 = await boardSockets();
      const heap0 = await heap();
      await device.command('HEAPRESET');
      const attack = await spawnAttack(kind, { port, connections, seconds: 120 });
      const results = [];
      let during: Http;
      // The live heap (after a collection) is sampled between rounds of probes: its high-water is what
      // the attack costs; the allocator's peak also counts garbage not yet collected.
      let liveHigh = heap0.ram;
      try {
        for (let round = 0; round < 4; round++) {
          results.push(await probes({ port, token, n: 25 }));
          liveHigh = Math.max(liveHigh, (await heap()).ram);
        }
        during = await http();
      } finally {
        await attack.stop();
      }
      const result = summarize(results.flatMap((r) => r.results));
      expect(result.failures).toEqual([]);
      expect(result.ok).toBe(100);
      expect(result.max).toBeLessThan(2000);
      expect(during.open).toBeLessThanOrEqual(64);
      const peak = (await heap()).peakRam;
      expect(peak).toBeGreaterThanOrEqual(liveHigh);
      // Half-open connections are still held by the attacker: the device frees them by its own deadlines.
      await device.board.request('clock.warp', { ms: 60_000 });
      expect(await until(async () => (await http()).open === 0), JSON.stringify(await http())).toBe(true);
      await attack.release();
      expect(await until(async () => (await boardSockets()) <= sockets0), `board sockets ${await boardSockets()} > ${sockets0}`).toBe(true);
      const after = await heap();
      console.log(`${kind}: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(1)} ms; live heap ${heap0.ram} -> high ${liveHigh} -> ${after.ram} (allocator peak ${peak}); ${JSON.stringify(during)}`);
      // Bounded while it lasted, and back afterwards (a little slack for the log ring and caches).
      expect(liveHigh - heap0.ram).toBeLessThan(128 * 1024);
      expect(after.ram - heap0.ram).toBeLessThan(32 * 1024);
    }, 120_000);
  }
});

/** One request on a fresh connection, timed: status, Location and body. */
function once(method: string, path: string, body = '', headers: Record<string, string> = {}): Promise<{ status: number; location: string; text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent: false, headers: { Connection: 'close', ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? ''), text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }));
    });
    req.setTimeout(2000, () => req.destroy(new Error('no answer in 2 s')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('guessing a secret never keeps the owner out', () => {
  it('under a stream of wrong sign-in codes, a valid code is exchanged for the token at once, 100 of 100', async () => {
    const attack = await spawnAttack('codes', { port, connections: 16, seconds: 120 });
    const slowest: number[] = [];
    let stats;
    try {
      for (let i = 0; i < 100; i++) {
        const minted = JSON.parse((await once('GET', '/api/signin/code', '', { 'X-Device-Token': token })).text) as { code: string };
        const r = await once('POST', '/api/signin/exchange', `code=${minted.code}`);
        expect(r.status, r.text).toBe(200);
        expect(JSON.parse(r.text)).toEqual({ token });
        slowest.push(r.ms);
      }
    } finally {
      stats = (await attack.stop()).stats;
      await attack.release();
    }
    // The attack was real: wrong codes by the hundred a second, every one refused, none with a lockout.
    expect(stats.answers['401']).toBeGreaterThan(500);
    expect(stats.answers['429']).toBeUndefined();
    expect(Math.max(...slowest)).toBeLessThan(2000);
    console.log(`codes: ${stats.answers['401']} wrong codes refused; slowest valid exchange ${Math.max(...slowest).toFixed(1)} ms`);
  }, 120_000);

  it('under a stream of wrong launch keys, the exact key still gets the authorize address at once, 100 of 100', async () => {
    const fields = new URLSearchParams({ id: 'calendar', name: 'Calendar', kind: 'mcp', url: 'https://mcp.calendar.test/mcp', auth: 'oauth', authorize_url: 'https://auth.calendar.test/authorize', token_url: 'https://auth.calendar.test/token', client_id: 'desk', scope: 'read' });
    expect((await once('POST', '/api/connectors', fields.toString(), { 'X-Device-Token': token })).status).toBeLessThan(300);
    const started = await once('POST', '/api/connectors', 'action=signin&id=calendar', { 'X-Device-Token': token });
    const path = (JSON.parse(started.text) as { verifyPath: string }).verifyPath;
    const attack = await spawnAttack('keys', { port, connections: 16, seconds: 120 });
    let stats;
    try {
      for (let i = 0; i < 100; i++) {
        const r = await once('POST', path);
        expect(r.status).toBe(303);
        expect(r.location).toMatch(/^https:\/\/auth\.calendar\.test\/authorize\?/);
        expect(r.ms).toBeLessThan(2000);
      }
    } finally {
      stats = (await attack.stop()).stats;
      await attack.release();
    }
    expect(stats.answers['303']).toBeGreaterThan(500);
  }, 120_000);
});
