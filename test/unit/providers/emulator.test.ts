// The provider emulator (tools/provider-emulator.mjs), tested in Node with
// the firmware's own wire talking to it over TLS validated against the test
// CA: every dialect answers a turn and tool calls in its shape, scripted
// faults (5xx, overflow wording, broken JSON, silence, late and slow
// answers) reach the wire as the right error kinds, reasoning and thinking
// replay arrive back at the emulator, requests are recorded, the Z.ai
// regional pinning works against its two names, the offline demo
// answers and calls device_status, and the owner's tool servers (the wire's
// ToolServerSource) are recorded in A and B rounds and replayed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, turnObject, type Emulator } from '../../../tools/provider-emulator.mjs';
import { testCaPem } from '../../../tools/test-ca.mjs';
import { Store } from '../../../src/core/store.ts';
import { DEMO_ENDPOINT } from '../../../src/providers/demo.ts';
import type { ProviderId } from '../../../src/providers/settings.ts';
import type { RoundRequest, RoundResult, TranscriptItem } from '../../../src/contracts/index.ts';
import { ProviderWire, WIRE_NS } from '../../../src/providers/wire.ts';
import type { ToolServer, ToolServerSource } from '../../../src/providers/tool-servers.ts';
import { parseTurn } from '../../../src/turn/parse.ts';
import { MemNvs } from '../../support/memstorage.ts';
import { nodeClient } from '../../support/node-client.ts';
import { FakeSettings, TURN, roundRequest } from '../../support/provider-fake.ts';

let emu: Emulator;
let plain: Emulator;
beforeAll(async () => {
  emu = await start();
  plain = await start({ tls: false });
});
afterAll(async () => {
  await emu.close();
  await plain.close();
});

function wireFor(e: Emulator, setup: (s: FakeSettings) => void = () => {}, servers: ToolServerSource | null = null) {
  const settings = new FakeSettings();
  Object.assign(settings.keys, { openai: 'sk-openai', anthropic: 'sk-ant', mistral: 'mistral-key', zai: 'zai-key', router: 'router-key' });
  settings.base = 'https://custom.emulator.test';
  settings.custom = 'local-model';
  setup(settings);
  const logs: string[] = [];
  const store = new Store(new MemNvs(), WIRE_NS);
  const wire = new ProviderWire(nodeClient(e.port, testCaPem()), settings, { info: (_t, m) => void logs.push(m), warn: (_t, m) => void logs.push(m) }, { monoMs: () => performance.now() }, store, servers);
  return { wire, settings, store, logs };
}

const DIALECTS: Array<[ProviderId, string, string]> = [
  ['openai', 'api.openai.com', '/v1/responses'],
  ['anthropic', 'api.anthropic.com', '/v1/messages'],
  ['mistral', 'api.mistral.ai', '/v1/chat/completions'],
  ['zai', 'api.z.ai', '/api/paas/v4/chat/completions'],
  ['router', 'router.desk-assistant.invalid', '/router/openai/v1/chat/completions'],
];

describe('every dialect over TLS', () => {
  it.each(DIALECTS)('%s: a scripted turn, then scripted tool calls, read by the wire', async (provider, host, path) => {
    emu.reset();
    const { wire } = wireFor(emu);
    emu.script([{ turn: TURN }, { tools: [{ name: 'device_status', args: {} }, { name: 'memory_search', args: { query: 'battery' } }] }]);
    const turn = await wire.round(roundRequest(provider), 10_000);
    expect(turn).toMatchObject({ kind: 'turn' });
    if (turn.kind === 'turn') expect(parseTurn(turn.json).code).toBe('Ok');
    const tools = await wire.round(roundRequest(provider), 10_000);
    expect(tools).toMatchObject({ kind: 'tools', calls: [{ name: 'device_status', args: '{}' }, { name: 'memory_search', args: '{"query":"battery"}' }] });
    const posts = emu.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => [r.host, r.path])).toEqual([
      [host, path],
      [host, path],
    ]);
    if (provider === 'mistral' && tools.kind === 'tools') for (const c of tools.calls) expect(c.id).toMatch(/^[A-Za-z0-9]{9}$/);
  });

  it.each([
    ['mistral', 'api.mistral.ai', '/v1/conversations'],
    ['openai', 'api.openai.com', '/v1/responses'],
    ['anthropic', 'api.anthropic.com', '/v1/messages'],
  ] as Array<[ProviderId, string, string]>)('%s single-shot gets the structured turn', async (provider, host, path) => {
    emu.reset();
    emu.script({ turn: TURN });
    const r = await wireFor(emu).wire.round(roundRequest(provider, { mode: 'single' }), 10_000);
    expect(r).toMatchObject({ kind: 'turn', json: JSON.stringify(TURN) });
    expect(emu.requests[0]).toMatchObject({ host, path });
  });
});

