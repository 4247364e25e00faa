// Boots the whole device: progress and questions come from tools of several subsystems while /mcp streams.
// What /mcp says to a client while a tool runs, and who the client is:
// sessions from initialize (known ids carry the client's capabilities,
// unknown or forgotten ones are 404, the least recently used goes first),
// an answer that becomes an event stream once a tool reports progress,
// questions to the client (sampling, elicitation) on that stream answered
// by a POSTed response, refused without the capability, the stream, or an
// answer in time; 2026-07-28's InputRequiredResult and its retry; the
// Origin rule (403 for a foreign origin on every /mcp method, nothing
// changed for other routes, through the cloud relay too); and which builds
// carry the conformance fixtures.
import { describe, expect, it } from 'vitest';
import { TunnelDispatcher } from '../../../src/cloud/dispatch.ts';
import { boot, HTTP_PORT } from '../../../src/main.ts';
import { ANSWER_MS } from '../../../src/mcp/exchange.ts';
import { originRefusal } from '../../../src/mcp/origin.ts';
import { IDLE_MS, MAX_SESSIONS } from '../../../src/mcp/sessions.ts';
import { flushJobs } from '../../support/clock.ts';
import { parseResponses, request } from '../../support/http.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import type { MemSocket } from '../../support/memnet.ts';

type Json = Record<string, unknown>;

const req = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const SSE_ACCEPT = 'application/json, text/event-stream';

function start(options: Parameters<typeof createMemHal>[0] = {}) {
  const mem = createMemHal(options);
  const device = boot(mem.hal);
  const token = device.ctx.token.reveal();
  const headersOf = (extra: Record<string, string>) => ({ 'Content-Type': 'application/json', Accept: SSE_ACCEPT, 'X-Device-Token': token, ...extra });
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await request(mem.net, HTTP_PORT, 'POST', '/mcp', { headers: headersOf(headers), body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: res.body, json: res.body ? (JSON.parse(res.body) as Json & { result: Json; error: Json }) : null };
  };
  /** A request whose answer is read as it arrives (an event stream stays open while a question waits). */
  const open = (body: unknown, headers: Record<string, string> = {}): MemSocket => {
    const text = JSON.stringify(body);
    const all = { Host: 'device', Connection: 'close', ...headersOf(headers), 'Content-Length': String(new TextEncoder().encode(text).length) };
    const socket = mem.net.client(HTTP_PORT);
    socket.send(`POST /mcp HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${text}`);
    return socket;
  };
  const initialize = async (capabilities: Json = {}) => {
    const res = await post(req(0, 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 't', version: '1' } }));
    return res.headers.get('mcp-session-id')!;
  };
  return { mem, device, token, post, open, initialize };
}

/** The JSON-RPC messages of an event stream so far (data lines of `event: message` events). */
function events(raw: string): Json[] {
  const out: Json[] = [];
  for (const block of raw.split('\n\n')) {
    const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    if (data) out.push(JSON.parse(data) as Json);
  }
  return out;
}

/** Waits (promise-job rounds, no wall-clock time) until the stream shows a message matching. */
async function until(socket: MemSocket, what: (m: Json) => boolean): Promise<Json> {
  for (let i = 0; i < 200; i++) {
    const found = events(bodyOf(socket)).find(what);
    if (found) return found;
    await flushJobs();
  }
  throw new Error(`never seen on the stream: ${bodyOf(socket)}`);
}

/** The chunked body received so far (the head stripped). */
function bodyOf(socket: MemSocket): string {
  const text = socket.text();
  const start = text.indexOf('\r\n\r\n');
  if (start < 0) return '';
  let body = '';
  let at = start + 4;
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0) || lineEnd + 2 + size > text.length) break;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
  return body;
}

async function settle(mem: MemHal, ms: number): Promise<void> {
  await mem.clock.advance(ms);
  await flushJobs();
}

