// Boots the whole device: the token gate is checked against every subsystem's routes at once.
// Issue 4's rules through the router on the in-memory HAL with the virtual
// clock: sign-in codes (lifetimes, single use, regen), the token, the setup
// passphrase, provisioning and the handoff, the danger zone, /api/orch and
// tlsVerify, the state snapshot, and redaction of every kind of secret.
import { describe, expect, it } from 'vitest';
import { boot, HTTP_PORT, type Device } from '../../../src/main.ts';
import { PASSPHRASE_ALPHABET } from '../../../src/util/ids.ts';
import { request, type ParsedResponse } from '../../support/http.ts';
import { createMemHal, RebootSignal, type MemHal } from '../../support/memhal.ts';

type Opts = { body?: string; headers?: Record<string, string> };

function start(options: { provisioned?: boolean; sd?: boolean } = {}): { mem: MemHal; device: Device; token: string } {
  const mem = createMemHal(options.sd === false ? { sd: { present: false } } : {});
  mem.wifi.networks.set('Home', 'home-pass-1');
  if (options.provisioned !== false) mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  const device = boot(mem.hal);
  return { mem, device, token: device.ctx.token.reveal() };
}

async function call(mem: MemHal, method: string, path: string, token: string | null, opts: Opts = {}): Promise<ParsedResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (token !== null) headers['X-Device-Token'] = token;
  return request(mem.net, HTTP_PORT, method, path, { headers, ...(opts.body !== undefined ? { body: opts.body } : {}) });
}

