// Running memory and the scratchpad, the embedding configuration (offline
// and a remote OpenAI-compatible endpoint on the in-memory network), the
// /api/mem routes, the console commands and the status line.
import { describe, expect, it } from 'vitest';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { RemoteEmbedder, type EmbeddingKeys } from '../../../src/memory/embed-remote.ts';
import { DEFAULT_PEOPLE } from '../../../src/memory/quotas.ts';
import { HttpClient } from '../../../src/net/http/client.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import type { MemNet } from '../../support/memnet.ts';
import { bootMemory as boot, type MemoryDevice as Device } from './rig.ts';

const OWNER: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };
const USER: ToolCaller = { ...OWNER, admin: false, person: 'chat:u' };

// Memory's own tests use made-up persons ('chat:alice') that are on no chat allowlist, so
// the chat's people registry would read them as revoked: they act as users here.
function bootAsUsers(mem: MemHal): Device {
  const device = boot(mem);
  device.ctx.memory.setPeople(DEFAULT_PEOPLE);
  return device;
}

function start(options: Parameters<typeof createMemHal>[0] = {}): { mem: MemHal; device: Device } {
  const mem = createMemHal(options);
  return { mem, device: bootAsUsers(mem) };
}

async function api(mem: MemHal, device: Device, method: string, path: string, body?: string, type = 'application/x-www-form-urlencoded') {
  const headers: Record<string, string> = { 'X-Device-Token': device.ctx.token.reveal() };
  if (body !== undefined) headers['Content-Type'] = type;
  const r = await request(mem.net, HTTP_PORT, method, path, { headers, ...(body !== undefined ? { body } : {}) });
  return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
}

async function consoleLine(mem: MemHal, line: string): Promise<string> {
  mem.serial.take();
  mem.serial.type(line + '\r\n');
  await mem.clock.advance(1);
  await flushJobs();
  return mem.serial.take();
}

describe('running memory and the scratchpad', () => {
  it('applies a parsed turn with the parser semantics and keeps it across a reboot', () => {
    const { mem, device } = start();
    const m = device.ctx.memory;
    m.applyRunningMemory('é'.repeat(700)); // 1400 bytes: cut to 1200 on a character boundary
    expect(m.runningMemory()).toBe('é'.repeat(600));
    m.applyScratchpad({ active: 'planning the trip', short: ['book train', '  ', 'pack'], mid: null, long: ['x'.repeat(200)] });
    m.applyScratchpad(null); // no change
    m.applyScratchpad({ active: null, short: null, mid: ['ask about hotels'], long: null });
    const pad = m.scratch.get();
    expect(pad).toEqual({ active: 'planning the trip', short: ['book train', 'pack'], mid: ['ask about hotels'], long: ['x'.repeat(160)] });
    const next = rebootMemHal(mem);
    const d2 = boot(next);
    expect(d2.ctx.memory.runningMemory()).toBe('é'.repeat(600));
    expect(d2.ctx.memory.scratch.get()).toEqual(pad);
    expect(d2.ctx.memory.scratchpadBlock()).toBe(`active: planning the trip\nshort:\n- book train\n- pack\nmid:\n- ask about hotels\nlong:\n- ${'x'.repeat(160)}`);
    d2.ctx.memory.applyScratchpad({ active: '', short: [], mid: null, long: null });
    expect(d2.ctx.memory.scratch.get()).toMatchObject({ active: '', short: [], mid: ['ask about hotels'] });
  });

  it('memory.scratchpad is admin-only; add to a full tier lets the oldest go', async () => {
    const { device } = start();
    const call = (args: Record<string, unknown>, who = OWNER) => device.ctx.tools.call('memory.scratchpad', args, who);
    expect((await call({ action: 'view' }, USER)).success).toBe(false);
    for (let i = 1; i <= 9; i++) await call({ action: 'add', tier: 'short', text: `item ${i}` });
    const view = await call({ action: 'view' });
    expect(view.output).toContain('short (8/8):');
    expect(view.output).not.toContain('item 1\n');
    expect(view.output).toContain('8. item 9');
    expect((await call({ action: 'set_active', text: 'writing the report' })).output).toMatch(/^active: writing the report/);
    expect((await call({ action: 'replace', tier: 'long', items: ['a', 'b'] })).output).toContain('long (2/8):');
    expect((await call({ action: 'add', text: 'no tier' })).error).toMatch(/needs a tier/);
    expect((await call({ action: 'clear' })).output).toMatch(/^active: \(none\)\nshort \(0\/8\)/);
  });
});

