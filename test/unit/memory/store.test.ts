// Long-term memory on the in-memory HAL and the virtual clock: records,
// dedup, TTL classes, decay and prune, pins, the cap and the archive, the
// degraded mode without a card, namespaces and quotas, persistence across
// reboots and power cuts, and the memory tools.
import { describe, expect, it } from 'vitest';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { fillerText } from '../../../src/memory/console.ts';
import { DEFAULT_PEOPLE, quotaFor, type People } from '../../../src/memory/quotas.ts';
import { bootParts, mountMemory, testKernel } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';

const OWNER: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };
const MCP_OWNER: ToolCaller = { ...OWNER, via: 'mcp' };
const ALICE: ToolCaller = { ...OWNER, admin: false, person: 'chat:alice' };
const BOB: ToolCaller = { ...OWNER, admin: false, person: 'chat:bob' };
const HOUR = 3600_000;

// Memory's own tests use made-up persons ('chat:alice') that are on no chat allowlist, so
// the chat's people registry would read them as revoked: they act as users here.
function bootAsUsers(mem: MemHal) {
  const device = memoryAlone(mem);
  device.ctx.memory.setPeople(DEFAULT_PEOPLE);
  return device;
}

/** Memory mounted alone on a test kernel (the card made as main.ts makes it), with the serial console. */
function memoryAlone(mem: MemHal) {
  const { kernel } = testKernel({ mem });
  const { card } = bootParts(kernel);
  const memory = mountMemory(kernel, { card });
  kernel.console.start();
  return { ctx: { ...kernel, memory, card } };
}
type Device = ReturnType<typeof memoryAlone>;

function start(options: Parameters<typeof createMemHal>[0] = {}): { mem: MemHal; device: Device } {
  const mem = createMemHal(options);
  return { mem, device: bootAsUsers(mem) };
}

function again(mem: MemHal, reason: 'software' | 'power-on' = 'software'): { mem: MemHal; device: Device } {
  const next = rebootMemHal(mem, reason);
  return { mem: next, device: bootAsUsers(next) };
}

async function tool(device: Device, name: string, args: Record<string, unknown>, caller: ToolCaller = OWNER) {
  return device.ctx.tools.call(name, args, caller);
}

