// Network time on the simulator: the real firmware on XS boots with its
// wall clock unset and sets it over SNTP, in real NTP packets over the
// simulated UDP, from the board's time server (hosts/sim/board/timeserver.ts;
// a real client, the npm `sntp` package, checks that server here, and
// chronyd 4.3 accepted it when it was written). The unset window after a
// power cut: a provider call over TLS waits for the time and fails with the
// reason (console, log and /api/state) when none comes; one made when the
// time is reachable waits and goes through; the RTC keeps the time across a
// software reboot. Time moves by warps: no test sleeps for it.

import Sntp from 'sntp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_NAMES, routeArgs, start, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

let emu: Emulator;
let device: Device;
let token = '';

interface ClockSection {
  synced: boolean;
  wallMs: number | null;
  server: string | null;
  lastError: string | null;
  tls: { waiting: number; refused: number; lastRefusal: string | null };
}

async function clock(): Promise<ClockSection> {
  const res = await device.fetch('/api/state', { token });
  return ((await res.json()) as { clock: ClockSection }).clock;
}

interface BoardClock {
  rtcMs: number | null;
  worldMs: number;
  timeServer: { port: number; mode: string; offsetMs: number; queries: number; answers: number };
}

async function boardClock(): Promise<BoardClock> {
  return (await device.board.request<{ clock: BoardClock }>('status')).clock;
}

/** Boots again after a power cut (the RTC loses the time) and waits for HTTP. */
async function powerCycle(): Promise<void> {
  const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
  await device.board.request('power.cut');
  await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 15_000 });
}

/** Runs a console command while warping the device's clock on, until it answers. */
async function withWarps(line: string, stepMs: number): Promise<string> {
  const reply = device.command(line, 60_000);
  let done = false;
  void reply.finally(() => (done = true));
  for (let i = 0; i < 100 && !done; i++) {
    await device.board.request('clock.warp', { ms: stepMs });
    await new Promise((r) => setTimeout(r, 100));
  }
  return reply;
}

beforeAll(async () => {
  emu = await start();
  device = await startDevice({ args: routeArgs(emu.port, EMULATOR_NAMES) });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  const res = await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ key_anthropic: 'sk-e2e-anthropic', priority: 'anthropic' }) });
  expect(res.status).toBe(200);
});

afterAll(async () => {
  await cleanup();
  await emu?.close();
});

describe('network time on the simulator', () => {
  it("boots unset and sets its clock from the board's time server in real NTP packets", async () => {
    const c = await clock();
    expect(c).toMatchObject({ synced: true, server: 'pool.ntp.org', lastError: null });
    expect(Math.abs(c.wallMs! - Date.now())).toBeLessThan(3000);
    const board = await boardClock();
    expect(board.timeServer).toMatchObject({ mode: 'answer', offsetMs: 0 });
    expect(board.timeServer.answers).toBeGreaterThanOrEqual(1);
    // The board keeps what the firmware set as its RTC.
    expect(Math.abs(board.rtcMs! - Date.now())).toBeLessThan(3000);
    // A client we did not write takes the board's server for an NTP server.
    const t = await Sntp.time({ host: '127.0.0.1', port: board.timeServer.port, timeout: 5000 });
    expect(Math.abs(t.t)).toBeLessThan(1000);
    expect(t.stratum).toBe('secondary');
  });

  it('takes the time the server gives: three days ahead, TIMESYNC follows it', async () => {
    await device.board.request('time.server', { offsetMs: 3 * 86_400_000 });
    try {
      // Within 15 s of its last answer a server is not asked again: the warps carry the device past that.
      const out = await withWarps('TIMESYNC', 5000);
      expect(out).toMatch(/^set from pool\.ntp\.org: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(round trip \d+ ms\)\nOK$/);
      const c = await clock();
      const world = (await boardClock()).worldMs;
      expect(Math.abs(c.wallMs! - (world + 3 * 86_400_000))).toBeLessThan(3000);
    } finally {
      await device.board.request('time.server', { offsetMs: 0 });
    }
  });

  it('keeps the time across a software reboot (the RTC) and loses it at a power cut', async () => {
    await device.board.request('time.server', { mode: 'silent' });
    try {
      const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
      await device.board.request('reboot', { reason: 'software' });
      await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 15_000 });
      expect(await clock()).toMatchObject({ synced: true, server: null });
      await powerCycle();
      const c = await clock();
      expect(c).toMatchObject({ synced: false, wallMs: null, server: null });
      expect((await boardClock()).rtcMs).toBeNull();
      // Times shown to people say so rather than show 1970.
      const tz = (await (await device.fetch('/api/timezone', { token })).json()) as { now: string; synced: boolean };
      expect(tz).toMatchObject({ synced: false, now: 'unknown (the clock is not set yet)' });
      const routines = (await (await device.fetch('/api/routines', { token })).json()) as { synced: boolean };
      expect(routines.synced).toBe(false);
    } finally {
      await device.board.request('time.server', { mode: 'answer' });
    }
  });

  it('a provider call in the unset window fails with the reason when no time comes, in the reply, the log and /api/state', async () => {
    await device.board.request('time.server', { mode: 'silent' });
    try {
      await powerCycle();
      emu.reset();
      emu.script({ turn: turnObject('never sent') });
      const out = await withWarps('TURN hello', 5000);
      expect(out).toMatch(/^ERR .*ETLS: the clock is not set \(no network time within 10 s\), so the certificate of api\.anthropic\.com cannot be checked$/m);
      expect(emu.requests).toHaveLength(0);
      const c = await clock();
      expect(c.synced).toBe(false);
      expect(c.tls.refused).toBeGreaterThanOrEqual(1);
      expect(c.tls.lastRefusal).toMatch(/^ETLS: the clock is not set .*certificate of api\.anthropic\.com cannot be checked$/);
      expect(c.lastError).toMatch(/pool\.ntp\.org: no answer within 3 s/);
      const log = await (await device.fetch('/api/log', { token })).text();
      expect(log).toContain('W clock: TLS to api.anthropic.com refused: the clock is not set');
    } finally {
      await device.board.request('time.server', { mode: 'answer' });
    }
  });

  it('a provider call in the unset window waits for the time and goes through once it comes', async () => {
    await device.board.request('time.server', { mode: 'silent' });
    await powerCycle();
    // Unset, with the boot's round failed (three servers, 3 s each): the next try is 15 s away.
    await device.board.request('clock.warp', { ms: 10_000 });
    await device.board.request('wait', { for: 'log', match: 'W clock: no network time', timeoutMs: 15_000 });
    expect((await clock()).synced).toBe(false);
    await device.board.request('time.server', { mode: 'answer' });
    emu.reset();
    emu.script({ turn: turnObject('the time came') });
    // The waiting connection asks the servers at once (no warp needed).
    expect(await device.command('TURN hello', 30_000)).toBe('the time came\nOK');
    expect(emu.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    const c = await clock();
    expect(c).toMatchObject({ synced: true, server: 'pool.ntp.org' });
    expect(Math.abs(c.wallMs! - (await boardClock()).worldMs)).toBeLessThan(3000);
  });
});