/** A fake OpenAI-compatible embeddings server: vectors from a fixed hash of each text. */
function embeddingServer(net: MemNet, host: string, port: number, dims: number, seen: string[]): void {
  net.serve(host, port, (s) => {
    s.onData = () => {
      const text = s.text();
      const head = text.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/content-length: (\d+)/i.exec(text)![1]);
      const body = Buffer.from(text.slice(head + 4));
      if (body.length < len) return;
      seen.push(text.slice(0, head));
      const req = JSON.parse(body.toString()) as { input: string[]; dimensions: number };
      const data = req.input.map((t, index) => {
        const v = new Array<number>(dims).fill(0);
        for (const w of t.toLowerCase().split(/\W+/).filter(Boolean)) {
          let h = 7;
          for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
          v[h % dims] += 1;
        }
        return { index, embedding: v };
      });
      const out = JSON.stringify({ data, model: 'fake' });
      s.send(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(out)}\r\n\r\n${out}`);
      s.end();
    };
  });
}

describe('embeddings', () => {
  it('set once: a change of dims wipes and re-embeds every memory, and is kept across a reboot', async () => {
    const { mem, device } = start();
    const m = device.ctx.memory;
    await m.store.write({ content: 'the spare tyre is in the garage' }, null);
    await m.store.write({ content: 'the umbrella hangs by the door' }, null);
    // the default: the image's static table (embed-static.ts)
    expect(m.store.emb).toEqual(m.defaultEmbedding());
    expect(m.store.emb.model).toMatch(/^glove-100-w24k-[0-9a-f]{8}$/);
    expect(await m.setEmbedding(m.defaultEmbedding())).toEqual({ changed: false, reembedded: 0 });
    expect(await m.setEmbedding({ provider: 'offline', model: 'hash-ngram-1', dims: 128 })).toEqual({ changed: true, reembedded: 2 });
    // in the background: memory answers busy (with the reason) until it is done, never with vectors of another embedding
    await expect(m.store.search('where is the umbrella', null, 1, 0)).rejects.toThrow(/re-embedded/);
    await m.idle();
    expect(m.stats()['reembed']).toBeNull();
    expect(m.store.index.dims).toBe(128);
    expect((await m.store.search('where is the umbrella', null, 1, 0))[0]!.rec.content).toBe('the umbrella hangs by the door');
    await expect(m.setEmbedding({ provider: 'offline', model: 'hash-ngram-1', dims: 130 })).rejects.toThrow(/multiple of 4/);
    const d2 = boot(rebootMemHal(mem));
    expect(d2.ctx.memory.store.emb.dims).toBe(128);
    expect(d2.ctx.memory.store.index.count).toBe(2);
    expect((await d2.ctx.memory.store.search('spare tyre', null, 1, 0))[0]!.rec.content).toBe('the spare tyre is in the garage');
  });

  it('embeds remotely through an OpenAI-compatible /v1/embeddings; the key goes over https only', async () => {
    const { mem, device } = start();
    const seen: string[] = [];
    embeddingServer(mem.net, 'embed.example', 443, 64, seen);
    embeddingServer(mem.net, 'plain.example', 8080, 64, seen);
    const keys: EmbeddingKeys = {
      endpoint: (p) =>
        p === 'openai' ? { baseUrl: 'https://embed.example', key: 'sk-secret' } : p === 'custom' ? { baseUrl: 'http://plain.example:8080', key: 'sk-plain' } : null,
    };
    const client = new HttpClient(mem.net, mem.clock, { verify: () => true, caBundle: () => '' });
    const remote = new RemoteEmbedder({ provider: 'openai', model: 'text-embedding-3-small', dims: 64 }, client, keys);
    const [v] = await remote.embed(['hello world']);
    expect(v!.length).toBe(64);
    expect(seen[0]).toMatch(/^POST \/v1\/embeddings HTTP\/1\.1/);
    expect(seen[0]).toContain('Authorization: Bearer sk-secret');
    const plain = new RemoteEmbedder({ provider: 'custom', model: 'm', dims: 64 }, client, keys);
    await plain.embed(['hello']);
    expect(seen[1]).not.toContain('Authorization');
    await expect(new RemoteEmbedder({ provider: 'openai', model: 'm', dims: 128 }, client, keys).embed(['x'])).rejects.toThrow(/64 numbers, fewer than the 128/);
    await expect(new RemoteEmbedder({ provider: 'mistral', model: 'm', dims: 64 }, client, keys).embed(['x'])).rejects.toThrow(/no mistral key is set/);

    // Through the device: a provider without a key is refused and nothing changes.
    await device.ctx.memory.store.write({ content: 'kept through a failed change' }, null);
    await expect(device.ctx.memory.setEmbedding({ provider: 'openai', model: 'text-embedding-3-small', dims: 64 })).rejects.toThrow(/was not changed/);
    expect(device.ctx.memory.store.emb.provider).toBe('offline');
    expect(device.ctx.memory.store.index.count).toBe(1);
  });
});

describe('/api/mem routes', () => {
  it('stats, browse by importance, semantic search, flush keeping permanent ones, dedupe', async () => {
    const { mem, device } = start();
    const store = device.ctx.memory.store;
    await store.write({ content: 'low importance note about lamps', importance: 0.2 }, null);
    await store.write({ content: 'high importance note about keys', importance: 0.9 }, null);
    await store.write({ content: 'permanent note about the birthday of Eva', permanent: true }, null);
    await store.write({ content: 'someone else note', importance: 1 }, 'chat:x');
    const stats = await api(mem, device, 'GET', '/api/mem/stats');
    expect(stats.json).toMatchObject({ vectors: 4, blobCount: expect.any(Number), blobBytes: expect.any(Number), degraded: { vectors: false, episodic: false }, epiTruncated: false, epiFloor: expect.any(Number) });
    const browse = await api(mem, device, 'GET', '/api/mem/vector?limit=2');
    expect(browse.json['total']).toBe(3);
    expect((browse.json['items'] as Array<{ content: string }>).map((i) => i.content)).toEqual(['high importance note about keys', 'permanent note about the birthday of Eva']);
    expect((browse.json['items'] as unknown[])[0]).toMatchObject({ id: expect.any(String), importance_score: 0.9, ttl_hours: 720, created_at: expect.any(Number), source: 'self', creator_flag: false, permanent_flag: false, metadata: null });
    const page2 = await api(mem, device, 'GET', '/api/mem/vector?limit=2&offset=2');
    expect((page2.json['items'] as Array<{ content: string }>).map((i) => i.content)).toEqual(['low importance note about lamps']);
    const search = await api(mem, device, 'GET', '/api/mem/vector?query=where%20are%20the%20keys');
    expect((search.json['items'] as Array<{ content: string; score: number }>)[0]).toMatchObject({ content: 'high importance note about keys', score: expect.any(Number) });
    expect((await api(mem, device, 'GET', '/api/mem/vector?limit=x')).status).toBe(400);
    await store.write({ content: 'High importance note about keys!', importance: 0.1 }, null); // a duplicate bump, not a new one
    expect((await api(mem, device, 'POST', '/api/mem/vector/dedupe')).json).toMatchObject({ removed: 0, vectors: 4 });
    const flush = await api(mem, device, 'POST', '/api/mem/vector/flush', 'keep_permanent=1');
    expect(flush.json).toMatchObject({ removed: 3, kept: 1, keep_permanent: true });
    expect((await api(mem, device, 'POST', '/api/mem/vector/flush', 'keep_permanent=0')).json).toMatchObject({ removed: 1, kept: 0 });
    expect(store.index.count).toBe(0);
  });

  it('PUT /api/mem/config clamps as the tool does and refuses a non-number without changing anything', async () => {
    const { mem, device } = start();
    const ok = await api(mem, device, 'PUT', '/api/mem/config', 'retrieval_count=0&relevance_threshold=1.5&decay_factor=0.97&max_context_bytes=4096');
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ retrieval_count: 1, relevance_threshold: 1, decay_factor: 0.97, max_context_bytes: 4096 });
    const json = await api(mem, device, 'PUT', '/api/mem/config', JSON.stringify({ retrieval_count: 250, mmr_lambda: 0.5 }), 'application/json');
    expect(json.json).toMatchObject({ retrieval_count: 100, mmr_lambda: 0.5, decay_factor: 0.97 });
    const bad = await api(mem, device, 'PUT', '/api/mem/config', 'retrieval_count=7&decay_factor=lots');
    expect(bad.status).toBe(400);
    expect(bad.json['message']).toBe('Decay_factor must be a number. Nothing was changed.');
    expect(device.ctx.memory.config.get().retrieval_count).toBe(100);
    const unauth = await request(mem.net, HTTP_PORT, 'GET', '/api/mem/stats');
    expect(unauth.status).toBe(401);
  });
});

describe('console and status', () => {
  it('MEMFILL vec writes distinct memories; STATUS shows vec=; the state snapshot has memory counts', async () => {
    const { mem, device } = start();
    expect(await consoleLine(mem, 'MEMFILL vec 60 80')).toMatch(/^vec 60 written \(60 new\); vec=60\r\nOK\r\n$/);
    expect(await consoleLine(mem, 'STATUS')).toMatch(/ vec=60 /);
    expect(device.ctx.status.snapshot()['memory']).toMatchObject({ vectors: 60, archive: 0, degraded: false });
    expect(await consoleLine(mem, 'MEMFILL vec x')).toMatch(/^ERR usage: MEMFILL/);
    expect(await consoleLine(mem, 'COMPACT')).toMatch(/^ERR usage: COMPACT <chat>/);
    // COMPACT is the turn engine's now (src/turn/compact.ts; test/unit/chat/chat.test.ts): an empty chat has nothing to compact.
    expect(await consoleLine(mem, 'COMPACT chat:1')).toBe('ERR There is no conversation to compact since it was last cleared.\r\n');
  });
});
