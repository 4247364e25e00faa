// The wire's test-console commands on the providers subsystem, mounted on a
// test kernel (in-memory HAL) with the device's TLS policy and HTTP client:
// WIRE sends one round with the registry's tools and prints the reply or
// the calls, WIREKEY checks a key (and pins the Z.ai region), WIRE? lists
// what is usable; failures end in ERR with the error kind.
import { describe, expect, it } from 'vitest';
import { mount, ready } from '../../../src/core/subsystem.ts';
import { ok } from '../../../src/core/tools/types.ts';
import { providers } from '../../../src/providers/index.ts';
import { turnCodec } from '../../../src/turn/index.ts';
import { flushJobs } from '../../support/clock.ts';
import { bootParts, testKernel } from '../../support/kernel.ts';
import { createMemHal } from '../../support/memhal.ts';
import { TURN, fakeProvider, type SeenRequest } from '../../support/provider-fake.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function run(mem: ReturnType<typeof createMemHal>, line: string): Promise<string> {
  mem.serial.take();
  mem.serial.type(line + '\r\n');
  let out = '';
  for (let i = 0; i < 500 && !/^(OK|ERR.*)\r?$/m.test(out); i++) {
    await flushJobs();
    out += mem.serial.take();
  }
  return out.replace(/\r/g, '');
}

function device(keys: Record<string, string> = {}) {
  const mem = createMemHal();
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.nvs.setMany('orch', Object.entries(keys).map(([p, k]) => [`key.${p}`, k] as [string, string]));
  const { kernel } = testKernel({ mem });
  // One tool of a later subsystem in the registry (system's device.status), as the device has it.
  kernel.tools.register({ name: 'device.status', description: 'The full live state of the device.', schema: { type: 'object', properties: {}, additionalProperties: false }, access: 'open', where: 'both', handler: () => ok('{}') });
  const { client, tls } = bootParts(kernel);
  mount(kernel, providers, { client, tls, connectors: { serversFor: () => Promise.resolve([]) }, turnCodec: ready(turnCodec) });
  kernel.console.start();
  return mem;
}

describe('WIRE', () => {
  it('sends a loop round with the registry tools under their provider names and prints the reply', async () => {
    const mem = device({ openai: 'sk-console-key' });
    const seen = fakeProvider(mem.net, 'api.openai.com', 443, () => ({ status: 200, body: { output: [{ type: 'function_call', call_id: 'c', name: 'orch_turn', arguments: JSON.stringify(TURN) }] } }));
    const out = await run(mem, 'WIRE openai how is the battery?');
    expect(out).toContain('provider=openai model=gpt-5-mini mode=loop');
    expect(out).toContain('kind=turn\nreply=Battery is at 80%.\nOK');
    const body = seen[0]!.body as Json;
    const names = body['tools'].map((t: Json) => t.name) as string[];
    expect(names[0]).toBe('orch_turn');
    expect(names).toContain('device_status');
    expect(body['input'].at(-1)).toEqual({ type: 'message', role: 'user', content: 'how is the battery?' });
    expect(out).not.toContain('sk-console-key');
  });

  it('prints the tool calls of the offline demo, and the error kind of a failure', async () => {
    const mem = device();
    fakeProvider(mem.net, 'demo.emulator.test', 443, (r: SeenRequest) => {
      expect(r.headers['authorization']).toBeUndefined();
      return { status: 200, body: { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'device_status', arguments: '{}' } }] } }] } };
    });
    const demo = await run(mem, 'WIRE demo what is the device status?');
    expect(demo).toContain('provider=demo model=demo mode=loop');
    expect(demo).toContain('kind=tools\ncall=device_status {}\nOK');
    expect(await run(mem, 'WIRE mistral single hello')).toMatch(/ERR config: no mistral key is set/);
    expect(await run(mem, 'WIRE nobody hello')).toMatch(/ERR unknown provider nobody/);
    expect(await run(mem, 'WIRE openai')).toMatch(/ERR usage/);
  });

  it('WIREKEY pins the Z.ai region and WIRE? shows it', async () => {
    const mem = device({ zai: 'zai-key' });
    fakeProvider(mem.net, 'api.z.ai', 443, () => ({ status: 401, body: { error: { code: '1000', message: 'Authentication failed' } } }));
    fakeProvider(mem.net, 'open.bigmodel.cn', 443, () => ({ status: 200, body: { data: [] } }));
    expect(await run(mem, 'WIREKEY zai')).toContain('ok https://open.bigmodel.cn/api/paas/v4/models\nOK');
    const list = await run(mem, 'WIRE?');
    expect(list).toContain('zai usable=1 model=glm-4.6 loops=1');
    expect(list).toContain('custom usable=0 model=default loops=0');
    expect(list).toContain('zaiHost=https://open.bigmodel.cn');
    expect(list).toContain('routerHost=https://router.desk-assistant.invalid');
    expect(await run(mem, 'WIREKEY openai')).toMatch(/ERR config: no openai key is set/);
  });
});