describe('replay', () => {
  async function twoRounds(provider: ProviderId): Promise<RoundRequest> {
    emu.reset();
    const { wire } = wireFor(emu);
    emu.script([{ tools: [{ name: 'device_status', args: {} }], reasoning: true }, { turn: TURN }]);
    const req = roundRequest(provider);
    const first = await wire.round(req, 10_000);
    if (first.kind !== 'tools') throw new Error(`expected tools, got ${JSON.stringify(first)}`);
    const transcript: TranscriptItem[] = [...req.transcript, ...first.items, { kind: 'tool_result', id: first.calls[0]!.id, name: 'device_status', output: '{"success":true,"output":"battery 80%","error":null,"error_type":null}' }];
    const second = await wire.round({ ...req, transcript }, 10_000);
    expect(second.kind).toBe('turn');
    return { ...req, transcript };
  }

  it('provider A: the reasoning item comes back verbatim before its function call, with the call output', async () => {
    await twoRounds('openai');
    const [first, second] = emu.requests;
    expect(first!.body.include).toEqual(['reasoning.encrypted_content']);
    expect(first!.body.store).toBe(false);
    const input = second!.body.input as Array<Record<string, unknown>>;
    const types = input.map((i) => i.type);
    expect(types.slice(-3)).toEqual(['reasoning', 'function_call', 'function_call_output']);
    expect(input.at(-3)!.encrypted_content).toMatch(/^enc/);
    expect(input.at(-1)!.call_id).toBe(input.at(-2)!.call_id);
  });

  it('provider B: the thinking block leads the assistant message, the tool result follows in the user message', async () => {
    await twoRounds('anthropic');
    const messages = emu.requests[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.content.map((c) => c.type)).toEqual(['thinking', 'tool_use']);
    expect(messages[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: messages[1]!.content[1]!.id });
  });
});

