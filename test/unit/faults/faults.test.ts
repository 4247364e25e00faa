// Boots the whole device: each fault is seen by the subsystems through the HAL that boot() wraps.
// Fault injection as a test console user meets it: FAULT <cap> <on|off> and
// FAULT?, and each fault seen by the subsystems through the HAL only: the
// card tier and memory (sd-absent, sd-write), the outbound HTTP client
// (outbound, wifi-down), the heap floors (heap-low), the clock
// (clock-unsynced), the Wi-Fi provisioning (wifi-down). Release builds have
// neither the commands nor the wrapped HAL.
import { describe, expect, it } from 'vitest';
import { boot, HTTP_PORT } from '../../../src/main.ts';
import { FAULTS } from '../../../src/faults/faults.ts';
import { MCP_CALLER } from '../../../src/mcp/server.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { createMemHal, type MemHalOptions } from '../../support/memhal.ts';
import { fakeProvider } from '../../support/provider-fake.ts';

function start(options: MemHalOptions & { wifi?: boolean } = {}) {
  const mem = createMemHal(options);
  if (options.wifi) {
    mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
    mem.wifi.networks.set('Home', 'home-pass-1');
  }
  const device = boot(mem.hal);
  const cmd = async (line: string): Promise<string> => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    for (let i = 0; i < 4; i++) await flushJobs();
    return mem.serial.take().replace(/\r/g, '');
  };
  const state = async (): Promise<Record<string, unknown>> => {
    const res = await request(mem.net, HTTP_PORT, 'GET', '/api/state', { headers: { 'X-Device-Token': device.ctx.token.reveal() } });
    return JSON.parse(res.body) as Record<string, unknown>;
  };
  const tool = (name: string, args: unknown) => device.ctx.tools.call(name, args, MCP_CALLER);
  /** Runs the virtual clock until the promise settles (connections fail and time out on it). */
  const settle = async <T>(p: Promise<T>): Promise<T> => {
    let done = false;
    void p.finally(() => (done = true));
    await mem.clock.until(() => done, 60_000);
    return p;
  };
  return { mem, device, cmd, state, tool, settle };
}

describe('FAULT and FAULT?', () => {
  it('lists every cap, switches them by name or alias in any case, and refuses bad arguments changing nothing', async () => {
    const { cmd, device } = start();
    const list = await cmd('FAULT?');
    expect(list.split('\n').slice(0, -2).map((l) => l.split(' ')[0])).toEqual(FAULTS.map((f) => `${f.cap}=off`));
    expect(list.endsWith('OK\n')).toBe(true);
    expect(FAULTS.map((f) => f.cap)).toEqual(['sd-write', 'sd-absent', 'outbound', 'heap-low', 'clock-unsynced', 'wifi-down']);

    expect(await cmd('fault Provider ON')).toBe('outbound=on\nOK\n');
    expect(await cmd('FAULT outbound on')).toBe('outbound=on (unchanged)\nOK\n');
    expect(await cmd('FAULT heap on')).toBe('heap-low=on\nOK\n');
    expect(device.faults.active()).toEqual(['outbound', 'heap-low']);
    expect(await cmd('FAULT?')).toMatch(/^outbound=on /m);

    for (const bad of ['FAULT', 'FAULT sd-write', 'FAULT sd-write maybe', 'FAULT sd-write on now', 'FAULT all on']) {
      const out = await cmd(bad);
      expect(out, bad).toMatch(/^ERR (usage: FAULT <cap> <on or off>|FAULT all takes off only)/);
      expect(out.split('\n').filter(Boolean)).toHaveLength(1);
    }
    expect(await cmd('FAULT gremlins on')).toMatch(/^ERR unknown fault gremlins \(caps: sd-write, sd-absent, outbound, heap-low, clock-unsynced, wifi-down\)\n$/);
    expect(device.faults.active()).toEqual(['outbound', 'heap-low']);

    expect(await cmd('FAULT all off')).toBe('faults: none\nOK\n');
    expect(device.faults.active()).toEqual([]);
    expect(device.ctx.log.text()).toContain('heap-low off');
  });

  it('is not there in a release build, and the HAL is not wrapped', async () => {
    const { cmd, device, mem } = start({ testBuild: false });
    expect(await cmd('FAULT sd-absent on')).toMatch(/^ERR unknown command FAULT/);
    expect(await cmd('FAULT?')).toMatch(/^ERR unknown command FAULT\?/);
    expect(device.ctx.hal.sd).toBe(mem.sd);
    // (The network is wrapped in every build, by the TLS clock gate alone: src/clock/tls-gate.ts.)
    expect(device.ctx.hal.clock).toBe(mem.clock);
    expect(() => device.faults.set('heap-low', true)).toThrow(/test builds/);
  });
});

