// Boots the whole device: /mcp offers and calls every subsystem's tools through the HTTP server.
// POST /mcp over the firmware's HTTP server: the token gate, the legacy
// handshake with version negotiation, tools/list and tools/call, every
// JSON-RPC error code, notifications and batches, the 2026-07-28 per-request
// era (server/discover, header checks), the transport's refusals, and
// GET /api/tools.
import { describe, expect, it } from 'vitest';
import { boot, HTTP_PORT } from '../../../src/main.ts';
import type { ToolRegistry } from '../../../src/core/tools/registry.ts';
import { McpServer, SUPPORTED_VERSIONS } from '../../../src/mcp/server.ts';
import { MCP_CALLER } from '../../../src/mcp/server.ts';
import { ok } from '../../../src/core/tools/types.ts';
import { encode } from '../../../src/util/utf8.ts';
import { request } from '../../support/http.ts';
import { createMemHal } from '../../support/memhal.ts';

type Json = Record<string, unknown>;

function start() {
  const mem = createMemHal();
  const device = boot(mem.hal);
  const token = device.ctx.token.reveal();
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await request(mem.net, HTTP_PORT, 'POST', '/mcp', {
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-Device-Token': token, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: res.body, json: res.body ? (JSON.parse(res.body) as Json & Json[]) : null };
  };
  return { mem, device, token, post };
}

const req = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const modernHeaders = (method: string, extra: Record<string, string> = {}) => ({ 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...extra });

describe('POST /mcp: the gate and the transport', () => {
  it('answers 401 without the token, with the house error body', async () => {
    const { mem } = start();
    const res = await request(mem.net, HTTP_PORT, 'POST', '/mcp', { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(req(1, 'ping')) });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({ error: 'unauthorized', message: 'A valid device access token is required.' });
    expect((await request(mem.net, HTTP_PORT, 'GET', '/mcp')).status).toBe(401);
  });

  it('answers GET and DELETE with 405 and Allow: POST', async () => {
    const { mem, token } = start();
    for (const method of ['GET', 'DELETE']) {
      const res = await request(mem.net, HTTP_PORT, method, '/mcp', { headers: { 'X-Device-Token': token, Accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(JSON.parse(res.body).error).toBe('method-not-allowed');
    }
  });

  it('answers JSON: 415 for another Content-Type, 406 when Accept excludes JSON; a session id only from initialize', async () => {
    const { post } = start();
    const wrongType = await post(req(1, 'ping'), { 'Content-Type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    const wrongAccept = await post(req(1, 'ping'), { Accept: 'text/event-stream' });
    expect(wrongAccept.status).toBe(406);
    const fine = await post(req(1, 'ping'));
    expect(fine.status).toBe(200);
    expect(fine.headers.get('content-type')).toBe('application/json');
    expect(fine.headers.has('mcp-session-id')).toBe(false);
    expect(fine.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect((await post(req(2, 'ping'), { Accept: '*/*' })).status).toBe(200);
    // A session id this device never gave out (or forgot at a restart) is 404: the client initializes again.
    const unknown = await post(req(3, 'ping'), { 'Mcp-Session-Id': 'whatever' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
  });
});

describe('the legacy handshake', () => {
  it('answers initialize with the client version when supported, else 2025-11-25', async () => {
    const { post } = start();
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      const res = await post(req(1, 'initialize', { protocolVersion: v, capabilities: {}, clientInfo: { name: 't', version: '1' } }));
      expect(res.status).toBe(200);
      expect(res.json!.result).toMatchObject({
        protocolVersion: v,
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
        serverInfo: { name: 'desk-assistant', title: 'Desk assistant', version: 'v0.1.0' },
        instructions: expect.stringContaining('isError'),
      });
    }
    for (const v of ['2024-10-07', '2026-07-28', 'next']) {
      const res = await post(req(1, 'initialize', { protocolVersion: v, capabilities: {} }));
      expect((res.json!.result as Json).protocolVersion).toBe('2025-11-25');
    }
    const bad = await post(req(7, 'initialize', { capabilities: {} }));
    expect(bad.json).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'initialize needs params.protocolVersion.' } });
  });

  it('accepts notifications/initialized (and any notification) with 202 and no body', async () => {
    const { post } = start();
    for (const method of ['notifications/initialized', 'notifications/cancelled', 'notifications/whatever']) {
      const res = await post({ jsonrpc: '2.0', method }, { 'MCP-Protocol-Version': '2025-06-18' });
      expect(res.status).toBe(202);
      expect(res.body).toBe('');
    }
    // A response from the client (to a request this server never sends) is accepted and ignored.
    expect((await post({ jsonrpc: '2.0', id: 5, result: {} })).status).toBe(202);
  });

  it('refuses an unsupported MCP-Protocol-Version header with 400 and the supported list', async () => {
    const { post } = start();
    const res = await post(req(1, 'tools/list'), { 'MCP-Protocol-Version': '1999-01-01' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32022, message: 'Unsupported protocol version 1999-01-01.', data: { supported: [...SUPPORTED_VERSIONS], requested: '1999-01-01' } },
    });
    // Without a readable id, JSON-RPC's null.
    expect((await post('{not json', { 'MCP-Protocol-Version': '1999-01-01' })).json).toMatchObject({ id: null, error: { code: -32022 } });
  });
});

describe('tools/list and tools/call', () => {
  it('lists the registry tools for the owner, sorted, with their schemas', async () => {
    const { post, device } = start();
    const res = await post(req(1, 'tools/list'), { 'MCP-Protocol-Version': '2025-11-25' });
    const tools = (res.json!.result as { tools: Array<{ name: string; description: string; inputSchema: Json }> }).tools;
    const names = tools.map((t) => t.name);
    expect(names).toEqual(device.ctx.tools.list(MCP_CALLER).map((t) => t.name));
    expect(names).toEqual([...names].sort());
    for (const n of ['system.health', 'device.status', 'device.selftest', 'device.control', 'ota.status', 'docs.list', 'docs.search', 'docs.read', 'session.tell', 'session.poll']) expect(names).toContain(n);
    expect(tools.find((t) => t.name === 'docs.read')!.inputSchema).toMatchObject({ type: 'object', required: ['id'] });
    expect(res.json!.result).not.toHaveProperty('nextCursor');
    const cursor = await post(req(2, 'tools/list', { cursor: 'abc' }));
    expect(cursor.json!.error).toMatchObject({ code: -32602 });
  });

  it('calls a tool, and answers a failing one with isError and the uniform result', async () => {
    const { post } = start();
    const okRes = await post(req(1, 'tools/call', { name: 'device.status', arguments: {} }));
    const result = okRes.json!.result as { content: Array<{ type: string; text: string }>; isError: boolean; structuredContent: Json };
    expect(result.isError).toBe(false);
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ board: 'panel-35', usage: { budget: {} } });
    expect(result.structuredContent).toMatchObject({ success: true, error: null, error_type: null });

    const bad = await post(req(2, 'tools/call', { name: 'device.selftest', arguments: { audible: 'yes' } }));
    expect(bad.status).toBe(200);
    expect(bad.json!.result).toEqual({
      content: [{ type: 'text', text: 'bad-arguments: device.selftest: audible: expected boolean, got string.' }],
      isError: true,
      structuredContent: { success: false, output: '', error: 'device.selftest: audible: expected boolean, got string.', error_type: 'bad-arguments' },
    });

    const unsupported = await post(req(3, 'tools/call', { name: 'session.tell', arguments: { id: 'ab12', message: 'hi' } }));
    expect((unsupported.json!.result as Json).isError).toBe(true);
    expect(((unsupported.json!.result as Json).structuredContent as Json).error_type).toBe('unsupported');

    const byProviderName = await post(req(4, 'tools/call', { name: 'device_status' }));
    expect((byProviderName.json!.result as Json).isError).toBe(false);
  });

  it('answers an unknown tool and a missing name with -32602', async () => {
    const { post } = start();
    expect((await post(req(1, 'tools/call', { name: 'no.such', arguments: {} }))).json).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool: no.such' } });
    expect((await post(req(2, 'tools/call', { arguments: {} }))).json!.error).toMatchObject({ code: -32602 });
    expect((await post(req(3, 'tools/call', [1, 2]))).json!.error).toMatchObject({ code: -32602 });
  });
});

describe('JSON-RPC errors', () => {
  it('-32700 for a body that is not JSON', async () => {
    const { post } = start();
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('-32600 for messages that are not valid requests, with the id when it can be read', async () => {
    const { post } = start();
    const cases: Array<[unknown, string | number | null]> = [
      [{ id: 1, method: 'ping' }, 1],
      [{ jsonrpc: '1.0', id: 'a', method: 'ping' }, 'a'],
      [{ jsonrpc: '2.0', id: 2, method: 7 }, 2],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: 3, method: 'ping', params: 'x' }, 3],
      [{ jsonrpc: '2.0', id: 4 }, 4],
      ['"ping"', null],
      [42, null],
    ];
    for (const [body, id] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json, JSON.stringify(body)).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
    }
  });

  it('-32601 for an unknown method (legacy: HTTP 200)', async () => {
    const { post } = start();
    for (const method of ['completion/complete', 'logging/setLevel', 'resources/subscribe']) {
      const res = await post(req(9, method));
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32601, message: `Method not found: ${method}` } });
    }
  });

  it('-32603 when the server itself fails, without taking the device down', async () => {
    const broken = { list: () => { throw new Error('registry broke'); }, call: async () => ok('') } as unknown as ToolRegistry;
    const server = new McpServer(broken, { name: 'x', title: 'X', version: 'v1' }, () => MCP_CALLER, '');
    const res = await server.handle({
      method: 'POST', path: '/mcp', query: '', remote: '',
      headers: new Map([['content-type', 'application/json']]),
      body: encode(JSON.stringify(req(1, 'tools/list'))),
    });
    expect(JSON.parse(res.body as string)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error: registry broke' } });
  });
});