describe('tool servers', () => {
  const CALENDAR: ToolServer = { label: 'calendar', name: 'Calendar', url: 'https://mcp.calendar.test/mcp', connectorId: '', credential: 'access-token-xyz' };
  const source = (list: ToolServer[]): ToolServerSource & { asked: string[] } => {
    const asked: string[] = [];
    return { asked, serversFor: async (p) => (asked.push(p), list) };
  };

  it.each([
    ['openai', '/v1/responses'],
    ['anthropic', '/v1/messages'],
  ] as const)('%s: carried in an admin loop round, and the provider call it made is replayed in the next', async (provider, path) => {
    emu.reset();
    const src = source([CALENDAR]);
    const { wire } = wireFor(emu, () => {}, src);
    emu.script([{ mcp: [{ server: 'calendar', name: 'list_events', args: { day: 'today' }, output: 'dentist at 10' }], tools: [{ name: 'device_status', args: {} }] }, { turn: TURN }]);
    const req = { ...roundRequest(provider), connectors: true };
    const first = await wire.round(req, 10_000);
    if (first.kind !== 'tools') throw new Error(`expected tools, got ${JSON.stringify(first)}`);
    const transcript: TranscriptItem[] = [...req.transcript, ...first.items, { kind: 'tool_result', id: first.calls[0]!.id, name: 'device_status', output: '{"success":true,"output":"ok","error":null,"error_type":null}' }];
    expect((await wire.round({ ...req, transcript }, 10_000)).kind).toBe('turn');
    const rounds = emu.requests.filter((r) => r.path === path);
    expect(rounds).toHaveLength(2);
    for (const r of rounds) {
      if (provider === 'openai') expect(r.body.tools.filter((t: { type: string }) => t.type === 'mcp')).toEqual([{ type: 'mcp', server_label: 'calendar', server_url: 'https://mcp.calendar.test/mcp', server_description: 'Calendar', authorization: 'access-token-xyz', require_approval: 'never' }]);
      else {
        expect(r.body.mcp_servers).toEqual([{ type: 'url', url: 'https://mcp.calendar.test/mcp', name: 'calendar', authorization_token: 'access-token-xyz' }]);
        expect(r.headers['anthropic-beta']).toBe('mcp-client-2025-11-20');
      }
    }
    expect(rounds[1]!.text).toContain(provider === 'openai' ? '"type":"mcp_call"' : '"type":"mcp_tool_result"');
    expect(rounds[1]!.text).toContain('dentist at 10');
    expect(src.asked).toEqual([provider, provider]);
  });

  it('not for a caller without connectors, a single-shot round, or a provider without MCP support', async () => {
    emu.reset();
    const src = source([CALENDAR]);
    const { wire } = wireFor(emu, () => {}, src);
    await wire.round(roundRequest('openai'), 10_000);
    await wire.round({ ...roundRequest('anthropic', { mode: 'single' }), connectors: true }, 10_000);
    await wire.round({ ...roundRequest('mistral'), connectors: true }, 10_000);
    await wire.round({ ...roundRequest('custom'), connectors: true, mode: 'single' }, 10_000);
    expect(src.asked).toEqual([]);
    for (const r of emu.requests) expect(r.text).not.toContain('access-token-xyz');
  });
});

describe('scripted faults reach the wire as error kinds', () => {
  const cases: Array<[string, object, RoundResult['kind'], string | undefined]> = [
    ['a 503', { status: 503 }, 'error', 'http'],
    ['a 401', { status: 401 }, 'error', 'auth'],
    ['a 429', { status: 429 }, 'error', 'rate-limit'],
    ['broken JSON', { broken: true }, 'error', 'malformed'],
    ['silence', { timeout: true }, 'error', 'timeout'],
  ];
  it.each(cases)('%s', async (_name, behaviour, kind, error) => {
    emu.reset();
    emu.script(behaviour);
    const r = await wireFor(emu).wire.round(roundRequest('openai'), 800);
    expect(r.kind).toBe(kind);
    if (r.kind === 'error') expect(r.error).toBe(error);
  });

  it.each(DIALECTS.filter(([p]) => p !== 'zai').concat([['zai', 'api.z.ai', '']]))('%s: the context-overflow wording of the dialect', async (provider) => {
    emu.reset();
    emu.script({ overflow: true });
    const r = await wireFor(emu).wire.round(roundRequest(provider), 10_000);
    expect(r).toMatchObject({ kind: 'error', error: 'context-overflow', status: 400 });
  });

  it('a late answer inside the deadline and a slow body are read; a late answer past it is a timeout', async () => {
    emu.reset();
    const { wire } = wireFor(emu);
    emu.script([{ turn: TURN, delayMs: 200 }, { turn: TURN, slow: { chunkBytes: 40, intervalMs: 5 } }, { turn: TURN, delayMs: 1500 }]);
    expect(await wire.round(roundRequest('anthropic'), 2000)).toMatchObject({ kind: 'turn' });
    expect(await wire.round(roundRequest('anthropic'), 5000)).toMatchObject({ kind: 'turn' });
    expect(await wire.round(roundRequest('anthropic'), 500)).toMatchObject({ kind: 'error', error: 'timeout' });
  });

  it('a behaviour waits for the request it matches', async () => {
    emu.reset();
    const { wire } = wireFor(emu);
    emu.script([{ match: { host: 'api.anthropic.com' }, status: 500 }, { match: { host: 'api.openai.com' }, turn: TURN }]);
    expect(await wire.round(roundRequest('openai'), 5000)).toMatchObject({ kind: 'turn' });
    expect(emu.pending()).toBe(1);
    expect(await wire.round(roundRequest('anthropic'), 5000)).toMatchObject({ kind: 'error', error: 'http', status: 500 });
  });
});

