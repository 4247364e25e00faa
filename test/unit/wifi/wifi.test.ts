// Wi-Fi in Orchestrator mode on the in-memory HAL and the virtual clock:
// the known networks (WIFI, WIFIKNOWN?, WIFIRENAME, WIFISCAN; the strongest
// one in sight is joined, the others tried in turn, retries while none is
// joined; passphrases never printed or logged), the setup network's
// timeline (spec "Setup network": restored on link down, the 20 s overlap
// and the 4 s flush when the station comes back, WIFIAP's hold), and mDNS
// (the HTTP service while the station is connected, no secret in it; the
// responder's rules: test/unit/wifi/mdns.test.ts).

import { describe, expect, it } from 'vitest';
import { KNOWN_MAX } from '../../../src/wifi/known.ts';
import { HANDOFF_DROP_MS, joinOrder, OVERLAP_MS, RETRY_FIRST_MS, RETRY_MAX_MS } from '../../../src/wifi/provisioning.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { deviceKernel, mountWifi, HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';

function start(options: { known?: Array<[string, string]>; legacy?: [string, string]; air?: Array<[string, string]>; mode?: 0 | 1; mem?: MemHal } = {}) {
  const mem = options.mem ?? createMemHal();
  // The networks on the air (name, passphrase).
  for (const [ssid, pass] of options.air ?? []) mem.wifi.networks.set(ssid, pass);
  if (options.known) mem.nvs.set('wifi', 'known', JSON.stringify(options.known.map(([ssid, pass]) => ({ ssid, pass }))));
  if (options.legacy) mem.nvs.setMany('wifi', [['ssid', options.legacy[0]], ['pass', options.legacy[1]]]);
  if (options.mode !== undefined) mem.nvs.set('sys', 'mode', options.mode);
  // Wi-Fi alone, on a kernel with the device's token gate and HTTP server.
  const dk = deviceKernel({ mem });
  mountWifi(dk);
  dk.start();
  const device = { ctx: { ...dk.kernel, token: dk.token }, stop: () => dk.stop() };
  const cmd = async (line: string): Promise<string> => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    for (let i = 0; i < 6; i++) await flushJobs();
    return mem.serial.take().replace(/\r/g, '');
  };
  /** A command that waits on the HAL clock (WIFI's join): types it, lets the virtual clock run, then reads the reply. */
  const slow = async (line: string, ms: number): Promise<string> => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    await mem.clock.advance(ms);
    return mem.serial.take().replace(/\r/g, '');
  };
  const log = () => mem.system.logs.join('\n');
  return { mem, device, cmd, slow, log };
}

const scan = (...list: Array<[string, number]>) => list.map(([ssid, rssi], i) => ({ ssid, rssi, secure: true, channel: 1 + i }));