describe('vector memory records and dedup', () => {
  it('stores a record with the spec fields and a deterministic content-hash id', async () => {
    const { device } = start();
    const store = device.ctx.memory.store;
    const o = await store.write({ content: 'The owner prefers green tea in the morning' }, null);
    expect(o.action).toBe('added');
    const r = o.record;
    expect(r.id).toMatch(/^[0-9a-f]{16}$/);
    expect(r).toMatchObject({ importance: 0.5, ttlHours: 720, source: 'self', creator: false, permanent: false, pinned: false, metadata: null });
    expect(r.createdAt).toBe(device.ctx.hal.clock.wallMs());
    // Same content (whitespace aside) is the same id; another person's is another id.
    const { device: other } = start();
    const o2 = await other.ctx.memory.store.write({ content: '  The owner prefers   green tea in the morning ' }, null);
    expect(o2.record.id).toBe(r.id);
    const o3 = await other.ctx.memory.store.write({ content: 'The owner prefers green tea in the morning' }, 'chat:alice');
    expect(o3.record.id).not.toBe(r.id);
  });

  it('maps the TTL classes to hours and keeps permanent memories without a TTL', async () => {
    const { device } = start();
    const store = device.ctx.memory.store;
    const ttl = async (t: 'session' | 'days' | 'weeks' | 'months' | 'permanent', i: number) => (await store.write({ content: `ttl class sample ${t} ${i} zebra`, ttl: t }, null)).record;
    expect((await ttl('session', 1)).ttlHours).toBe(24);
    expect((await ttl('days', 2)).ttlHours).toBe(168);
    expect((await ttl('weeks', 3)).ttlHours).toBe(720);
    expect((await ttl('months', 4)).ttlHours).toBe(2160);
    const p = await ttl('permanent', 5);
    expect([p.ttlHours, p.permanent]).toEqual([-1, true]);
    const q = (await store.write({ content: 'a permanent flag alone', permanent: true }, null)).record;
    expect([q.ttlHours, q.permanent]).toEqual([-1, true]);
    await expect(store.write({ content: 'x', ttl: 'forever' as never }, null)).rejects.toThrow(/ttl must be one of/);
    await expect(store.write({ content: '   ' }, null)).rejects.toThrow(/content is empty/);
    expect(store.index.count).toBe(6);
  });

  it('merges a duplicate below cosine distance 0.05: keeps the higher importance and bumps it', async () => {
    const { device } = start();
    const store = device.ctx.memory.store;
    const a = await store.write({ content: 'My sister Jana lives in Prague', importance: 0.5 }, null);
    const b = await store.write({ content: 'my sister jana lives in prague!', importance: 0.3 }, null);
    expect(b.action).toBe('bumped');
    expect(b.record.id).toBe(a.record.id);
    expect(b.record.importance).toBeCloseTo(0.6);
    expect(store.index.count).toBe(1);
    // A more important near-duplicate takes the place, with its wording.
    const c = await store.write({ content: 'My sister Jana lives in Prague.', importance: 0.9 }, null);
    expect(c.action).toBe('replaced');
    expect(c.record.content).toBe('My sister Jana lives in Prague.');
    expect(c.record.importance).toBeCloseTo(1);
    expect(store.index.count).toBe(1);
    // Something different is a new memory.
    expect((await store.write({ content: 'My brother Karel lives in Brno' }, null)).action).toBe('added');
    expect(store.index.count).toBe(2);
  });

  it('memory.search answers lines "- [NN%] content" and filters below the relevance threshold', async () => {
    const { device } = start();
    await tool(device, 'memory.write', { content: 'The wifi password of the office is on the fridge' });
    await tool(device, 'memory.write', { content: 'Dentist appointment every six months' });
    const r = await tool(device, 'memory.search', { query: 'where is the office wifi password' });
    expect(r.success).toBe(true);
    expect(r.output.split('\n')[0]).toMatch(/^- \[\d\d%\] The wifi password of the office is on the fridge$/);
    expect(r.output).not.toContain('Dentist');
    const none = await tool(device, 'memory.search', { query: 'quantum chromodynamics lecture' });
    expect(none.output).toMatch(/^No memories above the relevance threshold/);
  });
});