describe('sessions (2025 transports)', () => {
  it('mints a session at initialize, knows it later, and answers 404 for an id it does not know', async () => {
    const { post, initialize } = start();
    const id = await initialize({ sampling: {} });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(await initialize()).not.toBe(id);
    expect((await post(req(1, 'ping'), { 'Mcp-Session-Id': id })).json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const unknown = await post(req(2, 'ping'), { 'Mcp-Session-Id': 'f'.repeat(32) });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found: it ended (the device may have restarted); initialize again.' } });
    // A notification on an unknown session too; and no session at all is served, statelessly.
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': 'nope' })).status).toBe(404);
    expect((await post(req(3, 'ping'))).status).toBe(200);
    // 2026-07-28 has no sessions: the header is ignored, and no id is minted.
    const modern = await post(req(4, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }), { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list', 'Mcp-Session-Id': 'nope' });
    expect(modern.status).toBe(200);
    expect(modern.headers.has('mcp-session-id')).toBe(false);
  });

  it(`keeps ${MAX_SESSIONS} sessions, drops the least recently used, and forgets one idle for an hour`, async () => {
    const { mem, post, initialize } = start();
    const ids: string[] = [];
    for (let i = 0; i < MAX_SESSIONS; i++) {
      ids.push(await initialize());
      await settle(mem, 10);
    }
    // The first is used again, so the second is the least recently used when a ninth comes.
    expect((await post(req(1, 'ping'), { 'Mcp-Session-Id': ids[0]! })).status).toBe(200);
    const ninth = await initialize();
    expect((await post(req(2, 'ping'), { 'Mcp-Session-Id': ids[1]! })).status).toBe(404);
    expect((await post(req(3, 'ping'), { 'Mcp-Session-Id': ids[0]! })).status).toBe(200);
    await settle(mem, IDLE_MS + 1);
    expect((await post(req(4, 'ping'), { 'Mcp-Session-Id': ninth })).status).toBe(404);
  });
});

describe('an answer that becomes an event stream', () => {
  it('streams progress notifications before the result when the client asked for progress', async () => {
    const { mem, open, post } = start();
    const socket = open(req(7, 'tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p1' } }));
    await until(socket, (m) => m.method === 'notifications/progress');
    expect(socket.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(socket.text()).toMatch(/\r\nContent-Type: text\/event-stream\r\n/i);
    expect(socket.text()).toMatch(/\r\nTransfer-Encoding: chunked\r\n/i);
    await settle(mem, 50);
    await settle(mem, 50);
    await until(socket, (m) => m.id === 7);
    expect(events(bodyOf(socket))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 0, total: 100 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 50, total: 100 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 100, total: 100 } },
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'Progress test completed.' }], isError: false, structuredContent: { success: true, output: 'Progress test completed.', error: null, error_type: null } } },
    ]);
    // No event id: the device cannot resume a stream, so it does not invite a reconnection.
    expect(bodyOf(socket)).not.toMatch(/^id:/m);
    await flushJobs();
    expect(socket.closed).toBe(true);

    // Without a progress token, or to a client that takes JSON only, the same tool answers JSON.
    const quiet = open(req(8, 'tools/call', { name: 'test_tool_with_progress', arguments: {} }));
    await settle(mem, 100);
    await flushJobs();
    expect(parseResponses(quiet.text())[0]!.headers.get('content-type')).toBe('application/json');
    const jsonOnly = post(req(9, 'tools/call', { name: 'test_tool_with_progress', _meta: { progressToken: 'p2' } }), { Accept: 'application/json' });
    await settle(mem, 100);
    expect((await jsonOnly).json).toMatchObject({ id: 9, result: { isError: false } });
  });

  it('asks a client with the sampling capability on the stream, and finishes with its answer POSTed back', async () => {
    const { open, post, initialize } = start();
    const session = await initialize({ sampling: {}, elicitation: {} });
    const socket = open(req(11, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'Say hi' } }), { 'Mcp-Session-Id': session });
    const question = await until(socket, (m) => m.method === 'sampling/createMessage');
    expect(question).toEqual({ jsonrpc: '2.0', id: expect.stringMatching(/^dev-[0-9a-f]{16}$/), method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 100 } });
    // An answer from another session is not taken.
    const other = await initialize({ sampling: {} });
    expect((await post({ jsonrpc: '2.0', id: question.id, result: { role: 'assistant', content: { type: 'text', text: 'wrong' }, model: 'm' } }, { 'Mcp-Session-Id': other })).status).toBe(202);
    const answered = await post({ jsonrpc: '2.0', id: question.id, result: { role: 'assistant', content: { type: 'text', text: 'Hi there' }, model: 'm', stopReason: 'endTurn' } }, { 'Mcp-Session-Id': session });
    expect(answered.status).toBe(202);
    const done = await until(socket, (m) => m.id === 11);
    expect(done).toMatchObject({ result: { isError: false, content: [{ type: 'text', text: 'LLM response: Hi there' }] } });

    // elicitation alike; the client declines.
    const e = open(req(12, 'tools/call', { name: 'test_elicitation', arguments: { message: 'Who are you?' } }), { 'Mcp-Session-Id': session });
    const form = await until(e, (m) => m.method === 'elicitation/create');
    expect(form.params).toMatchObject({ message: 'Who are you?', requestedSchema: { type: 'object', required: ['username', 'email'] } });
    await post({ jsonrpc: '2.0', id: form.id, result: { action: 'decline' } }, { 'Mcp-Session-Id': session });
    expect(await until(e, (m) => m.id === 12)).toMatchObject({ result: { content: [{ text: 'User response: action=decline, content={}' }] } });
  });

  it('refuses to ask without the capability, without a session, without a stream, and gives up after no answer', async () => {
    const { mem, open, post, initialize } = start();
    const plain = await initialize({});
    const noCap = await post(req(1, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'x' } }), { 'Mcp-Session-Id': plain });
    expect(noCap.json!.result).toMatchObject({ isError: true, content: [{ text: 'unsupported: The client did not declare the sampling capability.' }] });
    expect((await post(req(2, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'x' } }))).json!.result).toMatchObject({ isError: true, structuredContent: { error_type: 'unsupported' } });
    const sampling = await initialize({ sampling: {} });
    const jsonOnly = await post(req(3, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'x' } }), { 'Mcp-Session-Id': sampling, Accept: 'application/json' });
    expect(jsonOnly.json!.result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('must accept text/event-stream') }] });

    const socket = open(req(4, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'x' } }), { 'Mcp-Session-Id': sampling });
    const q = await until(socket, (m) => m.method === 'sampling/createMessage');
    await settle(mem, ANSWER_MS);
    expect(await until(socket, (m) => m.id === 4)).toMatchObject({ result: { isError: true, content: [{ text: `client-error: the client did not answer within ${ANSWER_MS / 1000} s` }] } });
    // A late answer finds nothing waiting, and is still accepted (202).
    expect((await post({ jsonrpc: '2.0', id: q.id, result: {} }, { 'Mcp-Session-Id': sampling })).status).toBe(202);

    // An error answer is the tool's error.
    const s2 = open(req(5, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'x' } }), { 'Mcp-Session-Id': sampling });
    const q2 = await until(s2, (m) => m.method === 'sampling/createMessage');
    await post({ jsonrpc: '2.0', id: q2.id, error: { code: -1, message: 'User rejected sampling request' } }, { 'Mcp-Session-Id': sampling });
    expect(await until(s2, (m) => m.id === 5)).toMatchObject({ result: { isError: true, content: [{ text: 'client-error: User rejected sampling request' }] } });
  });
});