describe('the custom endpoint', () => {
  it('https chat style with the key; a schema refusal retried schemaless', async () => {
    emu.reset();
    const { wire } = wireFor(emu, (s) => (s.keys.custom = 'custom-key'));
    emu.script([{ status: 400, message: "response_format 'json_schema' is not supported" }, { turn: TURN }]);
    expect(await wire.round(roundRequest('custom', { mode: 'single' }), 5000)).toMatchObject({ kind: 'turn' });
    expect(emu.requests.map((r) => Boolean(r.body.response_format))).toEqual([true, false]);
    expect(emu.requests[0]!.headers['authorization']).toBe('Bearer custom-key');
    expect(emu.requests[0]!.body.model).toBe('local-model');
  });

  it('plain http in messages style: keyless', async () => {
    plain.reset();
    const { wire } = wireFor(plain, (s) => {
      s.base = 'http://custom.emulator.test:8080/anything';
      s.style = 'messages';
      s.keys.custom = 'custom-key';
    });
    plain.script({ turn: TURN });
    expect(await wire.round(roundRequest('custom', { mode: 'single' }), 5000)).toMatchObject({ kind: 'turn', json: JSON.stringify(TURN) });
    expect(plain.requests[0]).toMatchObject({ path: '/v1/messages', host: 'custom.emulator.test' });
    expect(plain.requests[0]!.text).not.toContain('custom-key');
    expect(JSON.stringify(plain.requests[0]!.headers)).not.toContain('custom-key');
  });
});

describe('key checks against the emulator', () => {
  it('Z.ai-style: the host that takes the key is pinned', async () => {
    emu.reset();
    emu.keys.set('api.z.ai', 'someone-else');
    emu.keys.set('open.bigmodel.cn', 'zai-key');
    const { wire, store } = wireFor(emu);
    expect(await wire.verifyKey('zai')).toMatchObject({ ok: true, url: 'https://open.bigmodel.cn/api/paas/v4/models' });
    expect(store.strOrNull('zaiHost')).toBe('https://open.bigmodel.cn');
    expect(emu.requests.map((r) => `${r.method} ${r.host}${r.path}`).sort()).toEqual(['GET api.z.ai/api/paas/v4/models', 'GET open.bigmodel.cn/api/paas/v4/models']);
    emu.script({ turn: TURN });
    expect(await wire.round(roundRequest('zai'), 5000)).toMatchObject({ kind: 'turn' });
    expect(emu.requests.at(-1)!.host).toBe('open.bigmodel.cn');
  });

  it.each(['openai', 'anthropic', 'mistral', 'router'] as ProviderId[])('%s: accepted, then refused with a wrong key', async (provider) => {
    emu.reset();
    const { wire } = wireFor(emu);
    expect(await wire.verifyKey(provider)).toMatchObject({ ok: true });
    const host = { openai: 'api.openai.com', anthropic: 'api.anthropic.com', mistral: 'api.mistral.ai', router: 'router.desk-assistant.invalid' }[provider as string]!;
    emu.keys.set(host, 'the-right-key');
    expect(await wire.verifyKey(provider)).toMatchObject({ ok: false, error: 'auth', status: 401 });
  });
});

describe('TLS', () => {
  it('an emulator whose certificate the client does not trust is refused: transport', async () => {
    const rogue = await start({ untrusted: true });
    try {
      const r = await wireFor(rogue).wire.round(roundRequest('openai'), 5000);
      expect(r).toMatchObject({ kind: 'error', error: 'transport' });
      expect(rogue.requests).toHaveLength(0);
    } finally {
      await rogue.close();
    }
  });
});