describe('known networks', () => {
  it('WIFI saves a network and joins it; WIFIKNOWN? lists them without passphrases; nothing reaches the log', async () => {
    const { mem, device, slow, cmd, log } = start();
    mem.wifi.networks.set('Home', 'home-pass-1');
    mem.wifi.networks.set('Office Net', 'office|pass 2');
    expect(mem.wifi.apActive()).toBe(true);
    expect(await slow('WIFI Home|home-pass-1', 10)).toBe('saved "Home" (known=1)\njoined "Home" as 192.168.1.50\nOK\n');
    expect(await slow('WIFI Office Net|office|pass 2', 10)).toBe('saved "Office Net" (known=2)\njoined "Office Net" as 192.168.1.50\nOK\n');
    expect(await cmd('WIFIKNOWN?')).toBe('1 ssid="Office Net" security=wpa2 current=yes\n2 ssid="Home" security=wpa2 current=no\nknown=2 max=8\nOK\n');
    expect(await slow('WIFI Cafe|', 10)).toMatch(/^saved "Cafe" \(known=3\)\nERR "Cafe" is saved but not joined: the network refused the join or is out of reach\n$/);
    expect(await cmd('WIFIKNOWN?')).toContain('1 ssid="Cafe" security=open current=no\n');
    expect(device.ctx.status.snapshot()['wifi']).toMatchObject({ provisioned: true, known: 3 });
    // The passphrases: registered secrets, in no log line, no console answer, no state.
    device.ctx.log.info('test', 'echo home-pass-1 and office|pass 2');
    expect(log()).not.toContain('home-pass-1');
    expect(log()).not.toContain('office|pass 2');
    expect(JSON.stringify(device.ctx.status.snapshot())).not.toContain('home-pass-1');
    expect(mem.serial.output).not.toContain('home-pass-1');
  });

  it('refuses bad input and changes nothing', async () => {
    const { mem, cmd } = start({ known: [['Home', 'home-pass-1']] });
    const before = mem.nvs.get('wifi', 'known');
    expect(await cmd('WIFI Home')).toBe('ERR usage: WIFI <ssid>|<pass> (an open network: WIFI <ssid>|)\n');
    expect(await cmd('WIFI |home-pass-1')).toBe('ERR the network name must be 1 to 32 bytes; nothing changed\n');
    expect(await cmd(`WIFI ${'x'.repeat(33)}|home-pass-1`)).toBe('ERR the network name must be 1 to 32 bytes; nothing changed\n');
    expect(await cmd('WIFI Home|short')).toMatch(/^ERR a Wi-Fi passphrase has 8 to 63 printable ASCII characters .*; nothing changed\n$/);
    expect(await cmd(`WIFI Home|${'p'.repeat(64)}`)).toMatch(/^ERR a Wi-Fi passphrase/);
    expect(await cmd('WIFIRENAME Home')).toBe('ERR usage: WIFIRENAME <old>|<new>\n');
    expect(await cmd('WIFIRENAME Nowhere|Home2')).toBe('ERR "Nowhere" is not a known network (WIFIKNOWN? lists them)\n');
    expect(await cmd('WIFIAP maybe')).toBe('ERR usage: WIFIAP [on or off]\n');
    expect(mem.nvs.get('wifi', 'known')).toBe(before);
  });

  it('keeps at most eight: a ninth pushes out the one joined longest ago', async () => {
    const eight = Array.from({ length: KNOWN_MAX }, (_, i): [string, string] => [`Net${i}`, `passphrase${i}`]);
    const { mem, cmd } = start({ known: eight });
    await mem.clock.advance(10);
    expect(await cmd('WIFI Extra|extra-pass')).toMatch(/^saved "Extra" \(known=8\); "Net7", joined longest ago, was dropped\n/);
    const list = await cmd('WIFIKNOWN?');
    expect(list).toContain('ssid="Extra"');
    expect(list).not.toContain('"Net7"');
  });

  it('WIFIRENAME keeps the passphrase; a device saved by an older build reads as one known network', async () => {
    const { mem, cmd } = start({ legacy: ['Home', 'home-pass-1'], air: [['Home', 'home-pass-1']] });
    await mem.clock.advance(10);
    expect(mem.wifi.station().state).toBe('connected');
    expect(await cmd('WIFIKNOWN?')).toBe('1 ssid="Home" security=wpa2 current=yes\nknown=1 max=8\nOK\n');
    expect(await cmd('WIFIRENAME Home|Home 5G')).toBe('renamed "Home" to "Home 5G"\nOK\n');
    expect(JSON.parse(mem.nvs.get('wifi', 'known') as string)).toEqual([{ ssid: 'Home 5G', pass: 'home-pass-1' }]);
    expect(mem.nvs.get('wifi', 'ssid')).toBeUndefined();
    expect(await cmd('WIFI Other|other-pass')).toMatch(/^saved/);
    expect(await cmd('WIFIRENAME Home 5G|Other')).toBe('ERR "Other" is known already; nothing changed\n');
  });

  it('joins the strongest known network in sight, then the others in turn; WIFISCAN says which are known', async () => {
    expect(joinOrder([{ ssid: 'A', pass: '' }, { ssid: 'B', pass: '' }, { ssid: 'C', pass: '' }], scan(['C', -80], ['B', -40], ['X', -20]))).toEqual([
      { ssid: 'B', pass: '' },
      { ssid: 'C', pass: '' },
      { ssid: 'A', pass: '' },
    ]);
    const mem = createMemHal();
    mem.wifi.scanResults = scan(['Far', -82], ['Near', -41], ['Stranger', -30]);
    mem.wifi.networks.set('Far', 'far-pass-1');
    // Near's passphrase changed on the router: its join fails, Far is next.
    mem.wifi.networks.set('Near', 'changed-on-router');
    const tried: string[] = [];
    const connect = mem.wifi.stationConnect.bind(mem.wifi);
    mem.wifi.stationConnect = (ssid, pass) => {
      tried.push(ssid);
      connect(ssid, pass);
    };
    const b = start({ mem, known: [['Far', 'far-pass-1'], ['Near', 'near-pass-1']] });
    await mem.clock.advance(10);
    expect(tried).toEqual(['Near', 'Far']);
    expect(mem.wifi.station()).toMatchObject({ state: 'connected', ssid: 'Far' });
    // The setup network never came up: a known network was joined in the same round.
    expect(mem.wifi.apActive()).toBe(false);
    expect(await b.cmd('WIFISCAN')).toBe(
      'ssid="Stranger" rssi=-30 ch=3 secure=yes known=no\nssid="Near" rssi=-41 ch=2 secure=yes known=yes\nssid="Far" rssi=-82 ch=1 secure=yes known=yes\nnetworks=3\nOK\n',
    );
  });
});

