// Smoke test of the real firmware on the simulator: it boots in Orchestrator
// mode, prints its lines, serves the shell page, gates the API and answers
// the console; in Notifier mode it keeps HTTP off.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, startDevice, type Device } from './harness.ts';

afterAll(cleanup);

describe('the firmware on the simulator, Orchestrator mode', () => {
  let device: Device;
  it('boots and prints the URL, a sign-in link and the console', async () => {
    device = await startDevice();
    expect(device.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(device.signIn).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?c=[2-9A-HJKMNP-Z]{12}$/);
    expect(device.signIn!.startsWith(device.url!)).toBe(true);
    expect(device.consoleLine).toBe('Console: stdio');
  });

  it('serves the static shell page and the logo without a token', async () => {
    const page = await device.fetch('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<title>Desk assistant</title>');
    const logo = await device.fetch('/logo.svg');
    expect(logo.status).toBe(200);
    expect(await logo.text()).toContain('<svg');
  });

  it('answers PING, STATUS and WEBTOK? on the console', async () => {
    expect(await device.command('PING')).toBe('PONG\nOK');
    expect(await device.command('STATUS')).toMatch(/^fw=v\d+\.\d+\.\d+ build=\S+ board=panel-35 mode=1 up=\d+ psram=\d+ minheap=\d+( \w+=\S+)*\nOK$/);
    expect(await device.command('WEBTOK?')).toMatch(/^[0-9a-f]{24}\nOK$/);
    expect(await device.command('NOSUCH')).toMatch(/^ERR unknown command NOSUCH/);
  });

  it('answers 401 on gated routes without the token and 200 with it', async () => {
    const token = (await device.command('WEBTOK?')).split('\n')[0]!;
    expect((await device.fetch('/api/state')).status).toBe(401);
    expect((await device.fetch('/api/state', { token: 'wrong' })).status).toBe(401);
    expect((await device.fetch(`/api/state?t=${token}`)).status).toBe(401);
    const state = await device.fetch('/api/state', { token });
    expect(state.status).toBe(200);
    const body = (await state.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ board: 'panel-35', mode: 1, resetReason: 'power-on' });
    expect(body['heap']).toMatchObject({ xsNow: expect.any(Number), freeInternal: expect.any(Number) });
  });

  it('keeps its token across a reboot from the console-free control socket', async () => {
    const token = (await device.command('WEBTOK?')).split('\n')[0]!;
    const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
    await device.board.request('reboot', { reason: 'software' });
    await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 10_000 });
    expect((await device.fetch('/api/state', { token })).status).toBe(200);
  });
});

describe('the firmware on the simulator, Notifier mode', () => {
  it('boots with Wi-Fi off and no HTTP', async () => {
    const device = await startDevice({ mode: 0, board: 'ring-tft' });
    expect(device.url).toBeNull();
    expect(device.board.stdout).toMatch(/^HTTP: off \(Notifier mode\)$/m);
    expect(await device.command('STATUS')).toMatch(/board=ring-tft mode=0/);
    const status = await device.board.request<{ wifi: { enabled: boolean } }>('status');
    expect(status.wifi.enabled).toBe(false);
  });
});
