// The turn subsystem mounted alone on a test kernel, from its declared
// options (small fakes for the provider settings, the prompt, the memory, the
// people and the device): the web page's conversations and /clear, CTX?, and
// COMPACT with nothing to compact. The turn itself, with the whole device, is
// test/unit/turn/engine.test.ts.
import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../../src/net/http/types.ts';
import { testKernel } from '../../support/kernel.ts';
import { mountTurnOnFakes } from '../../support/turn-fakes.ts';

function setup() {
  const t = testKernel();
  return { ...t, ...mountTurnOnFakes(t.kernel) };
}

function req(method: string, path: string, body = '', type = 'application/x-www-form-urlencoded'): HttpRequest {
  return { method, path, query: '', headers: new Map([['content-type', type]]), body: new TextEncoder().encode(body), remote: 'test' };
}

async function call(k: ReturnType<typeof testKernel>['kernel'], method: string, path: string, body = '', type?: string): Promise<{ status: number; json: unknown }> {
  const route = k.router.list().find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`no route ${method} ${path}`);
  const res: HttpResponse = await route.handler(req(method, path, body, type));
  return { status: res.status, json: JSON.parse(String(res.body)) };
}

describe('the turn subsystem', () => {
  it('adds the recent conversation to the prompt and registers its routes and commands', () => {
    const { kernel, blocks } = setup();
    expect(blocks).toEqual(['conversation']);
    expect(kernel.router.list().map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/lastturn', 'GET /api/mem/working', 'GET /api/conversation', 'POST /api/conversation/clear', 'GET /api/turn/live']);
    for (const verb of ['TURN', 'TURNSTAT?', 'HEAPPROBE', 'PROMPT?', 'CTX?', 'COMPACT']) expect(kernel.console.has(verb)).toBe(true);
  });

  it('lists the conversations seen lately and clears one; a form without a chat is a 400 that changes nothing', async () => {
    const { kernel, mem, rows, face } = setup();
    mem.clock.setWall(1_800_000_000_000);
    rows.push({ session: 'web', ts: 1_700_000_000_000, role: 'user', kind: 'message', text: 'hello' });
    expect(await call(kernel, 'GET', '/api/conversation')).toEqual({ status: 200, json: { chats: [{ chat: 'web', lastAt: 1_700_000_000_000, clearedAt: null, cleared: false }] } });
    expect(await call(kernel, 'POST', '/api/conversation/clear', 'chat=')).toEqual({ status: 400, json: { error: 'bad-request', message: 'Name the conversation to clear (chat, a chat id). Nothing was changed.' } });
    expect(await call(kernel, 'POST', '/api/conversation/clear', '{"chat":"web"}', 'application/json')).toMatchObject({ status: 400 });
    expect(face.assistant.clearedAt('web')).toBe(0);
    expect(await call(kernel, 'POST', '/api/conversation/clear', 'chat=web')).toEqual({ status: 200, json: { chat: 'web', cleared: true } });
    expect(face.assistant.clearedAt('web')).toBe(1_800_000_000_000);
    expect(kernel.log.text()).toMatch(/turn: conversation web cleared from the web/);
    expect(await call(kernel, 'GET', '/api/conversation')).toEqual({ status: 200, json: { chats: [{ chat: 'web', lastAt: 1_700_000_000_000, clearedAt: 1_800_000_000_000, cleared: true }] } });
  });

  it('has nothing to compact in a cleared conversation', async () => {
    const { face, rows } = setup();
    rows.push({ session: 'c1', ts: 5, role: 'user', kind: 'message', text: 'hi' });
    expect(face.compactor.hasConversation('c1')).toBe(true);
    face.assistant.clear('c1');
    expect(face.compactor.hasConversation('c1')).toBe(false);
    expect(await face.compactor.compact('c1', null, true)).toEqual({ ok: false, reason: 'empty', message: 'There is no conversation to compact since it was last cleared.' });
  });
});