describe('each fault, as the subsystems see it', () => {
  it('sd-absent: the card reads as gone (status, state, the self-test), memory keeps working in RAM, and it comes back', async () => {
    const { cmd, state, tool, mem } = start();
    expect((await tool('memory.write', { content: 'The owner waters the fern on Sundays' })).success).toBe(true);
    expect(await cmd('FAULT sd-absent on')).toBe('sd-absent=on\nOK\n');
    expect(await cmd('STATUS')).toMatch(/ sd=none /);
    expect(await state()).toMatchObject({ sd: 'none', faults: ['sd-absent'], files: { present: false } });
    expect(await cmd('TEST sd')).toBe('SKIP sd: no card inserted\nOK\n');
    const write = await tool('memory.write', { content: 'The spare key is under the blue pot' });
    expect(write.success).toBe(true);
    expect((await tool('memory.search', { query: 'spare key blue pot' })).output).toContain('spare key');
    // the real card was never touched while "absent"
    expect(mem.sd.present).toBe(true);

    expect(await cmd('FAULT sd-absent off')).toBe('sd-absent=off\nOK\n');
    expect(await cmd('STATUS')).toMatch(/ sd=ok /);
    expect((await state())['faults']).toBeUndefined();
    expect(await cmd('TEST sd')).toMatch(/^PASS sd: /);
  });

  it('sd-write: writes fail with a clear error and change nothing, reads still work, and it recovers', async () => {
    const { cmd, tool, device } = start();
    expect((await tool('memory.write', { content: 'The owner likes green tea' })).success).toBe(true);
    const before = device.ctx.memory.stats()['vectors'];
    await cmd('FAULT sd-write on');
    expect(await cmd('TEST sd')).toMatch(/^FAIL sd: SD card write failed \(fault sd-write\)\nERR sd failed\n$/);
    const w = await tool('memory.write', { content: 'The car is parked on level 3' });
    expect(w.success).toBe(false);
    expect(w.error).toMatch(/write|card|EIO/i);
    expect(device.ctx.memory.stats()['vectors']).toBe(before);
    expect((await tool('memory.search', { query: 'green tea' })).output).toContain('green tea');
    await cmd('FAULT sd-write off');
    expect((await tool('memory.write', { content: 'The car is parked on level 3' })).success).toBe(true);
    expect(await cmd('TEST sd')).toMatch(/^PASS sd: /);
  });

  it('outbound: every outbound connection fails as a refused one, the server never sees it; off, it connects again', async () => {
    const { cmd, device, mem, settle } = start();
    const seen = fakeProvider(mem.net, 'api.example.test', 443, () => ({ status: 200, body: { fine: true } }));
    const get = () => settle(device.ctx.client.request({ method: 'GET', url: 'https://api.example.test/v1/ping' }));
    expect((await get()).ok).toBe(true);
    await cmd('FAULT outbound on');
    const failed = await get();
    expect(failed.ok).toBe(false);
    expect(failed).toMatchObject({ ok: false, error: 'connect' });
    expect(JSON.stringify(failed)).toContain('fault outbound');
    expect(seen).toHaveLength(1);
    await cmd('FAULT outbound off');
    expect((await get()).ok).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it('heap-low: the heap reads below every floor: HEAP?, the self-test, and a turn waits ("One moment...") without calling a provider', async () => {
    const { cmd } = start();
    await cmd('FAULT heap-low on');
    expect(await cmd('HEAP?')).toMatch(/ free=16384 largest=8192 minFree=16384 /);
    expect(await cmd('TEST heap')).toMatch(/^FAIL heap: free 16 KB, largest block 8 KB.*\nERR heap failed\n$/);
    expect(await cmd('SELFTEST')).toMatch(/\nFAIL heap: [\s\S]*\nERR selftest failed: heap\n$/);
    expect(await cmd('TURN hello')).toMatch(/^One moment: I am short on memory right now\..*\nERR deferred \(heap below the turn floor\)\n$/);
    await cmd('FAULT heap-low off');
    expect(await cmd('TEST heap')).toMatch(/^PASS heap: free 160 KB/);
  });

  it('clock-unsynced: synced() is false and the time reads as a fresh boot RTC; the clock self-test fails; off restores the time', async () => {
    const { cmd, device, mem } = start();
    expect(await cmd('TEST clock')).toMatch(/^PASS clock: synced/);
    await cmd('FAULT clock-unsynced on');
    const clock = device.ctx.hal.clock;
    expect(clock.synced()).toBe(false);
    expect(clock.wallMs()).toBe(clock.monoMs());
    expect(await cmd('TEST clock')).toMatch(/^FAIL clock: not synced.*\nERR clock failed\n$/);
    await cmd('FAULT clock-unsynced off');
    expect(clock.synced()).toBe(true);
    expect(clock.wallMs()).toBe(mem.clock.wallMs());
  });

  it('wifi-down: the station link drops (the setup network comes back), joins fail, scans find nothing, outbound fails; off, the link is back', async () => {
    const { cmd, state, device, mem, settle } = start({ wifi: true });
    await mem.clock.advance(1000);
    expect(await cmd('TEST wifi')).toMatch(/^PASS wifi: station connected to Home/);
    expect(await state()).toMatchObject({ wifi: { station: { state: 'connected' }, setup: { state: 'off' } } });

    await cmd('FAULT wifi-down on');
    await mem.clock.advance(10);
    expect(await state()).toMatchObject({ wifi: { station: { state: 'disconnected', ip: null }, setup: { state: 'up' } } });
    expect(await cmd('TEST wifi')).toMatch(/^FAIL wifi: station disconnected \(Home\)\nERR wifi failed\n$/);
    expect(await device.ctx.hal.wifi.scan()).toEqual([]);
    const got = await settle(device.ctx.client.request({ method: 'GET', url: 'https://api.example.test/' }));
    expect(JSON.stringify(got)).toContain('fault wifi-down');
    const events: string[] = [];
    const handler = device.ctx.hal.wifi.onStation;
    device.ctx.hal.wifi.onStation = (s) => {
      events.push(s.state);
      handler?.(s);
    };
    device.ctx.hal.wifi.stationConnect('Home', 'home-pass-1');
    await mem.clock.advance(1000);
    expect(events).toEqual(['failed']);

    await cmd('FAULT wifi-down off');
    await mem.clock.advance(1000);
    expect(await state()).toMatchObject({ wifi: { station: { state: 'connected', ip: '192.168.1.50' } } });
    expect(await cmd('TEST wifi')).toMatch(/^PASS wifi/);
  });
});