describe('the offline demo', () => {
  it('asked about the device, it calls device_status, then answers with what the tool said', async () => {
    emu.reset();
    const { wire } = wireFor(emu);
    const req = roundRequest('custom', { model: 'demo', transcript: [{ kind: 'system', text: 'prompt' }, { kind: 'user', text: 'How is the device status?' }] });
    const first = await wire.round(req, 5000, DEMO_ENDPOINT);
    expect(first).toMatchObject({ kind: 'tools', calls: [{ name: 'device_status', args: '{}' }] });
    if (first.kind !== 'tools') return;
    const transcript: TranscriptItem[] = [...req.transcript, ...first.items, { kind: 'tool_result', id: first.calls[0]!.id, name: 'device_status', output: '{"success":true,"output":"battery 80%, heap 120 KB","error":null,"error_type":null}' }];
    const second = await wire.round({ ...req, transcript }, 5000, DEMO_ENDPOINT);
    expect(second.kind).toBe('turn');
    const parsed = parseTurn(second.kind === 'turn' ? second.json : '');
    expect(parsed.code).toBe('Ok');
    expect(second.kind === 'turn' && JSON.parse(second.json).reply).toContain('battery 80%, heap 120 KB');
    expect(emu.requests.every((r) => r.host === 'demo.emulator.test' && r.headers['authorization'] === undefined)).toBe(true);
  });

  it('anything else gets the friendly offline answer, single-shot or loop, in every dialect', async () => {
    emu.reset();
    const { wire } = wireFor(emu);
    for (const [provider] of DIALECTS) {
      for (const mode of ['single', 'loop'] as const) {
        const r = await wire.round(roundRequest(provider, { mode, transcript: [{ kind: 'user', text: 'Tell me a joke' }] }), 5000);
        expect(r.kind, `${provider} ${mode}`).toBe('turn');
        const reply = r.kind === 'turn' ? (JSON.parse(r.json) as { reply: string }).reply : '';
        expect(reply).toContain('This is the offline demo: no provider key is set');
        expect(reply).toContain('Tell me a joke');
      }
    }
  });

  it('turnObject carries every wire field', () => {
    expect(parseTurn(JSON.stringify(turnObject('hi'))).code).toBe('Ok');
  });
});

