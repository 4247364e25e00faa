// web.search on the in-memory HAL against the search API fake
// (tools/search-fake.mjs on the in-memory network): offered only with a key,
// max_results default 5, the monthly budget gate and its reset when the
// month changes (virtual wall clock), the key's secrecy, refusals.
import { describe, expect, it } from 'vitest';
import { mount } from '../../../src/core/subsystem.ts';
import { mcp } from '../../../src/mcp/index.ts';
import { search } from '../../../src/search/index.ts';
import { monthKey, nextMonthStart } from '../../../src/search/search.ts';
import { BRAVE_HOST, createSearchApi, type SearchApi } from '../../../tools/search-fake.mjs';
import { request } from '../../support/http.ts';
import { bootParts, deviceKernel, HTTP_PORT, mountFiles, mountSystem, mountWifi } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { serveHttp } from '../../support/telegram-net.ts';

const KEY = 'BSA-test-subscription-key-0123';
const JAN_31_LATE = Date.UTC(2026, 0, 31, 23, 58);

interface Rig {
  mem: MemHal;
  api: SearchApi;
  token: string;
}

function setup(): Rig {
  const mem = createMemHal({ wallMs: JAN_31_LATE });
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  const api = createSearchApi({ key: KEY });
  serveHttp(mem.net, BRAVE_HOST, async (method, path, headers) => api.answer(method, path, headers));
  // Search on a device kernel, as main.ts mounts it: after Wi-Fi (the station), the system (/api/log, device.control)
  // and files (the fetched-content screen); /mcp beside it for tools/list and tools/call.
  const dk = deviceKernel({ mem });
  mountSystem(dk.kernel);
  mountWifi(dk);
  const { files } = mountFiles(dk);
  mount(dk.kernel, search, { client: bootParts(dk.kernel).client, files });
  mount(dk.kernel, mcp, {});
  dk.start();
  return { mem, api, token: dk.token.reveal() };
}

async function post(rig: Rig, path: string, body: string, type = 'application/x-www-form-urlencoded'): Promise<{ status: number; body: string }> {
  return request(rig.mem.net, HTTP_PORT, 'POST', path, { headers: { 'X-Device-Token': rig.token, 'Content-Type': type, Accept: 'application/json' }, body });
}