describe('GET and POST /api/wifi (the web page)', () => {
  it('lists the known networks without passphrases; saves, renames and forgets; never the last one; bad input changes nothing', async () => {
    const { mem, device } = start({ known: [['Home', 'home-pass-1']], air: [['Home', 'home-pass-1']] });
    await mem.clock.advance(10);
    const token = device.ctx.token.reveal();
    const call = async (method: string, body?: string) => {
      const r = await request(mem.net, HTTP_PORT, method, '/api/wifi', {
        headers: { 'X-Device-Token': token, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
        ...(body ? { body } : {}),
      });
      return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
    };
    expect((await call('GET')).json).toEqual({
      station: { state: 'connected', ssid: 'Home', ip: '192.168.1.50' },
      setup: { state: 'off', ssid: 'Device-setup' },
      known: [{ ssid: 'Home', security: 'wpa2', current: true }],
      max: 8,
    });
    const saved = await call('POST', 'action=save&ssid=Upstairs&pass=upstairs-pass');
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ saved: 'Upstairs', added: true, known: [{ ssid: 'Upstairs', current: false }, { ssid: 'Home', current: true }] });
    expect(JSON.stringify(saved.json)).not.toContain('upstairs-pass');
    // Saving does not move the device off the network the page talks through.
    await mem.clock.advance(1000);
    expect(mem.wifi.station().ssid).toBe('Home');
    const before = mem.nvs.get('wifi', 'known');
    expect((await call('POST', 'action=save&ssid=Upstairs&pass=short')).json['error']).toBe('bad-network');
    expect((await call('POST', 'action=rename&from=Nowhere&to=X')).status).toBe(404);
    expect((await call('POST', 'action=rename&from=Upstairs&to=Home')).status).toBe(409);
    expect((await call('POST', 'action=explode')).json['error']).toBe('bad-action');
    expect(mem.nvs.get('wifi', 'known')).toBe(before);
    expect((await call('POST', 'action=rename&from=Upstairs&to=Attic')).json).toMatchObject({ renamed: 'Attic' });
    expect((await call('POST', 'action=forget&ssid=Attic')).json).toMatchObject({ forgot: 'Attic', known: [{ ssid: 'Home' }] });
    const last = await call('POST', 'action=forget&ssid=Home');
    expect(last.status).toBe(409);
    expect(last.json['error']).toBe('last-network');
    // Token-gated: without the token the route answers 401.
    expect((await request(mem.net, HTTP_PORT, 'GET', '/api/wifi')).status).toBe(401);
  });

  it('a network saved while none is joined is tried at once', async () => {
    const { mem, device } = start({ known: [['Gone', 'gone-pass-1']], air: [['Home', 'home-pass-1']] });
    await mem.clock.advance(10);
    expect(mem.wifi.station().state).toBe('failed');
    const r = await request(mem.net, HTTP_PORT, 'POST', '/api/wifi', {
      headers: { 'X-Device-Token': device.ctx.token.reveal(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'action=save&ssid=Home&pass=home-pass-1',
    });
    expect(r.status).toBe(200);
    await mem.clock.advance(10);
    expect(mem.wifi.station()).toMatchObject({ state: 'connected', ssid: 'Home' });
  });
});

describe('a save while a join is under way', () => {
  it('does not join again once the join under way comes through: the link the page uses stays up', async () => {
    const mem = createMemHal();
    mem.wifi.networks.set('Home', 'home-pass-1');
    mem.wifi.scanResults = scan(['Home', -50]);
    // joins complete when the test says so, as a real association takes its time
    const tried: string[] = [];
    const finish: Array<() => void> = [];
    const connect = mem.wifi.stationConnect.bind(mem.wifi);
    mem.wifi.stationConnect = (ssid, pass) => {
      tried.push(ssid);
      const station = mem.wifi.station.bind(mem.wifi);
      mem.wifi.station = () => ({ state: 'connecting', ssid, ip: null, rssi: null });
      finish.push(() => {
        mem.wifi.station = station;
        connect(ssid, pass);
      });
    };
    const { device } = start({ mem, known: [['Home', 'home-pass-1']] });
    await mem.clock.advance(10);
    expect(tried).toEqual(['Home']);
    const r = await request(mem.net, HTTP_PORT, 'POST', '/api/wifi', {
      headers: { 'X-Device-Token': device.ctx.token.reveal(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'action=save&ssid=Upstairs&pass=upstairs-pass',
    });
    expect(r.status).toBe(200);
    finish.shift()!();
    await mem.clock.advance(1000);
    expect(mem.wifi.station()).toMatchObject({ state: 'connected', ssid: 'Home' });
    expect(tried).toEqual(['Home']);
  });
});

describe('the setup network timeline (virtual clock)', () => {
  it('restored when the link goes down; when the station is back, dropped 20 s later, or 4 s after a handoff', async () => {
    const { mem, device } = start({ known: [['Home', 'home-pass-1']] });
    mem.wifi.networks.set('Home', 'home-pass-1');
    await mem.clock.advance(10);
    expect(mem.wifi.station().state).toBe('connected');
    expect(mem.wifi.apActive()).toBe(false);
    // Station connected with the setup network off: the normal state, not "setup down".
    expect(device.ctx.status.snapshot()['wifi']).toMatchObject({ setup: { state: 'off', forced: false }, station: { state: 'connected' } });

    // The router goes away: the setup network comes back at once; retries run while it is gone.
    mem.wifi.networks.delete('Home');
    mem.wifi.linkDown();
    await mem.clock.advance(1);
    expect(mem.wifi.apActive()).toBe(true);
    await mem.clock.advance(RETRY_FIRST_MS + 2 * RETRY_FIRST_MS + 4 * RETRY_FIRST_MS);
    expect(mem.wifi.station().state).toBe('failed');
    expect(mem.wifi.apActive()).toBe(true);

    // It is back: the next retry joins, the overlap is armed, the setup network goes 20 s later.
    mem.wifi.networks.set('Home', 'home-pass-1');
    let waited = 0;
    while (mem.wifi.station().state !== 'connected' && waited <= RETRY_MAX_MS) {
      await mem.clock.advance(100);
      waited += 100;
    }
    expect(mem.wifi.station().state).toBe('connected');
    expect(device.ctx.status.snapshot()['wifi']).toMatchObject({ overlapArmed: true, setup: { state: 'up' } });
    await mem.clock.advance(OVERLAP_MS - 200);
    expect(mem.wifi.apActive()).toBe(true);
    await mem.clock.advance(200);
    expect(mem.wifi.apActive()).toBe(false);

    // Down and up again, then a handoff: 4 s after its answer.
    mem.wifi.linkDown();
    await mem.clock.advance(RETRY_FIRST_MS + 10);
    expect(mem.wifi.station().state).toBe('connected');
    expect(mem.wifi.apActive()).toBe(true);
    const res = await request(mem.net, HTTP_PORT, 'POST', '/api/wifi/handoff', { headers: { 'X-Device-Token': device.ctx.token.reveal() } });
    expect(res.status).toBe(200);
    await mem.clock.advance(HANDOFF_DROP_MS - 1);
    expect(mem.wifi.apActive()).toBe(true);
    await mem.clock.advance(1);
    expect(mem.wifi.apActive()).toBe(false);
  });

  it('WIFIAP on holds it up through a handoff and the overlap; off hands it back; a restart forgets the hold', async () => {
    const { mem, device, cmd } = start({ known: [['Home', 'home-pass-1']] });
    mem.wifi.networks.set('Home', 'home-pass-1');
    await mem.clock.advance(10);
    expect(await cmd('WIFIAP')).toBe('setup=off forced=no ssid=Device-setup station=connected\nOK\n');
    expect(await cmd('WIFIAP on')).toBe('setup=up forced=yes ssid=Device-setup station=connected\nOK\n');
    expect(mem.wifi.apConfig()).toEqual({ ssid: 'Device-setup', passphrase: device.ctx.store('auth').str('apPass', '') });
    await request(mem.net, HTTP_PORT, 'POST', '/api/wifi/handoff', { headers: { 'X-Device-Token': device.ctx.token.reveal() } });
    await mem.clock.advance(OVERLAP_MS + HANDOFF_DROP_MS);
    expect(mem.wifi.apActive()).toBe(true);
    expect(await cmd('WIFIAP off')).toBe('setup=off forced=no ssid=Device-setup station=connected\nOK\n');
    expect(mem.wifi.apActive()).toBe(false);
    await cmd('WIFIAP on');
    device.stop();
    const again = start({ mem: rebootMemHal(mem) });
    again.mem.wifi.networks.set('Home', 'home-pass-1');
    await again.mem.clock.advance(10);
    expect(again.mem.wifi.station().state).toBe('connected');
    expect(again.mem.wifi.apActive()).toBe(false);
  });
});

describe('mDNS', () => {
  it('advertises the HTTP service while the station is connected, with no secret in it; withdrawn on link down', async () => {
    const { mem, device } = start({ known: [['Home', 'home-pass-1']] });
    mem.wifi.networks.set('Home', 'home-pass-1');
    const mdns = () => device.ctx.status.snapshot()['mdns'] as { host: string; instance: string; services: string[]; state: string } | null;
    expect(mdns()).toBeNull();
    await mem.clock.advance(10);
    expect(mdns()).toMatchObject({ host: 'desk-3456.local', state: 'probing' });
    await mem.clock.advance(2000);
    expect(mdns()).toEqual({ host: 'desk-3456.local', instance: 'desk-3456', services: ['_http._tcp', '_desk-assistant._tcp'], state: 'announcing', renamed: 0 });
    const published = mem.net.lanSent.map((d) => Buffer.from(d.bytes).toString('latin1')).join('');
    expect(published).toContain('fw=v0.1.0');
    for (const secret of [device.ctx.token.reveal(), device.ctx.store('auth').str('apPass', 'x'), 'home-pass-1']) expect(published).not.toContain(secret);
    mem.wifi.networks.delete('Home');
    mem.wifi.linkDown();
    await mem.clock.advance(1);
    expect(mdns()).toBeNull();
    expect(mem.net.lanJoined()).toBe(false);
  });
});

describe('Notifier mode', () => {
  it('keeps the radio off: Wi-Fi commands save only or refuse', async () => {
    const { mem, cmd } = start({ mode: 0, known: [['Home', 'home-pass-1']] });
    mem.wifi.networks.set('Home', 'home-pass-1');
    await mem.clock.advance(60_000);
    expect(mem.wifi.enabled()).toBe(false);
    expect(mem.wifi.apActive()).toBe(false);
    expect(mem.net.lanJoined()).toBe(false);
    expect(await cmd('WIFISCAN')).toBe('ERR Notifier mode keeps Wi-Fi off (MODE 1 switches to Orchestrator mode)\n');
    expect(await cmd('WIFIAP on')).toBe('ERR the setup network exists only in Orchestrator mode (MODE 1)\n');
    expect(await cmd('WIFI Office|office-pass')).toBe(
      'saved "Office" (known=2)\nNotifier mode keeps Wi-Fi off (MODE 1 switches to Orchestrator mode): it is joined in Orchestrator mode\nOK\n',
    );
    expect(mem.wifi.station().state).toBe('off');
  });
});