const form = (body: string): Opts => ({ body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
const json = (r: ParsedResponse): Record<string, unknown> => JSON.parse(r.body) as Record<string, unknown>;

describe('sign-in codes', () => {
  it('mints a 2-minute scan code and a 10-minute hand-entry code with the time left for a countdown', async () => {
    const { mem, token } = start();
    const scan = json(await call(mem, 'GET', '/api/signin/code', token));
    expect(scan).toMatchObject({ purpose: 'scan', lifetimeMs: 120_000, expiresInMs: 120_000, path: `/?c=${scan['code']}` });
    const hand = json(await call(mem, 'GET', '/api/signin/code?purpose=hand', token));
    expect(hand).toMatchObject({ purpose: 'hand', lifetimeMs: 600_000 });
    expect(hand['code']).toMatch(/^[2-9A-HJKMNP-Z]{12}$/);
  });

  it('is redeemed once for the token, without the token, from a form or JSON body', async () => {
    const { mem, token } = start();
    const { code } = json(await call(mem, 'GET', '/api/signin/code', token)) as { code: string };
    const ok = await call(mem, 'POST', '/api/signin/exchange', null, form(`code=${code.toLowerCase().slice(0, 4)}-${code.slice(4, 8)} ${code.slice(8)}`));
    expect(ok.status).toBe(200);
    expect(json(ok)).toEqual({ token });
    const again = await call(mem, 'POST', '/api/signin/exchange', null, form(`code=${code}`));
    expect(again.status).toBe(401);
    expect(json(again)).toMatchObject({ error: 'bad-code', message: expect.stringMatching(/already used/) });
    const { code: c2 } = json(await call(mem, 'GET', '/api/signin/code', token)) as { code: string };
    const viaJson = await call(mem, 'POST', '/api/signin/exchange', null, { body: JSON.stringify({ code: c2 }), headers: { 'Content-Type': 'application/json' } });
    expect(json(viaJson)).toEqual({ token });
  });

  it('expires: a scan code after 2 minutes, a hand-entry code after 10', async () => {
    const { mem, token } = start();
    const { code: scan } = json(await call(mem, 'GET', '/api/signin/code', token)) as { code: string };
    const { code: hand } = json(await call(mem, 'GET', '/api/signin/code?purpose=hand', token)) as { code: string };
    await mem.clock.advance(119_999);
    const { code: scan2 } = json(await call(mem, 'GET', '/api/signin/code', token)) as { code: string };
    await mem.clock.advance(1);
    expect(json(await call(mem, 'POST', '/api/signin/exchange', null, form(`code=${scan}`)))['message']).toMatch(/expired/);
    expect((await call(mem, 'POST', '/api/signin/exchange', null, form(`code=${scan2}`))).status).toBe(200);
    await mem.clock.advance(480_000 - 2);
    expect((await call(mem, 'POST', '/api/signin/exchange', null, form(`code=${hand}`))).status).toBe(200);
  });

  it('rotating the token invalidates every earlier code and the old token', async () => {
    const { mem, token } = start();
    const { code } = json(await call(mem, 'GET', '/api/signin/code?purpose=hand', token)) as { code: string };
    const regen = await call(mem, 'POST', '/api/token/regen', token);
    expect(regen.status).toBe(200);
    const fresh = json(regen)['token'] as string;
    expect(fresh).toMatch(/^[0-9a-f]{24}$/);
    expect(fresh).not.toBe(token);
    expect((await call(mem, 'POST', '/api/signin/exchange', null, form(`code=${code}`))).status).toBe(401);
    expect((await call(mem, 'GET', '/api/state', token)).status).toBe(401);
    expect((await call(mem, 'GET', '/api/state', fresh)).status).toBe(200);
    expect(mem.nvs.get('auth', 'token')).toBe(fresh);
  });

  it('wrong codes never keep the owner out: after a thousand of them a valid code works at once, and the log says how many came', async () => {
    const { mem, device, token } = start();
    for (let i = 0; i < 1000; i++) {
      const r = await call(mem, 'POST', '/api/signin/exchange', null, form(`code=${'A'.repeat(8)}${String(i).padStart(4, '2')}`));
      expect(r.status).toBe(401);
    }
    const { code } = json(await call(mem, 'GET', '/api/signin/code', token)) as { code: string };
    expect(json(await call(mem, 'POST', '/api/signin/exchange', null, form(`code=${code}`)))).toEqual({ token });
    // One log line for the first, then one a minute with the count since.
    await mem.clock.advance(60_000);
    await call(mem, 'POST', '/api/signin/exchange', null, form('code=ZZZZZZZZZZZZ'));
    const log = device.ctx.log.text();
    expect(log).toMatch(/1 wrong sign-in code since the last report/);
    expect(log).toMatch(/1000 wrong sign-in codes since the last report/);
  });
});

describe('no decision uses Host, Origin, Referer or the client address', () => {
  it('answers the same whatever those headers say', async () => {
    const { mem, token } = start();
    const variants: Array<Record<string, string>> = [
      {},
      { Host: 'evil.example', Origin: 'https://evil.example', Referer: 'https://evil.example/x' },
      { Host: '127.0.0.1', Origin: 'http://127.0.0.1', Referer: 'http://127.0.0.1/' },
      { 'X-Forwarded-For': '127.0.0.1', Host: 'localhost' },
    ];
    for (const headers of variants) {
      expect((await call(mem, 'GET', '/api/state', null, { headers })).status).toBe(401);
      expect((await call(mem, 'GET', '/api/state', token, { headers })).status).toBe(200);
      expect((await call(mem, 'GET', '/api/state', 'f'.repeat(24), { headers })).status).toBe(401);
    }
  });
});

describe('the token and the setup passphrase', () => {
  it('keeps a 96-bit token with no setter: nothing but regen changes it', async () => {
    const { mem, token } = start();
    expect(token).toMatch(/^[0-9a-f]{24}$/);
    expect((await call(mem, 'POST', '/api/orch', token, form('token=00112233445566778899aabb'))).status).toBe(200);
    expect(mem.nvs.get('auth', 'token')).toBe(token);
  });

  it('generates the passphrase once (10 chars, no 0 o 1 l), persists it and shows it only on /api/connect', async () => {
    const { mem, device, token } = start();
    const connect = json(await call(mem, 'GET', '/api/connect', token));
    const setup = connect['setup'] as { ssid: string; passphrase: string };
    expect(setup.ssid).toBe('Device-setup');
    expect(setup.passphrase).toHaveLength(10);
    for (const ch of setup.passphrase) expect(PASSPHRASE_ALPHABET).toContain(ch);
    expect(setup.passphrase).not.toMatch(/[01ol]/);
    device.stop();
    const again = boot(mem.hal);
    const connect2 = json(await call(mem, 'GET', '/api/connect', again.ctx.token.reveal()));
    expect((connect2['setup'] as { passphrase: string }).passphrase).toBe(setup.passphrase);
    const state = await call(mem, 'GET', '/api/state', token);
    expect(state.body).not.toContain(setup.passphrase);
    expect(again.ctx.log.text() + mem.system.logs.join('\n')).not.toContain(setup.passphrase);
  });

  it('gives sign-in links with ?c= for every address the device has', async () => {
    const { mem, token } = start();
    await mem.clock.advance(10);
    const connect = json(await call(mem, 'GET', '/api/connect', token));
    const links = connect['links'] as Array<{ label: string; url: string }>;
    expect(links.map((l) => l.url)).toEqual([`http://192.168.1.50/?c=${connect['code']}`, `http://desk-3456.local/?c=${connect['code']}`]);
    expect(connect['expiresInMs']).toBe(120_000);
  });
});

describe('first-run provisioning and the handoff', () => {
  it('hands the token out on the setup network while nothing is saved', async () => {
    const { mem, token } = start({ provisioned: false });
    expect(mem.wifi.apConfig()?.ssid).toBe('Device-setup');
    const root = await call(mem, 'GET', '/', null);
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe(`/?t=${token}`);
    expect((await call(mem, 'GET', '/generate_204', null)).headers.get('location')).toBe(`/?t=${token}`);
    expect((await call(mem, 'GET', `/?t=${token}`, null)).status).toBe(200);
    expect((await call(mem, 'GET', '/?c=ABCDEFGH', null)).status).toBe(200);
    expect((await call(mem, 'GET', '/api/state', null)).status).toBe(401);
  });

  it('saves Wi-Fi once, ungated, then drops the setup network 4 s after the handoff answer', async () => {
    const { mem, token } = start({ provisioned: false });
    const saved = await call(mem, 'POST', '/savewifi', null, form('ssid=Home&pass=home-pass-1'));
    expect(saved.status).toBe(202);
    expect(json(saved)).toEqual({ armed: true, overlapMs: 20_000 });
    expect(JSON.parse(mem.nvs.get('wifi', 'known') as string)).toEqual([{ ssid: 'Home', pass: 'home-pass-1' }]);
    await mem.clock.advance(1);
    expect(mem.wifi.station().state).toBe('connected');
    expect(mem.wifi.apActive()).toBe(true);
    const handoff = await call(mem, 'POST', '/api/wifi/handoff', token);
    expect(handoff.status).toBe(200);
    expect(json(handoff)).toMatchObject({ next: expect.stringMatching(/^http:\/\/192\.168\.1\.50\/\?c=[2-9A-HJKMNP-Z]{12}$/), dropInMs: 4000 });
    await mem.clock.advance(3999);
    expect(mem.wifi.apActive()).toBe(true);
    await mem.clock.advance(1);
    expect(mem.wifi.apActive()).toBe(false);
    const state = json(await call(mem, 'GET', '/api/state', token))['wifi'] as { setup: { state: string }; station: { state: string } };
    expect(state).toMatchObject({ setup: { state: 'off' }, station: { state: 'connected' } });
    // Provisioned now: no handout, and /savewifi is gated and refuses a second time.
    expect((await call(mem, 'GET', '/', null)).status).toBe(200);
    expect((await call(mem, 'POST', '/savewifi', null, form('ssid=Other&pass=other-pass'))).status).toBe(401);
    expect((await call(mem, 'POST', '/savewifi', token, form('ssid=Other&pass=other-pass'))).status).toBe(409);
    expect(JSON.parse(mem.nvs.get('wifi', 'known') as string)).toEqual([{ ssid: 'Home', pass: 'home-pass-1' }]);
  });

  it('drops the setup network 20 s after arming when nobody acknowledges', async () => {
    const { mem } = start({ provisioned: false });
    await call(mem, 'POST', '/savewifi', null, form('ssid=Home&pass=home-pass-1'));
    await mem.clock.advance(19_999);
    expect(mem.wifi.apActive()).toBe(true);
    await mem.clock.advance(1);
    expect(mem.wifi.apActive()).toBe(false);
  });

  it('refuses the handoff before the station is up, and bad credentials change nothing', async () => {
    const { mem, token } = start({ provisioned: false });
    expect((await call(mem, 'POST', '/savewifi', null, form('ssid=&pass=home-pass-1'))).status).toBe(400);
    expect((await call(mem, 'POST', '/savewifi', null, form('ssid=Home&pass=short'))).status).toBe(400);
    expect((await call(mem, 'POST', '/savewifi', null, form('ssid=Home&pass=caf%C3%A9-au-lait'))).status).toBe(400);
    expect(mem.nvs.get('wifi', 'ssid')).toBeUndefined();
    expect(mem.nvs.get('wifi', 'known')).toBeUndefined();
    expect((await call(mem, 'POST', '/api/wifi/handoff', token)).status).toBe(409);
  });

  it('restores the setup network when the station link goes down', async () => {
    const { mem } = start();
    await mem.clock.advance(1);
    expect(mem.wifi.station().state).toBe('connected');
    expect(mem.wifi.apActive()).toBe(false);
    mem.wifi.linkDown();
    await mem.clock.advance(1);
    expect(mem.wifi.apActive()).toBe(true);
  });
});

describe('danger zone', () => {
  it('refuses a wrong phrase and changes nothing', async () => {
    const { mem, token } = start();
    for (const [path, wrong] of [
      ['/api/factory-reset', 'factory reset'],
      ['/api/storage/erase', 'ERASE  STORAGE'],
      ['/api/card/format', 'FORMAT CARD '],
    ] as const) {
      const res = await call(mem, 'POST', path, token, form(`confirm=${encodeURIComponent(wrong)}`));
      expect(res.status, path).toBe(400);
      expect(json(res)['error']).toBe('confirmation-mismatch');
    }
    await mem.clock.advance(1000);
    expect(mem.system.reboots).toEqual([]);
    expect(mem.nvs.get('wifi', 'ssid')).toBe('Home');
  });

  it('factory reset answers first, then erases everything but the keep namespace and restarts', async () => {
    const { mem, device, token } = start();
    // Through the firmware's own NVS (it caches what it has read, e.g. the screen reads tcal at boot).
    device.ctx.store('keep').setMany([['panel', 'st7796s'], ['tcal', '1,2,3,4']]);
    mem.sd.mkdir('/mem');
    mem.sd.open('/mem/a.txt', 'w').write(new Uint8Array([1]));
    const res = await call(mem, 'POST', '/api/factory-reset', token, form('confirm=FACTORY+RESET'));
    expect(res.status).toBe(202);
    await expect(mem.clock.advance(1)).rejects.toBeInstanceOf(RebootSignal);
    expect(mem.nvs.get('wifi', 'ssid')).toBeUndefined();
    expect(mem.nvs.get('auth', 'token')).toBeUndefined();
    expect(mem.nvs.get('auth', 'apPass')).toBeUndefined();
    expect(mem.nvs.get('keep', 'panel')).toBe('st7796s');
    expect(mem.nvs.get('keep', 'tcal')).toBe('1,2,3,4');
    expect(mem.sd.stat('/mem/a.txt')).not.toBeNull();
  });

  it('factory reset can erase the card in the same flow; erase storage removes /mem only', async () => {
    const { mem, device, token } = start();
    mem.sd.mkdir('/mem/files');
    mem.sd.mkdir('/music');
    mem.sd.open('/music/song.wav', 'w').write(new Uint8Array([1]));
    mem.sd.open('/mem/files/x.md', 'w').write(new Uint8Array([1]));
    expect((await call(mem, 'POST', '/api/storage/erase', token, form('confirm=ERASE+STORAGE'))).status).toBe(202);
    await expect(mem.clock.advance(1)).rejects.toBeInstanceOf(RebootSignal);
    expect(mem.sd.stat('/mem')).toBeNull();
    expect(mem.sd.stat('/music/song.wav')).not.toBeNull();
    expect(mem.nvs.get('wifi', 'ssid')).toBe('Home');
    device.stop();
    const again = boot(mem.hal);
    const t2 = again.ctx.token.reveal();
    expect((await call(mem, 'POST', '/api/factory-reset', t2, form('confirm=FACTORY+RESET&eraseCard=1'))).status).toBe(202);
    await expect(mem.clock.advance(1)).rejects.toBeInstanceOf(RebootSignal);
    expect(mem.sd.list('/')).toEqual([]);
  });

  it('formats only with a card present', async () => {
    const { mem, token } = start({ sd: false });
    const res = await call(mem, 'POST', '/api/card/format', token, form('confirm=FORMAT+CARD'));
    expect(res.status).toBe(409);
    expect(json(res)['error']).toBe('no-card');
  });
});

describe('orchestrator settings', () => {
  it('persists tlsVerify (default on) and never echoes a key', async () => {
    const { mem, device, token } = start();
    expect(json(await call(mem, 'GET', '/api/state', token))['tlsVerify']).toBe(true);
    const res = await call(mem, 'POST', '/api/orch', token, form('tlsVerify=0&key_openai=sk-test-123456&priority=anthropic,openai'));
    expect(res.status).toBe(200);
    expect(res.body).not.toContain('sk-test-123456');
    expect(json(res)).toMatchObject({ keys: { openai: true, anthropic: false }, priority: ['anthropic', 'openai'], tlsVerify: false });
    expect(device.ctx.tls.verify()).toBe(false);
    device.stop();
    const again = boot(mem.hal);
    expect(again.ctx.tls.verify()).toBe(false);
  });

  it('applies all fields or none', async () => {
    const { mem, device, token } = start();
    const res = await call(mem, 'POST', '/api/orch', token, form('tlsVerify=0&priority=nonsense'));
    expect(res.status).toBe(400);
    expect(device.ctx.tls.verify()).toBe(true);
    expect((await call(mem, 'POST', '/api/orch', token, form('bogus=1'))).status).toBe(400);
  });
});

describe('the state snapshot and the log', () => {
  it('carries the named fields and no secret', async () => {
    const { mem, device, token } = start();
    await call(mem, 'POST', '/api/orch', token, form('key_anthropic=sk-ant-SECRETVALUE'));
    const res = await call(mem, 'GET', '/api/state', token);
    const state = json(res);
    expect(state).toMatchObject({
      buildId: 'test',
      tlsVerify: true,
      sd: 'ok',
      files: { present: true, unsupported: false, count: 0, bytes: 0, quota: 32 * 1024 ** 3 - 512 * 1024 ** 2 },
    });
    expect(res.body).not.toContain(token);
    expect(res.body).not.toContain('SECRETVALUE');
    expect(res.body).not.toContain(device.ctx.hal.nvs.get('auth', 'apPass') as string);
  });

  it('redacts every kind of secret in the log ring served on /api/log', async () => {
    const { mem, device, token } = start();
    await call(mem, 'POST', '/api/orch', token, form('key_openai=sk-proj-abcdef123456'));
    const apPass = mem.nvs.get('auth', 'apPass') as string;
    const log = device.ctx.log;
    log.info('t', `token ${token} pass ${apPass} key sk-proj-abcdef123456 wifi home-pass-1`);
    log.info('t', 'Authorization: Bearer eyJhbGciOi.payload.sig');
    log.info('t', 'GET https://x.example/v1?api_key=AKIAXYZ123 and https://bob:hunter2@host/');
    const res = await call(mem, 'GET', '/api/log', token);
    for (const secret of [token, apPass, 'sk-proj-abcdef123456', 'home-pass-1', 'eyJhbGciOi', 'AKIAXYZ123', 'hunter2']) expect(res.body).not.toContain(secret);
    expect(res.body).toContain('***');
  });
});
