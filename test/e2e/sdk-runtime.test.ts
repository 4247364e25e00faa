// The firmware in the Moddable SDK's own desktop runtime (the lin platform):
// built by the SDK's mcconfig from a board manifest, PRELOADED by the SDK's
// xsl with the device's creation sizes (its 2048-slot stack and its fixed key
// table), and run by the SDK's XS, lin sockets, TLS and serial module
// (test/e2e/fixtures/lin-harness.ts; docs/device.md, "The SDK's desktop
// runtime"). Preloading freezes what the firmware's top level made, which the
// simulator does not; every test here runs with that in force. Skipped, saying
// why, where there is no SDK.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIN_BOARD, linMakefileDir } from '../../tools/build-lin.mjs';
import { needSdk, sdk } from '../support/sdk.ts';
import { startLin, type LinDevice } from './fixtures/lin-harness.ts';

let device: LinDevice | null = null;

beforeAll(async () => {
  if (sdk.ok && sdk.tools) device = await startLin();
}, 600_000);

afterAll(async () => {
  await device?.stop();
});

describe('the firmware preloaded in the SDK desktop runtime', () => {
  it('was linked by xsl with the firmware preloaded and the device\'s stack and key sizes', (ctx) => {
    if (!needSdk(ctx, 'the SDK runtime test')) return;
    const makefile = readFileSync(join(linMakefileDir(LIN_BOARD), 'makefile'), 'utf8');
    expect(makefile).toMatch(/^PRELOADS =[\s\S]*-p firmware\.xsb/m);
    // chunk, heap, stack 2048 slots, keys 2048 fixed (no growth): manifest.json's creation, as on the device
    expect(makefile).toMatch(/^CREATION = -c 524288,131072,24576,4096,2048,2048,0,1021,127,32768,1021,0,main,0$/m);
  });

  it('boots and says HTTP is up, with the sign-in link', (ctx) => {
    if (!needSdk(ctx, 'the SDK runtime test')) return;
    expect(device!.log()).toMatch(/boot: v\d+\.\d+\.\d+ \(lin-[0-9a-f]+(-dirty)?\) on panel-35, reset: power-on/);
    expect(device!.log()).toMatch(/boot: hotspots: vecdot C, lexical C, sha256 C, p256 C, utf8 C/);
    expect(device!.signIn).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?c=[2-9A-HJKMNP-Z]{12}$/);
    expect(device!.log()).not.toMatch(/start\(\) threw|XS abort|read-only|not writable|read only/);
  });

  it('signs in from the printed link: GET /api/state answers 401 without the token and 200 with it', async (ctx) => {
    if (!needSdk(ctx, 'the SDK runtime test')) return;
    const d = device!;
    const link = new URL(d.signIn);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(200);
    const exchange = await fetch(new URL('/api/signin/exchange', d.url), { method: 'POST', body: new URLSearchParams({ code: link.searchParams.get('c')! }) });
    expect(exchange.status).toBe(200);
    const { token } = (await exchange.json()) as { token: string };
    expect(token).toMatch(/^[0-9a-f]{24}$/);
    expect((await fetch(new URL('/api/state', d.url))).status).toBe(401);
    expect((await fetch(new URL('/api/state', d.url), { headers: { 'X-Device-Token': 'wrong' } })).status).toBe(401);
    const state = await fetch(new URL('/api/state', d.url), { headers: { 'X-Device-Token': token } });
    expect(state.status).toBe(200);
    const body = (await state.json()) as { board: string; mode: number; heap: { xsNow: number } };
    expect(body).toMatchObject({ board: 'panel-35', mode: 1 });
    expect(body.heap.xsNow).toBeGreaterThan(0);
  });

  it('answers the serial console (the SDK\'s lin serial module on a pseudo-terminal)', async (ctx) => {
    if (!needSdk(ctx, 'the SDK runtime test')) return;
    expect(await device!.command('PING')).toBe('PONG\nOK');
    expect(await device!.command('STATUS')).toMatch(/^fw=v\d+\.\d+\.\d+ build=lin-\S+ board=panel-35 mode=1 up=\d+ /);
  });

  it('runs a turn on the offline demo over the SDK\'s TLS, validated against the image\'s certificate store', async (ctx) => {
    if (!needSdk(ctx, 'the SDK runtime test')) return;
    const d = device!;
    d.emulator.reset();
    const reply = await d.command('TURN what is the device status?', 60_000);
    expect(reply).toMatch(/^\(offline demo\) I asked the device \(device\.status\)\. It says: \{"version":"v\d/);
    expect(reply).toMatch(/\nOK$/);
    const posts = d.emulator.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => `${r.host} ${r.path}`)).toEqual(['demo.emulator.test /v1/chat/completions', 'demo.emulator.test /v1/chat/completions']);
    expect(d.log()).toMatch(/turn: offline demo: 2 round\(s\), 1 tool call\(s\)/);
    expect(d.proc.exitCode).toBeNull();
  }, 90_000);
});