async function tool(rig: Rig, args: Record<string, unknown>): Promise<{ success: boolean; output: string; error: string | null; error_type: string | null }> {
  const res = await post(rig, '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'web.search', arguments: args } }), 'application/json');
  return (JSON.parse(res.body) as { result: { structuredContent: { success: boolean; output: string; error: string | null; error_type: string | null } } }).result.structuredContent;
}

async function listed(rig: Rig): Promise<string[]> {
  const res = await post(rig, '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), 'application/json');
  return (JSON.parse(res.body) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
}

describe('web.search', () => {
  it('is offered only while a key is set; the key is write-only and never logged', async () => {
    const rig = setup();
    expect(await listed(rig)).not.toContain('web.search');
    const panel = JSON.parse((await request(rig.mem.net, HTTP_PORT, 'GET', '/api/tools', { headers: { 'X-Device-Token': rig.token } })).body) as { tools: Array<{ name: string; runsOn: string }> };
    expect(panel.tools.find((t) => t.name === 'web.search')).toMatchObject({ runsOn: 'Unavailable' });
    expect(await tool(rig, { query: 'x' })).toMatchObject({ success: false, error_type: 'unavailable' });
    const set = await post(rig, '/api/websearch', `key=${KEY}`);
    expect(set.status).toBe(200);
    expect(JSON.parse(set.body)).toMatchObject({ keySet: true, budget: null, used: 0, month: '2026-01' });
    expect(set.body).not.toContain(KEY);
    expect(await listed(rig)).toContain('web.search');
    await tool(rig, { query: `leak ${KEY}` });
    const log = (await request(rig.mem.net, HTTP_PORT, 'GET', '/api/log', { headers: { 'X-Device-Token': rig.token } })).body;
    expect(log).not.toContain(KEY);
    // No tool or device action may set it (protected key).
    const control = await post(rig, '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'device.control', arguments: { action: { config: { wsKey: 'evil' } } } } }), 'application/json');
    expect(control.body).toContain('protected-BLOCKED');
    expect((await post(rig, '/api/websearch', 'key=has space')).status).toBe(400);
    expect((await post(rig, '/api/websearch', 'colour=red')).status).toBe(400);
    expect((await post(rig, '/api/websearch', 'key=')).status).toBe(200);
    expect(await listed(rig)).not.toContain('web.search');
  });

  it('gives five results by default, as many as asked up to 20, cleaned of markup', async () => {
    const rig = setup();
    await post(rig, '/api/websearch', `key=${KEY}`);
    const r = await tool(rig, { query: 'desk lamps' });
    expect(r.success).toBe(true);
    expect(rig.api.queries[0]).toMatchObject({ q: 'desk lamps', count: 5 });
    expect(r.output.split('\n').filter((l) => /^\d+\. /.test(l))).toHaveLength(5);
    expect(r.output).toContain('1. desk lamps result 1 (https://example.org/desk%20lamps/1)');
    expect(r.output).toContain('About desk lamps: page 1');
    expect(r.output).not.toContain('<strong>');
    const two = await tool(rig, { query: 'q', max_results: 2 });
    expect(two.output.split('\n').filter((l) => /^\d+\. /.test(l))).toHaveLength(2);
    expect(await tool(rig, { query: 'q', max_results: 21 })).toMatchObject({ success: false, error_type: 'bad-arguments' });
    expect(await tool(rig, {})).toMatchObject({ success: false, error_type: 'bad-arguments' });
  });

  it('stops at the monthly budget, says when it resets, and starts again in the next month', async () => {
    const rig = setup();
    await post(rig, '/api/websearch', `key=${KEY}&budget=3`);
    for (let i = 0; i < 3; i++) expect((await tool(rig, { query: `q${i}` })).success).toBe(true);
    const refused = await tool(rig, { query: 'one more' });
    expect(refused).toMatchObject({ success: false, error_type: 'budget' });
    expect(refused.error).toContain('resets on 2026-02-01');
    expect(rig.api.queries).toHaveLength(3); // the refused search never reached the service
    expect(JSON.parse((await request(rig.mem.net, HTTP_PORT, 'GET', '/api/websearch', { headers: { 'X-Device-Token': rig.token } })).body)).toMatchObject({ budget: 3, used: 3, remaining: 0 });
    // Failed searches do not count.
    rig.mem.clock.setWall(JAN_31_LATE + 3 * 60_000); // 2026-02-01 00:01 UTC
    rig.api.rateLimit(1);
    expect(await tool(rig, { query: 'busy' })).toMatchObject({ success: false, error_type: 'rate-limit' });
    const view = JSON.parse((await request(rig.mem.net, HTTP_PORT, 'GET', '/api/websearch', { headers: { 'X-Device-Token': rig.token } })).body);
    expect(view).toMatchObject({ month: '2026-02', used: 0, remaining: 3, resetsOn: '2026-03-01' });
    expect((await tool(rig, { query: 'new month' })).success).toBe(true);
    // A larger budget, or none, lets more through.
    await post(rig, '/api/websearch', 'budget=0');
    for (let i = 0; i < 4; i++) expect((await tool(rig, { query: `free ${i}` })).success).toBe(true);
  });

  it('reports a refused key without counting it', async () => {
    const rig = setup();
    await post(rig, '/api/websearch', 'key=wrong-key&budget=10');
    expect(await tool(rig, { query: 'x' })).toMatchObject({ success: false, error_type: 'auth' });
    expect(JSON.parse((await request(rig.mem.net, HTTP_PORT, 'GET', '/api/websearch', { headers: { 'X-Device-Token': rig.token } })).body)).toMatchObject({ used: 0 });
  });

  it('counts months in UTC without Date', () => {
    expect(monthKey(Date.UTC(2024, 1, 29, 12))).toBe('2024-02');
    expect(monthKey(Date.UTC(2025, 11, 31, 23, 59))).toBe('2025-12');
    expect(nextMonthStart(Date.UTC(2025, 11, 31))).toBe('2026-01-01');
    for (let t = Date.UTC(1999, 0, 1); t < Date.UTC(2031, 0, 1); t += 13 * 86_400_000 + 3_600_000) {
      const d = new Date(t);
      expect(monthKey(t)).toBe(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`);
    }
  });
});