describe('batches', () => {
  it('answers a 2025-03-26 batch in order, without entries for notifications', async () => {
    const { post } = start();
    const res = await post([req(1, 'ping'), { jsonrpc: '2.0', method: 'notifications/initialized' }, req(2, 'tools/call', { name: 'no.such' }), { bad: true }]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Unknown tool: no.such' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: jsonrpc must be "2.0".' } },
    ]);
    const header = await post([req(1, 'ping')], { 'MCP-Protocol-Version': '2024-11-05' });
    expect(header.json).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('answers an all-notification batch with 202 and no body', async () => {
    const { post } = start();
    const res = await post([{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }]);
    expect(res.status).toBe(202);
    expect(res.body).toBe('');
  });

  it('refuses batches for 2025-06-18 and later, empty and oversized batches, and a batched initialize', async () => {
    const { post } = start();
    for (const v of ['2025-06-18', '2025-11-25', '2026-07-28']) {
      const res = await post([req(1, 'ping')], { 'MCP-Protocol-Version': v });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ id: null, error: { code: -32600, message: `Protocol version ${v} does not allow batches: send one message per request.` } });
    }
    expect((await post([])).json).toMatchObject({ error: { code: -32600, message: 'An empty batch is not a request.' } });
    expect((await post(Array.from({ length: 33 }, (_, i) => req(i, 'ping')))).status).toBe(400);
    const init = await post([req(1, 'initialize', { protocolVersion: '2025-03-26', capabilities: {} })]);
    expect(init.json).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'initialize may not be part of a batch.' } }]);
  });
});