/** A raw request to the plain-http emulator under a provider's host name. */
async function raw(host: string, path: string, headers: Record<string, string>, body: unknown, method = 'POST'): Promise<{ status: number; text: string }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const data = Buffer.from(method === 'GET' ? '' : JSON.stringify(body));
    const req = request({ host: '127.0.0.1', port: plain.port, method, path, headers: { host, 'content-type': 'application/json', 'content-length': String(data.length), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

describe('the emulator refuses what the services refuse (tools/provider-rules.mjs)', () => {
  const strictTool = (parameters: unknown) => ({ type: 'function', name: 'orch_turn', parameters, strict: true });
  const good = { type: 'object', properties: { reply: { type: 'string' } }, required: ['reply'], additionalProperties: false };
  const bearer = { authorization: 'Bearer k' };
  const anthropic = { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
  const mcpB = { ...anthropic, 'anthropic-beta': 'mcp-client-2025-11-20' };
  const managed = { ...anthropic, 'anthropic-beta': 'managed-agents-2026-04-01' };
  const msgB = { model: 'claude-sonnet-4-5', max_tokens: 10, system: 's', messages: [{ role: 'user', content: 'hi' }] };

  it.each([
    ['A without Authorization: Bearer', 'api.openai.com', '/v1/responses', { 'x-api-key': 'k' }, { model: 'gpt-5-mini', input: 'hi' }, 401, /Bearer/],
    ['B without x-api-key', 'api.anthropic.com', '/v1/messages', bearer, { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, 401, /x-api-key/],
    ['B without anthropic-version', 'api.anthropic.com', '/v1/messages', { 'x-api-key': 'k' }, { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, 400, /anthropic-version/],
    ['B mcp_servers without the beta', 'api.anthropic.com', '/v1/messages', anthropic, { model: 'claude-sonnet-4-5', max_tokens: 10, system: 's', messages: [{ role: 'user', content: 'hi' }], mcp_servers: [{ type: 'url', name: 's', url: 'https://x' }] }, 400, /mcp-client/],
    ['B session without the managed-agents beta', 'api.anthropic.com', '/v1/sessions', anthropic, { agent: 'a' }, 400, /managed-agents/],
    ['C without Authorization: Bearer', 'api.mistral.ai', '/v1/chat/completions', {}, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, 401, /Bearer/],
    ['a strict schema with a property not required', 'api.openai.com', '/v1/responses', bearer, { model: 'gpt-5-mini', input: 'hi', tools: [strictTool({ ...good, required: [] })] }, 400, /required/],
    ['a strict schema without additionalProperties false', 'api.openai.com', '/v1/responses', bearer, { model: 'gpt-5-mini', input: 'hi', tools: [strictTool({ ...good, additionalProperties: true })] }, 400, /additionalProperties/],
    ['a strict schema with an unsupported keyword', 'api.openai.com', '/v1/responses', bearer, { model: 'gpt-5-mini', input: 'hi', tools: [strictTool({ ...good, properties: { reply: { type: 'string', minLength: 1 } } })] }, 400, /minLength/],
    ['a reasoning item without its following item', 'api.openai.com', '/v1/responses', bearer, { model: 'gpt-5-mini', store: false, input: [{ type: 'reasoning', id: 'rs_x', summary: [], encrypted_content: 'e' }, { type: 'function_call', call_id: 'c', name: 'n', arguments: '{}' }] }, 400, /required following item/],
    ['a reasoning item without encrypted content under store false', 'api.openai.com', '/v1/responses', bearer, { model: 'gpt-5-mini', store: false, input: [{ type: 'reasoning', id: 'rs_y', summary: [] }, { type: 'function_call', id: 'fc_y', call_id: 'c', name: 'n', arguments: '{}' }] }, 404, /not persisted/],
    ['encrypted reasoning asked of a model that does not reason', 'api.openai.com', '/v1/responses', bearer, { model: 'gpt-4.1', input: 'hi', include: ['reasoning.encrypted_content'] }, 400, /not supported/],
    ['a Mistral tool-call id that is not nine alphanumerics', 'api.mistral.ai', '/v1/chat/completions', bearer, { model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_123', type: 'function', function: { name: 'n', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'call_123', content: 'x' }] }, 400, /length of 9/],
    ['B an MCP server no mcp_toolset names', 'api.anthropic.com', '/v1/messages', mcpB, { ...msgB, mcp_servers: [{ type: 'url', name: 's', url: 'https://mcp.x.test/' }] }, 400, /not referenced by any mcp_toolset/],
    ['B an MCP server over plain http', 'api.anthropic.com', '/v1/messages', mcpB, { ...msgB, mcp_servers: [{ type: 'url', name: 's', url: 'http://mcp.x.test/' }], tools: [{ type: 'mcp_toolset', mcp_server_name: 's' }] }, 400, /https/],
    ['B an MCP server two toolsets name', 'api.anthropic.com', '/v1/messages', mcpB, { ...msgB, mcp_servers: [{ type: 'url', name: 's', url: 'https://mcp.x.test/' }], tools: [{ type: 'mcp_toolset', mcp_server_name: 's' }, { type: 'mcp_toolset', mcp_server_name: 's' }] }, 400, /more than one mcp_toolset/],
    ['B a toolset naming no declared server', 'api.anthropic.com', '/v1/messages', mcpB, { ...msgB, mcp_servers: [{ type: 'url', name: 's', url: 'https://mcp.x.test/' }], tools: [{ type: 'mcp_toolset', mcp_server_name: 's' }, { type: 'mcp_toolset', mcp_server_name: 't' }] }, 400, /'t', which is not in mcp_servers/],
    ['A an mcp tool without server_url or connector_id', 'api.openai.com', '/v1/responses', bearer, { model: 'gpt-5-mini', input: 'hi', tools: [{ type: 'mcp', server_label: 's', require_approval: 'never' }] }, 400, /exactly one of server_url/],
    ['B an agent whose MCP server no toolset names', 'api.anthropic.com', '/v1/agents', managed, { name: 'a', model: 'claude-sonnet-4-5', mcp_servers: [{ type: 'url', name: 's', url: 'https://mcp.x.test/' }], tools: [{ type: 'agent_toolset_20260401' }] }, 400, /not referenced by any mcp_toolset/],
    ['B an agent MCP server with a credential in it', 'api.anthropic.com', '/v1/agents', managed, { name: 'a', model: 'claude-sonnet-4-5', mcp_servers: [{ type: 'url', name: 's', url: 'https://mcp.x.test/', authorization_token: 't' }], tools: [{ type: 'mcp_toolset', mcp_server_name: 's' }] }, 400, /authorization_token: Extra inputs/],
    ['B a session without its environment', 'api.anthropic.com', '/v1/sessions', managed, { agent: 'agent_x' }, 400, /environment_id: Field required/],
    ['B a vault without display_name', 'api.anthropic.com', '/v1/vaults', managed, { metadata: { owner: 'x' } }, 400, /display_name: Field required/],
    ['B a vault named with 256 characters', 'api.anthropic.com', '/v1/vaults', managed, { display_name: 'v'.repeat(256) }, 400, /1-255 characters/],
    ['B a static_bearer credential without its token', 'api.anthropic.com', '/v1/vaults/vlt_x/credentials', managed, { auth: { type: 'static_bearer', mcp_server_url: 'https://mcp.x.test/' } }, 400, /auth\.token: Field required/],
    ['B a credential for a plain-http server', 'api.anthropic.com', '/v1/vaults/vlt_x/credentials', managed, { auth: { type: 'static_bearer', mcp_server_url: 'http://mcp.x.test/', token: 't' } }, 400, /https/],
    ['B a credential of a type the API lacks', 'api.anthropic.com', '/v1/vaults/vlt_x/credentials', managed, { auth: { type: 'bearer', token: 't' } }, 400, /auth\.type/],
    ['B a vault archive with a body field', 'api.anthropic.com', '/v1/vaults/vlt_x/archive', managed, { reason: 'done' }, 400, /reason: Extra inputs/],
    ['B an interrupt with a field the event lacks', 'api.anthropic.com', '/v1/sessions/sesn_x/events', managed, { events: [{ type: 'user.interrupt', why: 'x' }] }, 400, /events\.0\.why: Extra inputs/],
    ['A a cancel with a body field', 'api.openai.com', '/v1/responses/resp_x/cancel', bearer, { reason: 'x' }, 400, /reason: Extra inputs/],
    ['A a background response with an mcp tool over plain http', 'api.openai.com', '/v1/responses', bearer, { model: 'gpt-5-mini', input: 'x', background: true, store: true, tools: [{ type: 'mcp', server_label: 's', server_url: 'http://mcp.x.test/' }] }, 400, /https/],
    ['A a moderation without input', 'api.openai.com', '/v1/moderations', bearer, { model: 'omni-moderation-latest', text: 'x' }, 400, /'input'/],
    ['C a moderation without its model', 'api.mistral.ai', '/v1/moderations', bearer, { input: ['x'] }, 422, /model: Field required/],
    ['A speech without a voice', 'api.openai.com', '/v1/audio/speech', bearer, { model: 'gpt-4o-mini-tts', input: 'hi' }, 400, /'voice'/],
    ['A speech in a format the API lacks', 'api.openai.com', '/v1/audio/speech', bearer, { model: 'gpt-4o-mini-tts', input: 'hi', voice: 'alloy', response_format: 'ogg' }, 400, /Supported values/],
    ['a Mistral conversation ending with the assistant', 'api.mistral.ai', '/v1/chat/completions', bearer, { model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }, 400, /Expected last role/],
  ] as const)('%s', async (_what, host, path, headers, body, status, words) => {
    plain.reset();
    const r = await raw(host, path, headers, body);
    expect(r.status).toBe(status);
    expect(r.text).toMatch(words);
    expect(plain.requests.at(-1)?.refused?.status).toBe(status);
  });

  // The service's own body, as client projects' trackers quote it (tools/provider-rules.mjs, mistralToolIdRefusal):
  // 400, type invalid_function_call, code "3280" as a string; not pydantic's 422.
  it.each([
    ['an assistant tool call', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: '2968-LWy3uasib', type: 'function', function: { name: 'n', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'abcDEF123', content: 'x' }]],
    ['a tool result', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [{ id: 'abcDEF123', type: 'function', function: { name: 'n', arguments: '{}' } }] }, { role: 'tool', tool_call_id: '2968-LWy3uasib', content: 'x' }]],
  ])('a Mistral chat request whose tool-call id is not nine letters and digits (%s) gets the service\'s 400 invalid_function_call 3280', async (_where, messages) => {
    plain.reset();
    const r = await raw('api.mistral.ai', '/v1/chat/completions', bearer, { model: 'mistral-small-latest', messages });
    expect(r.status, 'HTTP status').toBe(400);
    expect(JSON.parse(r.text), 'the error body').toStrictEqual({
      object: 'error',
      message: 'Tool call id was 2968-LWy3uasib but must be a-z, A-Z, 0-9, with a length of 9.',
      type: 'invalid_function_call',
      param: null,
      code: '3280',
    });
    // Negative control: the same round with nine letters and digits is served.
    plain.reset();
    const fixed = JSON.parse(JSON.stringify(messages).replaceAll('2968-LWy3uasib', 'abcDEF123'));
    expect((await raw('api.mistral.ai', '/v1/chat/completions', bearer, { model: 'mistral-small-latest', messages: fixed })).status, 'HTTP status with a valid id').toBe(200);
  });

  it("B's model list takes a limit from 1 to 1000", async () => {
    plain.reset();
    expect((await raw('api.anthropic.com', '/v1/models?limit=1000', anthropic, null, 'GET')).status).toBe(200);
    const r = await raw('api.anthropic.com', '/v1/models?limit=1001', anthropic, null, 'GET');
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/limit/);
  });

  it('answers every kind the SDKs define on request: pause_turn, refusal, a stop reason, Mistral chunks', async () => {
    plain.reset();
    plain.script([{ pause: true }, { refusal: true }, { stop: 'max_tokens', text: 'cut' }, { text: 'chunked', chunks: true }]);
    const msg = { model: 'claude-sonnet-4-5', max_tokens: 10, system: 'You are a test.', messages: [{ role: 'user', content: 'hi' }] };
    expect(JSON.parse((await raw('api.anthropic.com', '/v1/messages', anthropic, msg)).text)).toMatchObject({ stop_reason: 'pause_turn', content: [{ type: 'server_tool_use' }, { type: 'web_search_tool_result' }] });
    expect(JSON.parse((await raw('api.anthropic.com', '/v1/messages', anthropic, msg)).text)).toMatchObject({ stop_reason: 'refusal', content: [] });
    expect(JSON.parse((await raw('api.anthropic.com', '/v1/messages', anthropic, msg)).text)).toMatchObject({ stop_reason: 'max_tokens' });
    const chunked = JSON.parse((await raw('api.mistral.ai', '/v1/chat/completions', bearer, { model: 'm', messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'hi' }] })).text);
    expect(chunked.choices[0].message.content).toEqual([{ type: 'thinking', thinking: [{ type: 'text', text: 'Let me see.' }] }, { type: 'text', text: 'chunked' }]);
  });
});