describe('2026-07-28: questions ride in an InputRequiredResult', () => {
  const meta = (caps: Json) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps });
  const headers = (name: string) => ({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name });

  it('answers input_required with the question, and the retry with the answer completes', async () => {
    const { post } = start();
    const first = await post(req(1, 'tools/call', { name: 'test_elicitation', arguments: { message: 'Name?' }, _meta: meta({ elicitation: {} }) }), headers('test_elicitation'));
    expect(first.status).toBe(200);
    expect(first.json!.result).toEqual({
      resultType: 'input_required',
      inputRequests: { r1: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: expect.objectContaining({ type: 'object' }) } } },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'desk-assistant', title: 'Desk assistant', version: 'v0.1.0' } },
    });
    const retry = await post(
      req(2, 'tools/call', { name: 'test_elicitation', arguments: { message: 'Name?' }, inputResponses: { r1: { action: 'accept', content: { username: 'ann', email: 'a@example.org' } } }, _meta: meta({ elicitation: {} }) }),
      headers('test_elicitation'),
    );
    expect(retry.json!.result).toMatchObject({ resultType: 'complete', isError: false, content: [{ type: 'text', text: 'User response: action=accept, content={"username":"ann","email":"a@example.org"}' }] });
  });

  it('answers MissingRequiredClientCapability (-32021, HTTP 400) when _meta did not declare it', async () => {
    const { post } = start();
    const res = await post(req(1, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'x' }, _meta: meta({}) }), headers('test_sampling'));
    expect(res.status).toBe(400);
    expect(res.json!.error).toEqual({ code: -32021, message: expect.stringContaining('sampling'), data: { requiredCapabilities: { sampling: {} } } });
  });
});

