// The provider wire on the simulator (the real firmware on XS) against the
// provider emulator, over TLS with tlsVerify on (the test build trusts the
// local test CA; the board routes each provider host name to the emulator).
// Driven through the test-console commands WIRE, WIREKEY and WIRE?. Every
// request the firmware built on XS is checked against the reference schema
// of its dialect; an emulator with a certificate the firmware does not
// trust is refused (ETLS: transport) until tlsVerify is turned off.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, turnObject, type Emulator, type RecordedRequest } from '../../tools/provider-emulator.mjs';
import type { Device } from './harness.ts';
import { startProviderRig, type ProviderRig } from './fixtures/provider-rig.ts';

const SCHEMAS = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/provider-schemas');
const ajv = new Ajv({ allErrors: true, strict: false });
const check = (name: string, body: unknown): void => {
  const v = ajv.getSchema(name) ?? (ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS, `${name}.json`), 'utf8')) as object, name), ajv.getSchema(name)!);
  expect(v(body), `${name}: ${ajv.errorsText(v.errors)}`).toBe(true);
};

let rig: ProviderRig;
let emu: Emulator;
let device: Device;
let token = '';
const TURN = turnObject('Battery is at 80%.');
const orch = (fields: Record<string, string>): Promise<void> => rig.orch(fields);
const posts = (): RecordedRequest[] => emu.requests.filter((r) => r.method === 'POST');

beforeAll(async () => {
  rig = await startProviderRig();
  ({ emu, device, token } = rig);
});

afterAll(async () => {
  await rig?.close();
});

