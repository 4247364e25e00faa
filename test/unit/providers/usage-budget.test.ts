// Token usage and the owner's monthly budgets, on a booted device with the
// real provider wire against fake provider servers: every answer's usage is
// counted per provider by day and month, survives a restart, shows in
// device.status usage.budget and /api/state; past a budget the device takes
// no new turn on that provider, fails over to a keyed alternate with budget
// left (and says why), and refuses clearly when none has any. Only the web
// page's form sets a budget.
import { describe, expect, it } from 'vitest';
import { request } from '../../support/http.ts';
import { mountAssistant } from '../../support/assistant.ts';
import { deviceKernel, HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { fakeProvider, type SeenRequest } from '../../support/provider-fake.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TURN = (reply: string): string => JSON.stringify({ reply, memory: '', ask: '', device: null, mem_write: null, mem_query: null, session_ops: null, scratchpad: null });

function serve(mem: MemHal): { anthropic: SeenRequest[]; openai: SeenRequest[] } {
  const anthropic = fakeProvider(mem.net, 'api.anthropic.com', 443, () => ({
    status: 200,
    body: { type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'orch_turn', input: JSON.parse(TURN('From B.')) }], stop_reason: 'tool_use', usage: { input_tokens: 300, output_tokens: 200, cache_read_input_tokens: 100, cache_creation_input_tokens: 0 } },
  }));
  const openai = fakeProvider(mem.net, 'api.openai.com', 443, () => ({
    status: 200,
    body: { status: 'completed', output: [{ type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'orch_turn', arguments: TURN('From A.') }], usage: { input_tokens: 700, input_tokens_details: { cached_tokens: 0 }, output_tokens: 100, output_tokens_details: { reasoning_tokens: 60 } } },
  }));
  return { anthropic, openai };
}

/** The providers on a device kernel, over the assistant's stack with the real wire (the system for /api/state, device.status, device.control). */
function boot(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const { assistant } = mountAssistant(dk);
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token }, assistant, stop: () => dk.stop() };
}

type Device = ReturnType<typeof boot>;

function setup(mem = createMemHal()): { mem: MemHal; device: Device; seen: ReturnType<typeof serve> } {
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.nvs.set('orch', 'key.anthropic', 'sk-ant');
  mem.nvs.set('orch', 'key.openai', 'sk-oai');
  mem.nvs.set('orch', 'priority', 'anthropic,openai');
  const seen = serve(mem);
  return { mem, device: boot(mem), seen };
}

async function turn(device: Device, text: string): Promise<string> {
  return (await device.assistant.engine.run({ chat: 'c1', text, person: null, admin: true, origin: 'console' })).reply;
}

async function api(mem: MemHal, device: Device, method: string, path: string, form?: Record<string, string>): Promise<{ status: number; json: Json }> {
  const token = device.ctx.token.reveal();
  const body = form ? new URLSearchParams(form).toString() : '';
  const headers: Record<string, string> = { 'X-Device-Token': token, ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) };
  const r = await request(mem.net, HTTP_PORT, method, path, { headers, body });
  return { status: r.status, json: JSON.parse(r.body) as Json };
}

describe('usage and budgets', () => {
  it('counts every answer per provider, keeps it across a restart, and shows it in device.status and /api/state', async () => {
    const { mem, device } = setup();
    expect(await turn(device, 'hello')).toBe('From B.');
    const state = await api(mem, device, 'GET', '/api/state');
    expect(state.json['usage']['budget']['anthropic']).toMatchObject({ daily: { input: 400, output: 200, reasoning: 0, cached: 100 }, monthly: { input: 400, output: 200 }, used: 600, budget: null, exhausted: false });
    const status = JSON.parse((await device.ctx.tools.call('device.status', {}, { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null })).output) as Json;
    expect(status['usage']['budget']['anthropic']['used']).toBe(600);
    device.stop();
    const again = setup(rebootMemHal(mem, 'power-on'));
    const after = await api(again.mem, again.device, 'GET', '/api/state');
    expect(after.json['usage']['budget']['anthropic']['monthly']).toEqual({ input: 400, output: 200, reasoning: 0, cached: 100 });
    // A new month starts from zero.
    again.mem.clock.setWall(again.mem.clock.wallMs() + 40 * 86_400_000);
    expect((await api(again.mem, again.device, 'GET', '/api/state')).json['usage']['budget']['anthropic']).toMatchObject({ used: 0 });
  });

  it('past its monthly budget a provider takes no new turn: a keyed alternate answers and says why; with none left the device refuses clearly', async () => {
    const { mem, device, seen } = setup();
    expect((await api(mem, device, 'POST', '/api/orch', { budget_anthropic: '500' })).status).toBe(200);
    expect(await turn(device, 'one')).toBe('From B.');
    expect(seen.anthropic).toHaveLength(1);
    const second = await turn(device, 'two');
    expect(second).toContain('From A.');
    expect(second).toContain("served by openai gpt-5-mini: anthropic's monthly token budget is used up");
    expect(seen.anthropic).toHaveLength(1);
    expect((await api(mem, device, 'POST', '/api/orch', { budget_openai: '800' })).status).toBe(200);
    const third = await turn(device, 'three');
    expect(third).toMatch(/monthly token budget is used up for anthropic \(500 tokens\), openai \(800 tokens\)/);
    expect(seen.anthropic).toHaveLength(1);
    expect(seen.openai).toHaveLength(1);
    const view = (await api(mem, device, 'GET', '/api/state')).json['usage']['budget'];
    expect(view['openai']).toMatchObject({ budget: 800, used: 800, exhausted: true, monthly: { reasoning: 60 } });
    // Raising the budget lets turns through again.
    await api(mem, device, 'POST', '/api/orch', { budget_anthropic: '0' });
    expect(await turn(device, 'four')).toBe('From B.');
  });

  it('a budget is set only by the owner\'s form: bad values change nothing, and a device action naming it is refused', async () => {
    const { mem, device } = setup();
    expect((await api(mem, device, 'POST', '/api/orch', { budget_anthropic: '-1' })).status).toBe(400);
    expect((await api(mem, device, 'POST', '/api/orch', { budget_nobody: '5' })).status).toBe(400);
    expect((await api(mem, device, 'GET', '/api/orch')).json['budgets']['anthropic']).toBeNull();
    const r = await device.ctx.tools.call('device.control', { action: { config: { budget_anthropic: 99 } } }, { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null });
    expect(r.success).toBe(false);
    expect((await api(mem, device, 'GET', '/api/orch')).json['budgets']['anthropic']).toBeNull();
  });
});
