// Boots the whole device: it tests the boot itself (both modes, the order, the console and HTTP coming up).
// Booting the firmware on the in-memory HAL: Orchestrator mode serves the
// shell page and gates the API; the console answers; Notifier mode keeps
// Wi-Fi and HTTP off.
import { describe, expect, it } from 'vitest';
import { boot, HTTP_PORT } from '../../../src/main.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { createMemHal } from '../../support/memhal.ts';
import { NOTIFIER_SERVICE_UUID } from '../../../src/notifier/gatt.ts';
import { NOTIFIER_MODE_REPLY } from '../../../src/turn/engine.ts';

/** A device whose Wi-Fi was set up earlier (no setup-network handout). */
function provisioned(options: Parameters<typeof createMemHal>[0] = {}) {
  const mem = createMemHal(options);
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.wifi.networks.set('Home', 'home-pass-1');
  return mem;
}

async function console(mem: ReturnType<typeof createMemHal>, line: string): Promise<string> {
  mem.serial.take();
  mem.serial.type(line + '\r\n');
  await flushJobs();
  await flushJobs();
  return mem.serial.take();
}

describe('boot in Orchestrator mode', () => {
  it('serves the shell page and the logo without a token, carrying no device data', async () => {
    const mem = provisioned();
    const device = boot(mem.hal);
    const page = await request(mem.net, HTTP_PORT, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('<title>Desk assistant</title>');
    expect(page.body).not.toContain(device.ctx.token.reveal());
    expect(page.body).not.toContain(mem.hal.build.buildId);
    const logo = await request(mem.net, HTTP_PORT, 'GET', '/logo.svg');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('answers 401 on gated routes without, with a wrong and with a ?t= token, and 200 with the header', async () => {
    const mem = provisioned();
    const device = boot(mem.hal);
    const token = device.ctx.token.reveal();
    for (const path of ['/api/state', '/api/log', '/api/nonexistent']) {
      expect((await request(mem.net, HTTP_PORT, 'GET', path)).status).toBe(401);
      expect((await request(mem.net, HTTP_PORT, 'GET', path, { headers: { 'X-Device-Token': 'nope' } })).status).toBe(401);
      expect((await request(mem.net, HTTP_PORT, 'GET', `${path}?t=${token}`)).status).toBe(401);
    }
    const state = await request(mem.net, HTTP_PORT, 'GET', '/api/state', { headers: { 'X-Device-Token': token } });
    expect(state.status).toBe(200);
    expect(JSON.parse(state.body)).toMatchObject({ version: 'v0.1.0', board: 'panel-35', mode: 1 });
    const unknown = await request(mem.net, HTTP_PORT, 'GET', '/api/nonexistent', { headers: { 'X-Device-Token': token } });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toEqual({ error: 'not-found', message: 'No such route: /api/nonexistent.' });
  });

  it('accepts the token as a form field', async () => {
    const mem = provisioned();
    const device = boot(mem.hal);
    const res = await request(mem.net, HTTP_PORT, 'GET', '/api/state', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `token=${device.ctx.token.reveal()}`,
    });
    expect(res.status).toBe(200);
  });

  it('announces HTTP with a fresh single-use sign-in code and turns Wi-Fi on', () => {
    const mem = createMemHal();
    const device = boot(mem.hal);
    expect(mem.wifi.enabled()).toBe(true);
    const [announced] = mem.system.announced;
    expect(announced?.http).toBe(true);
    const code = /^\/\?c=([A-Z2-9]{12})$/.exec(announced?.signInPath ?? '')?.[1];
    expect(code).toBeDefined();
    expect(device.ctx.signin.remainingMs(code!)).toBe(2 * 60_000);
  });

  it('keeps the token across a reboot and never logs it', () => {
    const mem = createMemHal();
    const before = boot(mem.hal);
    const first = before.ctx.token.reveal();
    before.stop();
    const again = boot(mem.hal);
    expect(again.ctx.token.reveal()).toBe(first);
    expect(first).toMatch(/^[0-9a-f]{24}$/);
    again.ctx.log.info('test', `token is ${first}`);
    expect(again.ctx.log.text()).not.toContain(first);
    expect(mem.system.logs.join('\n')).not.toContain(first);
  });

  it('answers PING, STATUS and WEBTOK? on the console, each ending with OK', async () => {
    const mem = createMemHal();
    const device = boot(mem.hal);
    expect(await console(mem, 'PING')).toBe('PONG\r\nOK\r\n');
    expect(await console(mem, 'ping')).toBe('PONG\r\nOK\r\n');
    const status = await console(mem, 'STATUS');
    expect(status).toMatch(/^fw=v0\.1\.0 build=test board=panel-35 mode=1 up=\d+ psram=\d+ minheap=\d+ sd=ok vec=\d+ ota=idle lastOta=-\r\nOK\r\n$/);
    expect(await console(mem, 'WEBTOK?')).toBe(`${device.ctx.token.reveal()}\r\nOK\r\n`);
    expect(await console(mem, 'FROB')).toBe('ERR unknown command FROB (try HELP)\r\n');
  });

  it('has no WEBTOK? in a release build', async () => {
    const mem = createMemHal({ testBuild: false });
    boot(mem.hal);
    expect(await console(mem, 'WEBTOK?')).toMatch(/^ERR unknown command/);
    expect(await console(mem, 'PING')).toBe('PONG\r\nOK\r\n');
  });
});

describe('boot in Notifier mode', () => {
  it('runs only the Bluetooth link, the ring and the screen: no radio, no HTTP, no outbound connection in two days', async () => {
    const mem = provisioned({ board: 'ring-tft' });
    mem.nvs.set('sys', 'mode', 0);
    // Everything an Orchestrator would reach out for is set up: a provider key, the chat bot, the update feed.
    mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
    mem.nvs.setMany('chat', [['token', '123456:bot-token-secret'], ['allow', '42']]);
    const device = boot(mem.hal);
    expect(mem.ble.name).not.toBeNull();
    expect(mem.ble.services.map((s) => s.uuid)).toEqual([NOTIFIER_SERVICE_UUID]);
    await mem.clock.advance(2 * 24 * 3600_000);
    expect(mem.net.attempts).toEqual([]);
    expect(mem.wifi.enabled()).toBe(false);
    expect(mem.wifi.apActive()).toBe(false);
    expect(mem.net.lanJoined(), 'no mDNS socket').toBe(false);
    expect(mem.net.lanSent).toEqual([]);
    expect(device.http).toBeNull();
    // The assistant does not run: a turn answers so, without calling a provider.
    const turn = await console(mem, 'TURN hello');
    expect(turn).toBe(`${NOTIFIER_MODE_REPLY}\r\nERR unavailable\r\n`);
    expect(mem.net.attempts).toEqual([]);
  });

  it('in Orchestrator mode the Bluetooth link stays off and Wi-Fi, HTTP and mDNS run', async () => {
    const mem = provisioned({ board: 'ring-tft' });
    const device = boot(mem.hal);
    await mem.clock.advance(10);
    expect(mem.ble.name).toBeNull();
    expect(mem.wifi.station().state).toBe('connected');
    // mDNS probes, then announces (RFC 6762 §8; test/unit/wifi/mdns.test.ts has the rules).
    expect(await mem.clock.until(() => (device.ctx.status.snapshot()['mdns'] as { state: string } | null)?.state === 'ready', 5000)).toBe(true);
    expect(device.ctx.status.snapshot()['mdns']).toMatchObject({ host: 'desk-3456.local', services: ['_http._tcp', '_desk-assistant._tcp'] });
    expect(device.http).not.toBeNull();
  });

  it('keeps Wi-Fi off and serves no HTTP', async () => {
    const mem = createMemHal();
    mem.nvs.set('sys', 'mode', 0);
    const device = boot(mem.hal);
    expect(device.http).toBeNull();
    expect(mem.wifi.enabled()).toBe(false);
    expect(mem.system.announced).toEqual([{ http: false, signInPath: null }]);
    const client = mem.net.client(HTTP_PORT);
    expect(client.closed).toBe(true);
    expect(await console(mem, 'STATUS')).toMatch(/mode=0/);
  });
});