describe('the wire on the simulator, over TLS with tlsVerify on', () => {
  it('provider A: a loop round with the registry tools; the body is a valid Responses request', async () => {
    emu.reset();
    emu.script({ turn: TURN });
    const out = await device.command('WIRE openai how is the battery?', 20_000);
    expect(out).toContain('kind=turn\nreply=Battery is at 80%.\nOK');
    const [req] = posts();
    expect(req).toMatchObject({ host: 'api.openai.com', path: '/v1/responses' });
    expect(req!.headers['authorization']).toBe('Bearer sk-e2e-openai');
    check('openai-responses-create', req!.body);
    expect(req!.body.store).toBe(false);
    expect(req!.body.tool_choice).toBe('required');
    expect(req!.body.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['orch_turn', 'device_status', 'memory_search']));
  });

  it('provider B: tool calls come back as calls; the body is a valid Messages request', async () => {
    emu.reset();
    emu.script({ tools: [{ name: 'device_status', args: {} }], reasoning: true });
    const out = await device.command('WIRE anthropic what is the status?', 20_000);
    expect(out).toContain('kind=tools\ncall=device_status {}\nOK');
    const [req] = posts();
    expect(req).toMatchObject({ host: 'api.anthropic.com', path: '/v1/messages' });
    expect(req!.headers).toMatchObject({ 'x-api-key': 'sk-e2e-anthropic', 'anthropic-version': '2023-06-01' });
    check('anthropic-messages-create', req!.body);
  });

  it('provider C: single-shot over the conversations API, loop rounds over chat completions', async () => {
    emu.reset();
    emu.script([{ turn: TURN }, { turn: TURN }]);
    expect(await device.command('WIRE mistral single hello', 20_000)).toContain('reply=Battery is at 80%.');
    expect(await device.command('WIRE mistral loop hello', 20_000)).toContain('reply=Battery is at 80%.');
    const [single, loop] = posts();
    expect(single).toMatchObject({ host: 'api.mistral.ai', path: '/v1/conversations' });
    check('mistral-conversations-start', single!.body);
    expect(single!.body.store).toBe(false);
    expect(loop).toMatchObject({ host: 'api.mistral.ai', path: '/v1/chat/completions' });
    check('mistral-chat-completions', loop!.body);
    expect(loop!.body.tool_choice).toBe('any');
  });

  it('provider C: its context-overflow wording is recognized', async () => {
    emu.reset();
    emu.script({ overflow: true });
    expect(await device.command('WIRE mistral loop hello', 20_000)).toMatch(/ERR context-overflow 400: HTTP 400: Prompt contains 40000 tokens/);
  });

  it('Z.ai-style: the key check pins the region that takes the key; rounds go there', async () => {
    emu.reset();
    emu.keys.set('api.z.ai', 'not-this-one');
    emu.keys.set('open.bigmodel.cn', 'e2e-zai');
    expect(await device.command('WIREKEY zai', 20_000)).toContain('ok https://open.bigmodel.cn/api/paas/v4/models\nOK');
    expect(await device.command('WIRE?')).toContain('zaiHost=https://open.bigmodel.cn');
    emu.script({ turn: TURN });
    expect(await device.command('WIRE zai hello', 20_000)).toContain('kind=turn');
    const [req] = posts();
    expect(req).toMatchObject({ host: 'open.bigmodel.cn', path: '/api/paas/v4/chat/completions' });
    check('zai-chat-completions', req!.body);
  });

  it('model router: <upstream>/<model> picks the path, the bare id is sent', async () => {
    emu.reset();
    await orch({ model: 'mistral/mistral-small-latest' });
    emu.script({ turn: TURN });
    expect(await device.command('WIRE router hello', 20_000)).toContain('provider=router model=mistral/mistral-small-latest mode=loop');
    const [req] = posts();
    expect(req).toMatchObject({ host: 'router.desk-assistant.invalid', path: '/router/mistral/v1/chat/completions' });
    expect(req!.body.model).toBe('mistral-small-latest');
    check('openai-chat-completions', req!.body);
    await orch({ model: '' });
  });

  it('custom endpoint over plain http: keyless, single-shot, retried schema-less after a 400', async () => {
    rig.plain.reset();
    await orch({ custom_base: 'http://custom.emulator.test:8080/ignored', custom_style: 'chat', custom_model: 'local-llm', key_custom: 'must-not-leak' });
    rig.plain.script([{ status: 400, message: 'response_format json_schema is not supported' }, { turn: TURN }]);
    expect(await device.command('WIRE custom hello', 20_000)).toContain('provider=custom model=local-llm mode=single');
    expect(rig.plain.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    expect(rig.plain.requests.map((r) => Boolean(r.body.response_format))).toEqual([true, false]);
    for (const r of rig.plain.requests) {
      check('openai-chat-completions', r.body);
      expect(r.text + JSON.stringify(r.headers)).not.toContain('must-not-leak');
    }
  });

  it('the offline demo answers keyless and calls device_status', async () => {
    emu.reset();
    const out = await device.command('WIRE demo what is the device status?', 20_000);
    expect(out).toContain('kind=tools\ncall=device_status {}\nOK');
    expect(posts()[0]).toMatchObject({ host: 'demo.emulator.test', path: '/v1/chat/completions' });
    expect(posts()[0]!.headers['authorization']).toBeUndefined();
  });

  it('no key or body reaches the log', async () => {
    const res = await device.fetch('/api/log', { token });
    const log = await res.text();
    expect(log).toContain('wire:');
    for (const secret of ['sk-e2e-openai', 'sk-e2e-anthropic', 'e2e-mistral', 'must-not-leak', 'how is the battery']) expect(log).not.toContain(secret);
  });
});

describe('TLS refusal', () => {
  it('an emulator with a certificate from a CA the firmware does not trust: ETLS, a transport error; tlsVerify=0 lets it through', async () => {
    const rogue = await start({ untrusted: true, names: ['api.openai.com'] });
    try {
      await device.board.request('net.route', { host: 'api.openai.com', port: 443, to: `127.0.0.1:${rogue.port}` });
      expect(await device.command('WIRE openai hello', 20_000)).toMatch(/ERR transport: tls: ETLS/);
      expect(rogue.requests).toHaveLength(0);
      await orch({ tlsVerify: '0' });
      rogue.script({ turn: TURN });
      expect(await device.command('WIRE openai hello', 20_000)).toContain('kind=turn');
      expect(rogue.requests).toHaveLength(1);
    } finally {
      await orch({ tlsVerify: '1' });
      await device.board.request('net.route', { host: 'api.openai.com', port: 443, to: `127.0.0.1:${emu.port}` });
      await rogue.close();
    }
  });
});