describe('the Origin rule of /mcp', () => {
  it('serves no Origin, or one naming the address or .local name the request was sent to; refuses others', () => {
    expect(originRefusal(undefined, 'evil.example.com')).toBeNull();
    for (const [origin, host] of [
      ['http://127.0.0.1:8080', '127.0.0.1:8080'],
      ['http://192.168.1.23', '192.168.1.23'],
      ['http://desk-ab12.local', 'desk-ab12.local'],
      ['http://DESK-AB12.local:80', 'desk-ab12.local:80'],
      ['http://[::1]:3000', '[::1]:3000'],
      ['http://localhost:5173', 'localhost:5173'],
    ]) expect(originRefusal(origin, host), origin).toBeNull();
    expect(originRefusal('http://evil.example.com', 'evil.example.com')).toMatch(/a name this device does not answer to/);
    expect(originRefusal('http://evil.example.com', '192.168.1.23')).toMatch(/another site/);
    expect(originRefusal('http://192.168.1.23', undefined)).toMatch(/another site/);
    expect(originRefusal('null', '192.168.1.23')).toMatch(/is not this device/);
    expect(originRefusal('http://1.2.3.4.nip.io', '1.2.3.4.nip.io')).toMatch(/does not answer to/);
  });

  it('answers 403 with a JSON-RPC error without id on every /mcp method, and leaves the other routes alone', async () => {
    const { mem, token, post } = start();
    const evil = { Host: 'evil.example.com', Origin: 'http://evil.example.com' };
    const res = await post(req(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} }), evil);
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Origin http://evil.example.com is a name this device does not answer to.' } });
    for (const method of ['GET', 'DELETE']) {
      expect((await request(mem.net, HTTP_PORT, method, '/mcp', { headers: { 'X-Device-Token': token, ...evil } })).status).toBe(403);
      expect((await request(mem.net, HTTP_PORT, method, '/mcp', { headers: { 'X-Device-Token': token } })).status).toBe(405);
    }
    // Without the token it is still 401 first: the gate comes before anything /mcp decides.
    expect((await request(mem.net, HTTP_PORT, 'POST', '/mcp', { headers: { 'Content-Type': 'application/json', ...evil }, body: '{}' })).status).toBe(401);
    expect((await post(req(2, 'ping'), { Host: '127.0.0.1:80', Origin: 'http://127.0.0.1:80' })).status).toBe(200);
    // The page's routes keep the interface spec's rule: no decision on Host or Origin (Authentication 3).
    expect((await request(mem.net, HTTP_PORT, 'GET', '/api/state', { headers: { 'X-Device-Token': token, ...evil } })).status).toBe(200);
  });

  it('through the cloud relay: served without Origin, refused with the relay page\'s Origin', async () => {
    const mem = createMemHal();
    const device = boot(mem.hal);
    const body = new TextEncoder().encode(JSON.stringify(req(1, 'ping')));
    const json = ['content-type', 'application/json'] as const;
    // The tunnel path as the relay client uses it: the guard, then the router with the device's token (the relay drops Host).
    const d = new TunnelDispatcher({ router: device.ctx.router, token: () => device.ctx.token.reveal(), secrets: () => device.ctx.secrets.live() });
    expect((await d.dispatch('POST', '/mcp', [json], body)).status).toBe(200);
    expect((await d.dispatch('POST', '/mcp', [json, ['origin', 'https://relay.desk-assistant.invalid']], body)).status).toBe(403);
    device.stop();
  });
});

