// A whole assistant turn on the simulator (the real firmware on XS) against
// the provider emulator over TLS with tlsVerify on: TURN on the console runs
// the tool loop (a registry tool really runs on the device), the reply comes
// back, memory and the scratchpad are applied and survive a reboot, and an
// emulator whose certificate the firmware does not trust is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_NAMES, routeArgs, start, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

let emu: Emulator;
let untrusted: Emulator;
let device: Device;
let token = '';

async function orch(fields: Record<string, string>): Promise<void> {
  const res = await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams(fields) });
  expect(res.status, await res.clone().text()).toBe(200);
}

beforeAll(async () => {
  emu = await start();
  untrusted = await start({ untrusted: true, names: ['api.openai.com'] });
  device = await startDevice({ args: routeArgs(emu.port, EMULATOR_NAMES) });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  await orch({ key_anthropic: 'sk-e2e-anthropic', priority: 'anthropic,openai' });
});

afterAll(async () => {
  await cleanup();
  await emu?.close();
  await untrusted?.close();
});

describe('a turn on the simulator', () => {
  it('runs the tool loop over TLS, replies, and applies memory and the scratchpad', async () => {
    emu.reset();
    emu.script([
      { tools: [{ name: 'device_status', args: {} }] },
      {
        turn: turnObject('The device is fine. I noted that you like tea.', {
          memory: 'owner asked about the device',
          mem_write: [{ content: 'The owner likes green tea', importance: 0.7, permanent: false, ttl: 'months' }],
          scratchpad: { active: 'checking the device', short: ['tea'], mid: null, long: null },
        }),
      },
    ]);
    const out = await device.command('TURN how is the device? also I like green tea', 30_000);
    expect(out).toBe('The device is fine. I noted that you like tea.\nOK');
    const posts = emu.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]).toMatchObject({ host: 'api.anthropic.com', path: '/v1/messages' });
    expect(posts[0]!.headers['x-api-key']).toBe('sk-e2e-anthropic');
    // The second round carried the device's answer to device_status.
    expect(JSON.stringify(posts[1]!.body)).toContain('panel-35');
    const stat = await device.command('TURNSTAT?');
    expect(stat).toMatch(/^status=ok deviceMs=\d+ providerMs=\d+ rounds=2 tools=1 /);
    const search = await device.fetch('/api/mem/vector?query=tea', { token });
    expect(await search.text()).toContain('green tea');
    const last = (await (await device.fetch('/api/lastturn', { token })).json()) as { turn: { reply: string } };
    expect(last.turn.reply).toMatch(/^The device is fine/);
  });

  it('keeps running memory and the scratchpad across a reboot', async () => {
    const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
    await device.board.request('reboot', { reason: 'software' });
    await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 10_000 });
    emu.reset();
    emu.script({ turn: turnObject('still here') });
    expect(await device.command('TURN hello again', 30_000)).toBe('still here\nOK');
    const system = JSON.stringify(emu.requests.find((r) => r.method === 'POST')!.body);
    expect(system).toContain('owner asked about the device');
    expect(system).toContain('checking the device');
  });

  it('refuses a provider whose certificate it does not trust, and fails over to the next keyed one', async () => {
    await orch({ key_openai: 'sk-e2e-openai', priority: 'openai,anthropic' });
    await device.board.request('net.route', { host: 'api.openai.com', port: 443, to: `127.0.0.1:${untrusted.port}` });
    emu.reset();
    emu.script({ turn: turnObject('answered by the trusted one') });
    const out = await device.command('TURN who answers?', 30_000);
    expect(out).toBe('answered by the trusted one\n\n(served by anthropic claude-sonnet-4-5)\nOK');
    expect(untrusted.requests).toHaveLength(0);
    expect(emu.requests.filter((r) => r.method === 'POST').map((r) => r.host)).toEqual(['api.anthropic.com']);
  });
});