describe('decay, prune, TTL and the archive', () => {
  it('decays once per day of wall time on the tick, never below the floor, never permanent or pinned', async () => {
    const { mem, device } = start();
    const m = device.ctx.memory;
    const a = (await m.store.write({ content: 'decaying memory about kayaks', importance: 0.5 }, null)).record;
    const p = (await m.store.write({ content: 'permanent memory about canoes', importance: 0.5, permanent: true }, null)).record;
    const pin = (await m.store.write({ content: 'pinned memory about rafts', importance: 0.5 }, null)).record;
    m.store.setPinned(pin, true, null);
    await mem.clock.advance(10); // the boot tick records when decay started
    await mem.clock.advance(48 * HOUR); // two days: ticks every 6 h
    expect(m.store.get(a.id, null)!.importance).toBeCloseTo(0.5 * 0.95 * 0.95, 5);
    expect(m.store.get(p.id, null)!.importance).toBe(0.5);
    expect(m.store.get(pin.id, null)!.importance).toBe(0.5);
  });

  it('prunes below importance 0.05 and past TTL into the archive, which can restore', async () => {
    const { mem, device } = start();
    const m = device.ctx.memory;
    const low = (await m.store.write({ content: 'a barely important note on sprockets', importance: 0.04 }, null)).record;
    const short = (await m.store.write({ content: 'the pizza order for tonight is margherita', ttl: 'session' }, null)).record;
    const keep = (await m.store.write({ content: 'long lived memory about violins', importance: 0.9 }, null)).record;
    expect((await tool(device, 'memory.search', { query: 'pizza order tonight' })).output).toContain('margherita');
    await mem.clock.advance(6 * HOUR + 10);
    // The 6-hour tick prunes what fell below 0.05.
    expect(m.store.get(low.id, null)).toBeNull();
    await mem.clock.advance(19 * HOUR);
    // Past its TTL (24 h) it is invisible at once; the next tick moves it out.
    expect(m.store.get(short.id, null)).toBeNull();
    expect(m.store.archiveList(null, 10).map((r) => r.content)).not.toContain('the pizza order for tonight is margherita');
    await mem.clock.advance(6 * HOUR);
    expect(m.store.get(keep.id, null)).not.toBeNull();
    const list = await tool(device, 'memory.archive', { action: 'list' });
    expect(list.output).toContain('sprockets');
    expect(list.output).toContain('margherita');
    const found = await tool(device, 'memory.archive', { action: 'search', query: 'pizza order' });
    expect(found.output.split('\n')[0]).toMatch(/^- \[\d\d%\] the pizza order for tonight is margherita \(id [0-9a-f]{16}\)$/);
    const restored = await tool(device, 'memory.archive', { action: 'restore', id: short.id, ttl: 'days' });
    expect(restored.output).toContain('Restored memory');
    expect(m.store.get(short.id, null)).toMatchObject({ ttlHours: 168 });
    expect((await tool(device, 'memory.archive', { action: 'list' })).output).not.toContain('margherita');
  });

  it('DREAM runs one decay step, prune and dedupe now', async () => {
    const { mem, device } = start();
    await device.ctx.memory.store.write({ content: 'a dream test memory about owls', importance: 0.5 }, null);
    mem.serial.take();
    mem.serial.type('DREAM\r\n');
    await mem.clock.advance(1);
    expect(mem.serial.take()).toMatch(/^decayed=1 pruned=0 merged=0 vec=1\r\nOK\r\n$/);
  });

  it('keeps the working set under max_vectors by moving the least important to the archive', async () => {
    const { device } = start();
    const m = device.ctx.memory;
    m.config.set({ max_vectors: 10 });
    for (let i = 0; i < 10; i++) await m.store.write({ content: `capacity filler number ${i} ${'abcdefghij'[i]}x${i}q`, importance: 0.5 + i / 100 }, null);
    const pinned = (await m.store.write({ content: 'a pinned note that must stay', importance: 0.01 }, null)).record;
    m.store.setPinned(m.store.get(pinned.id, null)!, true, null);
    const o = await m.store.write({ content: 'one more memory pushes the least important out', importance: 0.9 }, null);
    expect(m.store.index.count).toBe(10);
    expect(o.evicted).toBeGreaterThan(0);
    expect(m.store.get(pinned.id, null)).not.toBeNull();
    const archived = m.store.archiveList(null, 10).map((r) => r.content);
    expect(archived).toContain('capacity filler number 0 ax0q');
  });
});

describe('without an SD card', () => {
  it('runs degraded in RAM with a cap of 400 and no archive', async () => {
    const { device } = start({ sd: { present: false } });
    const m = device.ctx.memory;
    expect(m.store.degraded).toBe(true);
    for (let i = 0; i < 405; i++) await m.store.write({ content: `degraded memory ${i} w${i * 7919} z${i % 13}` }, null);
    expect(m.store.index.count).toBe(400);
    expect(m.stats()).toMatchObject({ vectors: 400, cap: 400, degraded: { vectors: true, episodic: true } });
    expect(device.ctx.tools.list(OWNER).map((t) => t.name)).not.toContain('memory.archive');
    expect((await tool(device, 'memory.archive', { action: 'list' })).success).toBe(false);
  });

  it('merges what was learned without a card into the card store when a card becomes live', async () => {
    const { mem, device } = start();
    const m = device.ctx.memory;
    await m.store.write({ content: 'written while the card was in' }, null);
    mem.sd.pull();
    device.ctx.card.probe();
    expect(m.store.degraded).toBe(true);
    await m.store.write({ content: 'written while the card was out' }, null);
    mem.sd.insert();
    device.ctx.card.probe();
    expect(m.store.degraded).toBe(false);
    expect(m.store.index.count).toBe(2);
    const { device: after } = again(mem);
    expect(after.ctx.memory.store.browse(null, 10, 0).items.map((r) => r.content).sort()).toEqual(['written while the card was in', 'written while the card was out']);
  });
});