describe('2026-07-28: per-request metadata, server/discover', () => {
  it('answers server/discover with the versions, capabilities and result fields', async () => {
    const { post } = start();
    const res = await post(req(1, 'server/discover', { _meta: modernMeta }), modernHeaders('server/discover'));
    expect(res.status).toBe(200);
    expect(res.json!.result).toEqual({
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
      instructions: expect.any(String),
      resultType: 'complete',
      ttlMs: 300000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'desk-assistant', title: 'Desk assistant', version: 'v0.1.0' } },
    });
  });

  it('lists and calls tools statelessly, with resultType and cache hints', async () => {
    const { post } = start();
    const list = await post(req(1, 'tools/list', { _meta: modernMeta }), modernHeaders('tools/list'));
    expect(list.json!.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: expect.any(Array) });
    const call = await post(req(2, 'tools/call', { name: 'docs.list', arguments: {}, _meta: modernMeta }), modernHeaders('tools/call', { 'Mcp-Name': 'docs.list' }));
    expect(call.json!.result).toMatchObject({ resultType: 'complete', isError: false });
    // Mcp-Name may arrive base64-encoded.
    const encoded = `=?base64?${Buffer.from('docs.list').toString('base64')}?=`;
    const call2 = await post(req(3, 'tools/call', { name: 'docs.list', _meta: modernMeta }), modernHeaders('tools/call', { 'Mcp-Name': encoded }));
    expect(call2.json!.result).toMatchObject({ isError: false });
  });

  it('answers header mismatches with 400 and -32020', async () => {
    const { post } = start();
    const cases: Array<[unknown, Record<string, string>, string]> = [
      [req(1, 'tools/list', { _meta: modernMeta }), { 'Mcp-Method': 'tools/list' }, 'the MCP-Protocol-Version header is required'],
      [req(1, 'tools/list', {}), modernHeaders('tools/list'), 'params._meta carries no'],
      [req(1, 'tools/list', { _meta: modernMeta }), { 'MCP-Protocol-Version': '2026-07-28' }, 'the Mcp-Method header is required'],
      [req(1, 'tools/list', { _meta: modernMeta }), modernHeaders('tools/call'), 'Mcp-Method tools/call does not match'],
      [req(1, 'tools/list', { _meta: modernMeta }), { 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Method': 'tools/list' }, 'does not match _meta 2026-07-28'],
      [req(1, 'tools/call', { name: 'docs.list', _meta: modernMeta }), modernHeaders('tools/call'), 'the Mcp-Name header is required'],
      [req(1, 'tools/call', { name: 'docs.list', _meta: modernMeta }), modernHeaders('tools/call', { 'Mcp-Name': 'docs.read' }), 'Mcp-Name does not match'],
    ];
    for (const [body, headers, message] of cases) {
      const res = await post(body, headers);
      expect(res.status, message).toBe(400);
      expect(res.json!.error, message).toMatchObject({ code: -32020, message: expect.stringContaining(message) });
    }
  });

  it('answers an unknown or removed method with 404 and -32601, and an unsupported _meta version with -32022', async () => {
    const { post } = start();
    for (const method of ['ping', 'initialize', 'completion/complete']) {
      const res = await post(req(1, method, { _meta: modernMeta }), modernHeaders(method));
      expect(res.status).toBe(404);
      expect(res.json!.error).toMatchObject({ code: -32601 });
    }
    const res = await post(req(1, 'tools/list', { _meta: { ...modernMeta, 'io.modelcontextprotocol/protocolVersion': '2030-01-01' } }), { 'Mcp-Method': 'tools/list' });
    expect(res.status).toBe(400);
    expect(res.json!.error).toMatchObject({ code: -32022, data: { requested: '2030-01-01' } });
  });
});