describe('the conformance fixtures', () => {
  const FIXTURE_TOOLS = [
    'json_schema_2020_12_tool', 'test_audio_content', 'test_elicitation', 'test_elicitation_sep1034_defaults', 'test_elicitation_sep1330_enums', 'test_embedded_resource',
    'test_error_handling', 'test_image_content', 'test_multiple_content_types', 'test_reconnection', 'test_sampling', 'test_simple_text', 'test_tool_with_progress',
  ];

  it('a test build registers them through the normal registries, for /mcp only', async () => {
    const { device, post } = start();
    const names = ((await post(req(1, 'tools/list'))).json!.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    for (const n of FIXTURE_TOOLS) expect(names).toContain(n);
    for (const n of FIXTURE_TOOLS) expect(device.ctx.tools.get(n)).toMatchObject({ where: 'mcp' });
    // Never offered to a model in a turn.
    const turnNames = device.ctx.tools.list({ via: 'turn', admin: true, scheduled: false, unattended: false, person: null }).map((t) => t.name);
    expect(turnNames.filter((n) => FIXTURE_TOOLS.includes(n))).toEqual([]);
    const resources = ((await post(req(2, 'resources/list'))).json!.result as { resources: Array<{ uri: string }> }).resources.map((r) => r.uri);
    expect(resources).toEqual(expect.arrayContaining(['test://static-text', 'test://static-binary', 'test://watched-resource']));
    const prompts = ((await post(req(3, 'prompts/list'))).json!.result as { prompts: Array<{ name: string }> }).prompts.map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image']));
  });

  it('a release build carries none of them: not listed, not callable, not readable', async () => {
    const { device, post } = start({ testBuild: false });
    expect(device.ctx.hal.build.testBuild).toBe(false);
    const names = ((await post(req(1, 'tools/list'))).json!.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((n) => FIXTURE_TOOLS.includes(n) || n.startsWith('test_'))).toEqual([]);
    expect(device.ctx.tools.all().filter((t) => FIXTURE_TOOLS.includes(t.name))).toEqual([]);
    expect((await post(req(2, 'tools/call', { name: 'test_simple_text', arguments: {} }))).json!.error).toEqual({ code: -32602, message: 'Unknown tool: test_simple_text' });
    const resources = ((await post(req(3, 'resources/list'))).json!.result as { resources: Array<{ uri: string }> }).resources;
    expect(resources.filter((r) => r.uri.startsWith('test://'))).toEqual([]);
    const templates = ((await post(req(4, 'resources/templates/list'))).json!.result as { resourceTemplates: Array<{ uriTemplate: string }> }).resourceTemplates;
    expect(templates.map((t) => t.uriTemplate)).toEqual(['artifact://{project}/{name}']);
    expect((await post(req(5, 'resources/read', { uri: 'test://static-text' }))).json!.error).toMatchObject({ code: -32002 });
    const prompts = ((await post(req(6, 'prompts/list'))).json!.result as { prompts: Array<{ name: string }> }).prompts.map((p) => p.name);
    expect(prompts).toEqual(['research', 'summarize', 'compare']);
    expect((await post(req(7, 'prompts/get', { name: 'test_simple_prompt' }))).json!.error).toMatchObject({ code: -32602, message: 'Unknown prompt: test_simple_prompt' });
  });
});
