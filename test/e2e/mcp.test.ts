// The tool server of the real firmware on the simulator, driven by the
// official MCP TypeScript SDK client over Streamable HTTP: it connects with
// the device token, lists the tools, calls several, sees isError for bad
// arguments and a JSON-RPC error for an unknown tool; without the token it
// gets 401.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, startDevice, type Device } from './harness.ts';

afterAll(cleanup);

type TextResult = { content: Array<{ type: string; text: string }>; isError?: boolean; structuredContent?: Record<string, unknown> };

describe('an MCP client against /mcp on the simulator', () => {
  let device: Device;
  let token: string;
  let client: Client;

  beforeAll(async () => {
    device = await startDevice({ board: 'ring-tft' });
    token = (await device.command('WEBTOK?')).split('\n')[0]!;
    client = new Client({ name: 'e2e-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', device.url!), { requestInit: { headers: { 'X-Device-Token': token } } }));
  });

  afterAll(async () => {
    await client?.close();
  });

  it('negotiates the latest legacy protocol and names the device', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'desk-assistant', version: expect.stringMatching(/^v\d+\.\d+\.\d+$/) });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: false } });
    expect(client.getInstructions()).toContain('isError');
  });

  it('lists the tools', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['system.health', 'device.status', 'device.selftest', 'device.control', 'ota.status', 'docs.list', 'docs.search', 'docs.read', 'session.tell', 'session.poll']) {
      expect(names).toContain(n);
    }
    expect(tools.find((t) => t.name === 'docs.search')!.inputSchema).toMatchObject({ type: 'object', required: ['query'] });
  });

  it('calls several tools', async () => {
    const status = (await client.callTool({ name: 'device.status', arguments: {} })) as TextResult;
    expect(status.isError).toBe(false);
    expect(JSON.parse(status.content[0]!.text)).toMatchObject({ board: 'ring-tft', mode: 1, usage: { budget: {} } });

    const selftest = (await client.callTool({ name: 'device.selftest', arguments: { audible: false } })) as TextResult;
    expect(selftest.content[0]!.text).toMatch(/^selftest: \d+ PASS, \d+ FAIL, \d+ SKIP\nPASS nvs: /);
    expect(selftest.content[0]!.text).toContain('PASS ring:');

    const led = (await client.callTool({ name: 'device.control', arguments: { action: { led: { mode: 'solid', color: { r: 0, g: 0, b: 255 }, brightness: 64 } } } })) as TextResult;
    expect(led).toMatchObject({ isError: false, content: [{ type: 'text', text: 'led solid: shown on the ring' }] });

    const search = (await client.callTool({ name: 'docs.search', arguments: { query: 'simulator' } })) as TextResult;
    expect(search.content[0]!.text).toMatch(/^\d+ sections? match:/);
    const id = /- (\S+#\S+):/.exec(search.content[0]!.text)![1]!;
    const read = (await client.callTool({ name: 'docs.read', arguments: { id } })) as TextResult;
    expect(read.isError).toBe(false);
    expect(read.content[0]!.text.toLowerCase()).toContain('simulator');

    const ota = (await client.callTool({ name: 'ota.status', arguments: {} })) as TextResult;
    expect(JSON.parse(ota.content[0]!.text)).toHaveProperty('otaResult');
    await client.ping();
  });

  it('sees isError for bad arguments and refusals, and a protocol error for an unknown tool', async () => {
    const bad = (await client.callTool({ name: 'docs.read', arguments: { id: 7 } })) as TextResult;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ success: false, error_type: 'bad-arguments' });
    expect(bad.content[0]!.text).toBe('bad-arguments: docs.read: id: expected string, got integer.');

    const missing = (await client.callTool({ name: 'docs.search', arguments: {} })) as TextResult;
    expect(missing.isError).toBe(true);

    const protectedKey = (await client.callTool({ name: 'device.control', arguments: { action: { config: { tgToken: '123:abc' } } } })) as TextResult;
    expect(protectedKey).toMatchObject({ isError: true, content: [{ type: 'text', text: 'refused: refused: protected-BLOCKED; nothing was changed.' }] });

    const tell = (await client.callTool({ name: 'session.tell', arguments: { id: 'j1', message: 'hi' } })) as TextResult;
    expect(tell.isError).toBe(true);

    await expect(client.callTool({ name: 'no.such.tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('answers 401 to a client without the token', async () => {
    const anonymous = new Client({ name: 'no-token', version: '1.0.0' });
    const error = await anonymous.connect(new StreamableHTTPClientTransport(new URL('/mcp', device.url!))).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(401);
    const raw = await device.fetch('/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(raw.status).toBe(401);
  });
});
