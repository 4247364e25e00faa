// Boots the whole device: an unset clock holds every certificate-checking connection of every subsystem, as boot wires it.
// Network time on the firmware (src/clock/): the device boots with its wall
// clock unset, as an ESP32 does after a power-on, and sets it over SNTP from
// time servers on the in-memory network (the simulator board's NTP answer,
// which chronyd accepts). The unset window is what these tests are about:
// certificate-checking connections wait for the time (bounded) or fail with
// the reason in the log and the state, routines do not fire and the
// sub-agent brief has no now-header until the time arrives; the clock is set
// again daily; a Kiss-o'-Death, a silent server and a network that comes up
// later are each handled.

import { describe, expect, it } from 'vitest';
import { boot, HTTP_PORT, type Device } from '../../../src/main.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { QUERY_TIMEOUT_MS, RESYNC_MS, RETRY_FIRST_MS, TLS_CLOCK_WAIT_MS } from '../../../src/clock/sync.ts';
import { buildBrief, type BriefDeps } from '../../../src/agents/brief.ts';
import { NO_DOCS, NO_SKILLS } from '../../../src/agents/ports.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { FakeTimeServers } from '../../support/ntp.ts';
import { lastUserText, TestWire } from '../../support/test-wire.ts';
import type { ClientResult } from '../../../src/net/http/client.ts';
import { ClockSync, gateTlsOnClock } from '../../../src/clock/index.ts';
import { Log } from '../../../src/log/log.ts';
import type { ConnectOptions, Net } from '../../../src/hal/index.ts';

/** The true time the servers serve at mono 0. */
const TRUE_T0 = Date.UTC(2026, 10, 22, 9, 0, 0);
const MCP: ToolCaller = { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null };

interface Rig {
  mem: MemHal;
  device: Device;
  servers: FakeTimeServers;
  wire: TestWire;
  truth(): number;
}

/** An ESP32 after a power-on: the wall clock counts from 1970 and is not synced. */
function setup(options: { silent?: boolean; mode?: 0 | 1; provisioned?: boolean; offline?: boolean } = {}): Rig {
  const mem = createMemHal({ wallMs: 0, synced: false });
  if (options.provisioned) {
    mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
    mem.wifi.networks.set('Home', 'home-pass-1');
  }
  if (options.mode !== undefined) mem.nvs.set('sys', 'mode', options.mode);
  if (options.offline) mem.net.online = false;
  const truth = (): number => TRUE_T0 + mem.clock.monoMs();
  const servers = new FakeTimeServers(mem.net, truth);
  if (options.silent) servers.mode = 'silent';
  mem.net.serve('api.example.com', 443, (s) => {
    s.onData = () => {
      s.send('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello');
      s.close(null);
    };
  });
  const wire = new TestWire();
  const device = boot(mem.hal, { wire });
  return { mem, device, servers, wire, truth };
}

async function state(rig: Rig): Promise<Record<string, unknown>> {
  const res = await request(rig.mem.net, HTTP_PORT, 'GET', '/api/state', { headers: { 'X-Device-Token': rig.device.ctx.token.reveal() } });
  return JSON.parse(res.body) as Record<string, unknown>;
}

async function cmd(rig: Rig, line: string, advanceMs = 0): Promise<string> {
  rig.mem.serial.take();
  rig.mem.serial.type(line + '\r\n');
  await flushJobs();
  if (advanceMs) await rig.mem.clock.advance(advanceMs);
  await flushJobs();
  return rig.mem.serial.take().replace(/\r/g, '');
}

/** An HTTPS GET through the device's client; the result once it settles. */
function fetchHttps(rig: Rig): { done: () => ClientResult | null } {
  let result: ClientResult | null = null;
  void rig.device.ctx.client.request({ method: 'GET', url: 'https://api.example.com/', timeoutMs: 30_000 }).then((r) => (result = r));
  return { done: () => result };
}

const connectsTo = (rig: Rig, host: string): number => rig.mem.net.attempts.filter((a) => a.host === host).length;

