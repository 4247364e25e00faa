// The owner chooses how memories are embedded (GET/POST /api/mem/embedding,
// memory.config's embedding): the choices say what is usable and why not; a
// change is refused until confirmed, then re-embeds in the background with
// its progress in /api/mem/stats, memory answering "busy" meanwhile (never
// with vectors of another embedding); a power cut in the middle of it loses
// no memory: the next boot sees vectors of the old embedding and re-embeds
// again; memory.config's embedding is for admins only.
import { describe, expect, it } from 'vitest';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { DEFAULT_PEOPLE } from '../../../src/memory/quotas.ts';
import { request } from '../../support/http.ts';
import { HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { bootMemory, type MemoryDevice } from './rig.ts';

const OWNER: ToolCaller = { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null };
const USER: ToolCaller = { ...OWNER, admin: false, person: 'chat:u' };
const HASH = { provider: 'offline', model: 'hash-ngram-1', dims: 256 };

async function api(mem: MemHal, device: MemoryDevice, method: string, path: string, form?: Record<string, string>) {
  const headers: Record<string, string> = { 'X-Device-Token': device.ctx.token.reveal() };
  if (form) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const r = await request(mem.net, HTTP_PORT, method, path, { headers, ...(form ? { body: new URLSearchParams(form).toString() } : {}) });
  return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
}

function boot(mem: MemHal): MemoryDevice {
  const d = bootMemory(mem);
  d.ctx.memory.setPeople(DEFAULT_PEOPLE);
  return d;
}

describe('choosing the embedding', () => {
  it('lists the choices, usable or not and why', async () => {
    const mem = createMemHal();
    const device = boot(mem);
    const r = await api(mem, device, 'GET', '/api/mem/embedding');
    expect(r.status).toBe(200);
    const choices = r.json['choices'] as Array<Record<string, unknown>>;
    expect(r.json['current']).toEqual(device.ctx.memory.defaultEmbedding());
    expect(choices.filter((c) => c['available']).map((c) => c['model'])).toEqual([device.ctx.memory.defaultEmbedding().model, 'hash-ngram-1']);
    expect(choices.find((c) => c['provider'] === 'openai')).toMatchObject({ available: false, why: 'add a openai key first (Assistant)' });
    device.stop();
  });

  it('refuses a change until confirmed, then re-embeds in the background with progress, busy meanwhile', async () => {
    const mem = createMemHal();
    const device = boot(mem);
    const m = device.ctx.memory;
    for (let i = 0; i < 40; i++) await m.store.write({ content: `note ${i}: the ${['red', 'green', 'blue', 'amber'][i % 4]} box holds item number ${i}` }, null);
    const ask = await api(mem, device, 'POST', '/api/mem/embedding', { provider: 'offline', model: 'hash-ngram-1', dims: '256' });
    expect(ask.status).toBe(409);
    expect(ask.json['error']).toBe('confirm');
    expect(String(ask.json['message'])).toContain('re-embeds all 40 memories');
    expect(m.store.emb).toEqual(m.defaultEmbedding());
    const bad = await api(mem, device, 'POST', '/api/mem/embedding', { provider: 'offline', model: 'nope', dims: '256', confirm: '1' });
    expect(bad.status).toBe(400);
    const go = await api(mem, device, 'POST', '/api/mem/embedding', { provider: 'offline', model: 'hash-ngram-1', dims: '256', confirm: '1' });
    expect(go.json).toMatchObject({ changed: true, reembedding: 40, embedding: HASH });
    await m.idle();
    expect((await api(mem, device, 'GET', '/api/mem/stats')).json).toMatchObject({ vectors: 40, embedding: HASH, reembed: null });
    expect((await m.search('which box holds item number 7', null, 1))[0]!.rec.content).toBe('note 7: the amber box holds item number 7');
    device.stop();
  });

  it('a power cut during re-embedding loses nothing: the next boot re-embeds again', async () => {
    const mem = createMemHal();
    const device = boot(mem);
    const m = device.ctx.memory;
    for (let i = 0; i < 30; i++) await m.store.write({ content: `fact ${i}: the meeting room ${i} has ${i + 2} chairs` }, null);
    const before = m.stats()['vectors'];
    // the new embedding is saved, the re-embedding just started: the power goes
    const r = await api(mem, device, 'POST', '/api/mem/embedding', { provider: 'offline', model: 'hash-ngram-1', dims: '256', confirm: '1' });
    expect(r.status).toBe(200);
    device.stop();
    const next = rebootMemHal(mem, 'power-on');
    const again = boot(next);
    const m2 = again.ctx.memory;
    await m2.idle();
    expect(m2.store.emb).toEqual(HASH);
    expect(m2.stats()['vectors']).toBe(before);
    expect((await m2.search('how many chairs in meeting room 12', null, 1))[0]!.rec.content).toBe('fact 12: the meeting room 12 has 14 chairs');
    again.stop();
  });

  it('memory.config changes the embedding for admins only, with confirm', async () => {
    const mem = createMemHal();
    const device = boot(mem);
    const tools = device.ctx.tools;
    expect((await tools.call('memory.config', { action: 'update', embedding: 'offline/hash-ngram-1/256', confirm: true }, USER)).success).toBe(false);
    const ask = await tools.call('memory.config', { action: 'update', embedding: 'offline/hash-ngram-1/256' }, OWNER);
    expect(ask).toMatchObject({ success: false, error_type: 'confirm', error: expect.stringContaining('confirm: true') });
    const go = await tools.call('memory.config', { action: 'update', embedding: 'offline/hash-ngram-1/256', confirm: true }, OWNER);
    expect(go.success).toBe(true);
    await device.ctx.memory.idle();
    expect((await tools.call('memory.config', { action: 'view' }, OWNER)).output).toContain('embedding: offline/hash-ngram-1/256;');
    device.stop();
  });
});