describe('GET /api/tools', () => {
  it('lists every tool with where it runs', async () => {
    const { mem, device, token } = start();
    device.ctx.tools.register({ name: 'test.later', description: 'needs a key', schema: { type: 'object' }, access: 'open', where: 'both', available: () => false, handler: () => ok('') });
    device.ctx.tools.register({ name: 'test.remote', description: 'runs remotely', schema: { type: 'object' }, access: 'admin', where: 'turn', runsOn: 'Sub-agents', handler: () => ok('') });
    const res = await request(mem.net, HTTP_PORT, 'GET', '/api/tools', { headers: { 'X-Device-Token': token } });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as { tools: Json[]; counts: Record<string, number> };
    expect(body.tools.find((t) => t.name === 'device.control')).toEqual({
      name: 'device.control', providerName: 'device_control', description: expect.any(String), access: 'open', where: 'both', unattended: true, scheduled: true, runsOn: 'Orchestrator',
    });
    expect(body.tools.find((t) => t.name === 'test.later')!.runsOn).toBe('Unavailable');
    expect(body.tools.find((t) => t.name === 'test.remote')!.runsOn).toBe('Sub-agents');
    // Counted from the rows: real tools may be unavailable too (reply.telegram without a bot token).
    const unavailable = body.tools.filter((t) => t.runsOn === 'Unavailable').length;
    expect(unavailable).toBeGreaterThanOrEqual(1);
    expect(body.counts).toEqual({ Orchestrator: body.tools.length - 1 - unavailable, 'Sub-agents': 1, Unavailable: unavailable });
    expect((await request(mem.net, HTTP_PORT, 'GET', '/api/tools')).status).toBe(401);
  });
});