describe('persistence on the card', () => {
  it('keeps every acknowledged write across a reboot and a power cut, and drops a torn journal tail', async () => {
    const { mem, device } = start();
    const store = device.ctx.memory.store;
    for (let i = 0; i < 30; i++) await store.write({ content: `persisted memory ${i} k${i * 31}` }, null);
    await store.write({ content: 'a pinned and permanent one', permanent: true, importance: 0.9 }, null);
    mem.sd.cut(); // power cut: unsynced bytes are lost; acknowledged writes were synced
    let { mem: m2, device: d2 } = again(mem, 'power-on');
    expect(d2.ctx.memory.store.index.count).toBe(31);
    expect(d2.ctx.memory.store.browse(null, 1, 0).items[0]!.content).toBe('a pinned and permanent one');
    // A torn tail: half a record at the end of the journal.
    const journal = m2.sd.list('/mem/vec').find((e) => e.name.startsWith('jrnl-'))!;
    const f = m2.sd.open(`/mem/vec/${journal.name}`, 'a');
    f.write(new Uint8Array([200, 1, 0, 0, 9, 9, 9]));
    f.sync();
    ({ mem: m2, device: d2 } = again(m2, 'power-on'));
    expect(d2.ctx.memory.store.index.count).toBe(31);
    // The torn tail was dropped by rewriting the snapshot; the store still takes writes.
    await d2.ctx.memory.store.write({ content: 'after the repair' }, null);
    ({ device: d2 } = again(m2));
    expect(d2.ctx.memory.store.index.count).toBe(32);
  });

  it('fails a write clearly and changes nothing when the card cannot take it', async () => {
    const { mem, device } = start();
    const store = device.ctx.memory.store;
    await store.write({ content: 'first memory on a healthy card' }, null);
    mem.sd.failNextWrite = 'EIO';
    await expect(store.write({ content: 'second memory on a failing card' }, null)).rejects.toThrow(/could not be saved on the SD card \(EIO\)/);
    expect(store.index.count).toBe(1);
    const { device: d2 } = again(mem);
    expect(d2.ctx.memory.store.index.count).toBe(1);
  });

  it('compacts the journal into a new snapshot and keeps the data', async () => {
    const { mem, device } = start();
    const store = device.ctx.memory.store;
    for (let i = 0; i < 400; i++) await store.write({ content: fillerText('vec', 'c', i, 240) }, null);
    expect(store.index.count).toBe(400);
    const files = mem.sd.list('/mem/vec').map((e) => e.name);
    expect(files).toContain('snap.bin');
    const { device: d2 } = again(mem);
    expect(d2.ctx.memory.store.index.count).toBe(400);
  });
});