describe('network time', { timeout: 30_000 }, () => {
  it('boots unset and sets the clock from the first time server over SNTP at once', async () => {
    const rig = setup();
    expect(rig.mem.clock.synced()).toBe(false);
    await rig.mem.clock.advance(10);
    expect(rig.servers.queries).toEqual(['pool.ntp.org']);
    const sent = rig.mem.net.datagrams.find((d) => d.address === 'pool.ntp.org')!;
    expect(sent).toMatchObject({ port: 123 });
    expect(sent.bytes).toHaveLength(48);
    expect(rig.mem.clock.synced()).toBe(true);
    expect(Math.abs(rig.mem.clock.wallMs() - rig.truth())).toBeLessThan(5);
    expect(await state(rig)).toMatchObject({
      clock: { synced: true, server: 'pool.ntp.org', lastCorrectionMs: null, lastError: null, syncing: false, nextSyncInS: RESYNC_MS / 1000, tls: { waiting: 0, refused: 0, lastRefusal: null } },
    });
    expect(rig.device.ctx.log.text()).toMatch(/clock: set from pool\.ntp\.org: 2026-11-22 09:00:00 UTC\n/);
    // The RTC was told: the HAL's clock now reads the true time.
    expect((await cmd(rig, 'CLOCK?')).split('\n')[0]).toMatch(/^synced=yes now=2026-11-22T09:00:00Z server=pool\.ntp\.org last=0s next=86400s tlsRefused=0$/);
  });

  it('asks the next server when one is silent, and one that answers "unsynchronized" is not believed', async () => {
    const rig = setup();
    rig.servers.modes.set('pool.ntp.org', 'silent');
    rig.servers.modes.set('time.cloudflare.com', 'unsynced');
    await rig.mem.clock.advance(QUERY_TIMEOUT_MS + 10);
    expect(rig.servers.queries).toEqual(['pool.ntp.org', 'time.cloudflare.com', 'time.google.com']);
    expect(rig.mem.clock.synced()).toBe(true);
    expect((await state(rig))['clock']).toMatchObject({ server: 'time.google.com' });
  });

  it('a certificate-checking connection made while the clock is unset waits for the time, then connects', async () => {
    const rig = setup({ silent: true });
    await rig.mem.clock.advance(1000);
    const get = fetchHttps(rig);
    await rig.mem.clock.advance(2000);
    // Held: no connection yet, and the state says one waits.
    expect(connectsTo(rig, 'api.example.com')).toBe(0);
    expect(((await state(rig))['clock'] as { tls: unknown }).tls).toEqual({ waiting: 1, refused: 0, lastRefusal: null });
    rig.servers.mode = 'answer';
    // The boot round asks the third server at 6 s; it answers, and the connection goes ahead.
    await rig.mem.clock.until(() => get.done() !== null, 10_000);
    expect(get.done()).toMatchObject({ ok: true, response: { status: 200 } });
    expect(connectsTo(rig, 'api.example.com')).toBe(1);
    expect(rig.mem.net.attempts.find((a) => a.host === 'api.example.com')!.tls).toMatchObject({ serverName: 'api.example.com', verify: true });
    expect(rig.device.ctx.log.text()).not.toContain('refused');
  });

  it('fails with the stated reason, in the log and the state, when no time comes within the bound', async () => {
    const rig = setup({ silent: true });
    const get = fetchHttps(rig);
    await rig.mem.clock.advance(TLS_CLOCK_WAIT_MS - 100);
    expect(get.done()).toBeNull();
    await rig.mem.clock.advance(200);
    const r = get.done();
    expect(r).toMatchObject({ ok: false, error: 'tls' });
    expect(r!.ok === false && r!.message).toBe('ETLS: the clock is not set (no network time within 10 s), so the certificate of api.example.com cannot be checked');
    expect(connectsTo(rig, 'api.example.com')).toBe(0);
    const clock = (await state(rig))['clock'] as Record<string, unknown>;
    expect(clock).toMatchObject({ synced: false, wallMs: null, server: null, tls: { waiting: 0, refused: 1, lastRefusal: r!.ok === false ? r!.message : '' } });
    expect(clock['lastError']).toMatch(/pool\.ntp\.org: no answer within 3 s/);
    expect(rig.device.ctx.log.text()).toContain('W clock: TLS to api.example.com refused: the clock is not set');
    expect(rig.device.ctx.log.text()).toContain('W clock: no network time (pool.ntp.org: no answer within 3 s;');
  });

  it('a connection that checks no certificate (tlsVerify=0) does not wait for the clock', async () => {
    const rig = setup({ silent: true });
    rig.device.ctx.tls.setVerify(false);
    const get = fetchHttps(rig);
    await rig.mem.clock.advance(10);
    expect(get.done()).toMatchObject({ ok: true });
    expect(rig.mem.clock.synced()).toBe(false);
  });

  it('retries a failed round after 15 s, doubling; a waiting connection asks at once (15 s after the last answer at most)', async () => {
    const rig = setup({ silent: true });
    await rig.mem.clock.advance(3 * QUERY_TIMEOUT_MS + 10);
    expect(rig.servers.queries).toHaveLength(3);
    expect((await state(rig))['clock']).toMatchObject({ syncing: false, nextSyncInS: RETRY_FIRST_MS / 1000 });
    await rig.mem.clock.advance(RETRY_FIRST_MS + 3 * QUERY_TIMEOUT_MS);
    expect(rig.servers.queries).toHaveLength(6);
    expect((await state(rig))['clock']).toMatchObject({ nextSyncInS: (2 * RETRY_FIRST_MS) / 1000 });
    // Only the first failure in a row is logged (the ring is small).
    expect(rig.device.ctx.log.text().match(/no network time/g)).toHaveLength(1);
    // A connection waiting for the clock does not wait out the 30 s retry.
    rig.servers.mode = 'answer';
    const get = fetchHttps(rig);
    await rig.mem.clock.advance(50);
    expect(rig.mem.clock.synced()).toBe(true);
    await rig.mem.clock.until(() => get.done() !== null, 1000);
    expect(get.done()).toMatchObject({ ok: true });
  });

  it('sets the clock again every day, correcting its drift', async () => {
    const rig = setup();
    await rig.mem.clock.advance(10);
    expect(rig.servers.queries).toHaveLength(1);
    // The device's crystal ran 5 s slow over the day.
    const truth = rig.truth;
    rig.mem.clock.setWall(rig.mem.clock.wallMs() - 5000);
    await rig.mem.clock.advance(RESYNC_MS);
    expect(rig.servers.queries).toHaveLength(2);
    expect(Math.abs(rig.mem.clock.wallMs() - truth())).toBeLessThan(5);
    const clock = (await state(rig))['clock'] as Record<string, number>;
    expect(clock['lastCorrectionMs']).toBeGreaterThan(4990);
    expect(clock['lastCorrectionMs']).toBeLessThan(5010);
    expect(rig.device.ctx.log.text()).toMatch(/clock: set from pool\.ntp\.org: 2026-11-23 09:00:00 UTC, moved \+(499\d|500\d) ms\n/);
  });

  it("a Kiss-o'-Death DENY drops that server until restart; the others keep the clock", async () => {
    const rig = setup();
    rig.servers.modes.set('pool.ntp.org', 'kod');
    await rig.mem.clock.advance(10);
    expect(rig.servers.queries).toEqual(['pool.ntp.org', 'time.cloudflare.com']);
    expect(rig.mem.clock.synced()).toBe(true);
    await rig.mem.clock.advance(RESYNC_MS);
    expect(rig.servers.queries).toEqual(['pool.ntp.org', 'time.cloudflare.com', 'time.cloudflare.com']);
  });

  it('a round that went nowhere (no network yet) starts again the moment the station has an address', async () => {
    const rig = setup({ provisioned: true, offline: true });
    // The station's join is quick here; the network only carries datagrams after it.
    await flushJobs();
    expect(rig.mem.wifi.station().state).toBe('connected');
    expect(rig.mem.clock.synced()).toBe(false);
    rig.mem.net.online = true;
    rig.mem.wifi.linkDown();
    await flushJobs();
    rig.mem.wifi.stationConnect('Home', 'home-pass-1');
    await rig.mem.clock.advance(10);
    expect(rig.mem.clock.synced()).toBe(true);
    expect(rig.mem.clock.monoMs()).toBeLessThan(QUERY_TIMEOUT_MS);
  });

  it('FAULT clock-unsynced holds certificate-checking connections like an unset clock; clearing it lets them go', async () => {
    const rig = setup();
    await rig.mem.clock.advance(10);
    expect(await cmd(rig, 'FAULT clock-unsynced on')).toMatch(/clock-unsynced=on/);
    const get = fetchHttps(rig);
    await rig.mem.clock.advance(3000);
    expect(connectsTo(rig, 'api.example.com')).toBe(0);
    expect(await cmd(rig, 'FAULT clock-unsynced off')).toMatch(/clock-unsynced=off/);
    await rig.mem.clock.until(() => get.done() !== null, 1000);
    expect(get.done()).toMatchObject({ ok: true });
  });

  it('routines do not fire on the unset clock; once the time arrives they run', async () => {
    const rig = setup({ silent: true });
    const created = await rig.device.ctx.tools.call('loop.create', { name: 'News', prompt: 'Tell me the news.', schedule: { kind: 'interval', every_seconds: 300 } }, MCP);
    expect(created).toMatchObject({ success: true });
    const id = /Routine (r[0-9a-f]{4})/.exec(created.output)![1]!;
    const token = rig.device.ctx.token.reveal();
    const approve = await request(rig.mem.net, HTTP_PORT, 'POST', '/api/routines', {
      headers: { 'X-Device-Token': token, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `action=approve&id=${id}`,
    });
    expect(JSON.parse(approve.body)).toMatchObject({ approved: true, next: 'when the clock is set' });
    const scheduled = (): number => rig.wire.seen.map(lastUserText).filter((t) => t.startsWith('[SYSTEM] Scheduled routine')).length;
    await rig.mem.clock.advance(3600_000);
    expect(scheduled()).toBe(0);
    rig.servers.mode = 'answer';
    // The next retry comes within 5 minutes; the scheduler sees the clock within a minute; the routine runs 5 minutes on.
    await rig.mem.clock.advance(12 * 60_000);
    expect(rig.mem.clock.synced()).toBe(true);
    expect(scheduled()).toBeGreaterThanOrEqual(1);
  });

  it('the sub-agent brief carries no now-header until the time arrives, then the true time', async () => {
    const rig = setup({ silent: true });
    // The deps the agents subsystem gives the brief (src/agents/index.ts): the device's own local time.
    const deps: BriefDeps = { now: () => rig.device.ctx.time.nowStamp(), skills: NO_SKILLS, docs: NO_DOCS, conversation: () => [] };
    const spec = { task: 'Find the news.', provider: '', model: '', skill: '', name: 'news', project: '', attach: [], chat: 'console', person: null, admin: true };
    const brief = (): string => buildBrief(spec, deps).text;
    await rig.mem.clock.advance(1000);
    expect(brief()).not.toMatch(/Now:/);
    rig.servers.mode = 'answer';
    await rig.mem.clock.advance(RETRY_FIRST_MS + 3 * QUERY_TIMEOUT_MS);
    expect(rig.mem.clock.synced()).toBe(true);
    expect(brief()).toMatch(/^Now: Sun 2026-11-22 09:00 UTC/);
  });

  it('Notifier mode asks no time server (no Wi-Fi); the console says how the clock stands', async () => {
    const rig = setup({ mode: 0 });
    await rig.mem.clock.advance(60_000);
    expect(rig.mem.net.datagrams).toEqual([]);
    expect(rig.mem.clock.synced()).toBe(false);
    expect(await cmd(rig, 'CLOCK?')).toBe('synced=no now=- server=- last=- next=- tlsRefused=0\nOK\n');
    expect(await cmd(rig, 'TIMESYNC')).toBe('ERR network time runs in Orchestrator mode (MODE 1)\n');
  });

  it('TIMESYNC asks now and prints the outcome (or why not)', async () => {
    const rig = setup({ silent: true });
    await rig.mem.clock.advance(3 * QUERY_TIMEOUT_MS + 10);
    rig.servers.mode = 'answer';
    expect(await cmd(rig, 'TIMESYNC', 100)).toMatch(/^set from pool\.ntp\.org: 2026-11-22 09:00:09 UTC \(round trip \d+ ms\)\nOK\n$/);
    rig.servers.mode = 'silent';
    // Within 15 s of the last answer the servers are not asked again.
    expect(await cmd(rig, 'TIMESYNC', 15_000 + 3 * QUERY_TIMEOUT_MS + 10)).toMatch(/^ERR no network time: pool\.ntp\.org: no answer within 3 s; /);
  });

  it("the gate hands the real connect the caller's own deadline once the clock is set, and a connect that throws fails the socket", async () => {
    const mem = createMemHal({ wallMs: 0, synced: false });
    mem.net.serve('api.example.com', 443, () => {});
    const seen: ConnectOptions[] = [];
    let refuse = false;
    const net: Net = {
      listen: (p, a) => mem.net.listen(p, a),
      udp: (p) => mem.net.udp(p),
      multicast: (g, p) => mem.net.multicast(g, p),
      connect(o) {
        seen.push(o);
        if (refuse) throw new Error('no sockets left');
        return mem.net.connect(o);
      },
    };
    const sync = new ClockSync({ net: mem.net, clock: mem.clock, random: (b) => mem.hal.system.random(b), log: new Log(mem.clock, mem.system) });
    const gated = gateTlsOnClock(net, mem.clock, sync);
    const tls = { serverName: 'api.example.com', verify: true, caBundle: '' };
    const a = gated.connect({ host: 'api.example.com', port: 443, tls, timeoutMs: 7_500 });
    let closed: string | null | undefined;
    a.onClose = (e) => (closed = e);
    await mem.clock.advance(1_234.6);
    mem.clock.setWall(TRUE_T0);
    await mem.clock.advance(250);
    // Released at the next look at the clock (every 250 ms), with the options as the caller gave them.
    expect(seen).toEqual([{ host: 'api.example.com', port: 443, tls, timeoutMs: 7_500 }]);
    expect(closed).toBeUndefined();
    mem.clock.setWall(0, false);
    refuse = true;
    const b = gated.connect({ host: 'api.example.com', port: 443, tls });
    b.onClose = (e) => (closed = e);
    mem.clock.setWall(TRUE_T0);
    await mem.clock.advance(300);
    expect(closed).toBe('ECONN: no sockets left');
  });
});