describe('namespaces, quotas and pins', () => {
  it("keeps each person's reads in their own namespace", async () => {
    const { device } = start();
    await tool(device, 'memory.write', { content: 'Alice is allergic to peanuts' }, ALICE);
    await tool(device, 'memory.write', { content: 'The owner is allergic to cats' });
    expect((await tool(device, 'memory.search', { query: 'allergic' }, ALICE)).output).not.toContain('cats');
    expect((await tool(device, 'memory.search', { query: 'allergic' }, BOB)).output).toMatch(/^No memories/);
    expect((await tool(device, 'memory.search', { query: 'allergic' })).output).not.toContain('peanuts');
    const aliceId = device.ctx.memory.store.browse('chat:alice', 1, 0).items[0]!.id;
    expect((await tool(device, 'memory.pin', { action: 'delete', id: aliceId }, BOB)).error_type).toBe('not-found');
  });

  it('enforces per-person quotas for vectors, bytes, ttl_hours and pins', async () => {
    const { device } = start();
    const people: People = {
      roleOf: (p) => (p === null ? 'admin' : p === 'chat:guest' ? 'guest' : 'user'),
      quotaOverride: (p) => (p === 'chat:alice' ? { vectors: 2, pins: 1 } : null),
    };
    device.ctx.memory.setPeople(people);
    expect(quotaFor(people, 'chat:guest')).toMatchObject({ vectors: 50, ttlHours: 168, pins: 2 });
    await tool(device, 'memory.write', { content: 'alice one about oak trees' }, ALICE);
    await tool(device, 'memory.write', { content: 'alice two about pine cones' }, ALICE);
    const third = await tool(device, 'memory.write', { content: 'alice three about birch bark' }, ALICE);
    expect(third).toMatchObject({ success: false, error_type: 'quota' });
    expect((await tool(device, 'memory.pin', { action: 'pin', content: 'alice one about oak trees' }, ALICE)).success).toBe(true);
    expect((await tool(device, 'memory.pin', { action: 'pin', content: 'alice two about pine cones' }, ALICE))).toMatchObject({ error_type: 'quota' });
    const g = await tool(device, 'memory.write', { content: 'a guest wants this forever', permanent: true }, { ...ALICE, person: 'chat:guest' });
    expect(g.output).toMatch(/limited to 168 h/);
    for (let i = 0; i < 16; i++) await tool(device, 'memory.write', { content: fillerText('vec', 'g', i, 1000) }, { ...ALICE, person: 'chat:guest' });
    const over = await tool(device, 'memory.write', { content: fillerText('vec', 'g', 99, 1000) }, { ...ALICE, person: 'chat:guest' });
    expect(over).toMatchObject({ success: false, error_type: 'quota' });
    expect(over.error).toMatch(/16384 bytes/);
  });

  it('memory.pin pins, unpins and deletes by id or content; memory.update replaces the closest match', async () => {
    const { device } = start();
    await tool(device, 'memory.write', { content: 'The car is parked on level 3' });
    const up = await tool(device, 'memory.update', { content: 'The car is parked on level 5', old: 'The car is parked on level 3' });
    expect(up.output).toMatch(/^Updated memory [0-9a-f]{16} -> [0-9a-f]{16}: The car is parked on level 5$/);
    const store = device.ctx.memory.store;
    expect(store.browse(null, 10, 0).items.map((r) => r.content)).toEqual(['The car is parked on level 5']);
    expect((await tool(device, 'memory.pin', { action: 'pin', content: 'The car is parked on level 5' })).output).toMatch(/^Pinned/);
    expect(store.browse(null, 1, 0).items[0]!.pinned).toBe(true);
    expect((await tool(device, 'memory.pin', { action: 'unpin', content: 'The car is parked on level 5' })).output).toMatch(/^Unpinned/);
    expect((await tool(device, 'memory.pin', { action: 'delete', content: 'something else entirely' })).error_type).toBe('not-found');
    expect((await tool(device, 'memory.pin', { action: 'delete', content: 'The car is parked on level 5' })).output).toMatch(/^Deleted/);
    expect(store.index.count).toBe(0);
  });

  it('marks writes a person asked for directly (over /mcp) with creator_flag', async () => {
    const { device } = start();
    await tool(device, 'memory.write', { content: 'via mcp about lighthouses', source: 'web' }, MCP_OWNER);
    expect(device.ctx.memory.store.browse(null, 1, 0).items[0]).toMatchObject({ creator: true, source: 'web' });
  });
});

describe('memory.config and the prompt block', () => {
  it('memory.config views for anyone, updates for admins only, with the clamps', async () => {
    const { device } = start();
    expect((await tool(device, 'memory.config', { action: 'view' }, ALICE)).output).toContain('retrieval_count: 5');
    expect((await tool(device, 'memory.config', { action: 'update', retrieval_count: 7 }, ALICE)).error_type).toBe('forbidden');
    const r = await tool(device, 'memory.config', { action: 'update', retrieval_count: 500, decay_factor: 0.1, relevance_threshold: 0.25 });
    expect(r.output).toContain('retrieval_count: 100');
    expect(r.output).toContain('decay_factor: 0.5');
    expect(r.output).toContain('relevance_threshold: 0.25');
  });

  it('builds the relevant-memories block from the user text and mem_query, within max_context_bytes', async () => {
    const { device } = start();
    const m = device.ctx.memory;
    await m.store.write({ content: 'The owner runs every Tuesday evening in the park', importance: 0.8 }, null);
    await m.store.write({ content: 'The owner dislikes running in the rain' }, null);
    await m.store.write({ content: 'Grandmother birthday is on the fourth of May' }, null);
    const block = await m.relevantMemories('when do I go running', ['grandmother birthday'], null);
    const lines = block.split('\n');
    expect(lines.length).toBe(3);
    for (const l of lines) expect(l).toMatch(/^- \[\d\d%\] /);
    m.config.set({ max_context_bytes: 256 });
    await m.store.write({ content: `running ${'long text about running shoes and running tracks '.repeat(5)}` }, null);
    const small = await m.relevantMemories('running', [], null);
    expect(new TextEncoder().encode(small).length).toBeLessThanOrEqual(256);
    expect(await m.relevantMemories('', [], 'chat:nobody')).toBe('');
  });
});
