// The one retrieval (src/memory/ranking.ts, retrieval.ts) on the image's
// static table, through memory.search as a person asks it: it finds by
// meaning what shares no word with the query, and by words what the table
// barely tells apart; each knob of the memory config shows its effect (the
// relevance threshold, importance, recency, MMR), and memory.search, GET
// /api/mem/vector?query= and the prompt's block answer the same memories in
// the same order.
import { describe, expect, it } from 'vitest';
import type { Memory } from '../../../src/memory/index.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { mountMemory, testKernel } from '../../support/kernel.ts';
import { bootMemory } from './rig.ts';
import { createMemHal } from '../../support/memhal.ts';
import { request } from '../../support/http.ts';
import { HTTP_PORT } from '../../support/kernel.ts';

const OWNER: ToolCaller = { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null };
const HOUR = 3600_000;

function memory(): { m: Memory; mem: ReturnType<typeof createMemHal> } {
  const mem = createMemHal();
  return { m: mountMemory(testKernel({ mem }).kernel), mem };
}

async function search(m: Memory, query: string, n = 5): Promise<string[]> {
  return (await m.search(query, null, n)).map((h) => h.rec.content);
}

const FACTS = [
  'Anna and I got married in June 2019',
  'The car needs new winter tyres before November',
  'My dentist appointment is every six months',
  'The office wifi password is written on the fridge',
  'I am learning to play the violin on Tuesdays',
  'Our cat Mia likes to sleep on the radiator',
];

describe('memory search by meaning and by words', () => {
  it('finds by meaning a memory that shares no word with the question', async () => {
    const { m } = memory();
    // the order alone (the threshold has its own test below)
    m.config.set({ relevance_threshold: 0 });
    for (const f of FACTS) await m.store.write({ content: f }, null);
    // no word in common (after stop words): found by the table, not by BM25
    expect((await search(m, 'who is my wife', 2))[0]).toBe(FACTS[0]);
    expect((await search(m, 'which musical instrument do I practise', 2))[0]).toBe(FACTS[4]);
    expect((await search(m, 'pet', 2))[0]).toBe(FACTS[5]);
  });

  it('finds by words what the meaning alone ranks low (rare words, names)', async () => {
    const { m } = memory();
    for (const f of FACTS) await m.store.write({ content: f }, null);
    await m.store.write({ content: 'Mia was adopted from the Brno shelter' }, null);
    const hits = await m.search('Brno', null, 3);
    expect(hits[0]!.rec.content).toBe('Mia was adopted from the Brno shelter');
  });

  it('the relevance threshold drops what is not related, and the line shows the relevance', async () => {
    const { m } = memory();
    for (const f of FACTS) await m.store.write({ content: f }, null);
    const q = 'quantum chromodynamics lecture notes';
    m.config.set({ relevance_threshold: 0 });
    expect((await m.search(q, null, 5)).length).toBe(5);
    m.config.set({ relevance_threshold: 0.2 });
    expect(await m.search(q, null, 5)).toEqual([]);
    const tool = await m.store.candidates(['wifi password'], null, 10);
    expect(m.store.index.rec(tool[0]!.row).content).toBe(FACTS[3]);
    expect(tool[0]!.rel).toBeGreaterThan(0.5);
  });

  it('importance lifts the more important of two equally relevant memories', async () => {
    const { m } = memory();
    m.config.set({ mmr_lambda: 1 });
    await m.store.write({ content: 'The spare key is under the blue flower pot', importance: 0.1 }, null);
    await m.store.write({ content: 'The spare key is kept by the neighbour Petra', importance: 0.9 }, null);
    expect((await search(m, 'where is the spare key', 2))[0]).toBe('The spare key is kept by the neighbour Petra');
    const { m: m2 } = memory();
    m2.config.set({ mmr_lambda: 1 });
    await m2.store.write({ content: 'The spare key is under the blue flower pot', importance: 0.9 }, null);
    await m2.store.write({ content: 'The spare key is kept by the neighbour Petra', importance: 0.1 }, null);
    expect((await search(m2, 'where is the spare key', 2))[0]).toBe('The spare key is under the blue flower pot');
  });

  it('recency favours what was written lately, unless the half-life is 0', async () => {
    const { m, mem } = memory();
    m.config.set({ mmr_lambda: 1 });
    await m.store.write({ content: 'The spare key is under the blue flower pot', ttl: 'months' }, null);
    await mem.clock.advance(1000 * HOUR);
    await m.store.write({ content: 'The spare key is kept by the neighbour Petra', ttl: 'months' }, null);
    const order = await search(m, 'where is the spare key', 2);
    expect(order[0]).toBe('The spare key is kept by the neighbour Petra');
    m.config.set({ recency_half_life_hours: 0 });
    const flat = await m.search('where is the spare key', null, 2);
    // without recency the order is relevance times importance alone: both importance 0.5
    expect(flat[0]!.rank).toBeGreaterThanOrEqual(flat[1]!.rank);
    expect(flat.map((h) => h.rec.content).sort()).toEqual(order.slice().sort());
  });

  it('MMR trades a near-repeat for a different memory when mmr_lambda is below 1', async () => {
    const { m } = memory();
    await m.store.write({ content: 'I went running in the park on Monday morning', importance: 0.9 }, null);
    await m.store.write({ content: 'I went running in the park on Tuesday morning', importance: 0.9 }, null);
    await m.store.write({ content: 'Running shoes should be replaced every 800 km', importance: 0.3 }, null);
    m.config.set({ mmr_lambda: 1 });
    const plain = await search(m, 'running', 2);
    expect(plain.every((c) => c.includes('in the park'))).toBe(true);
    m.config.set({ mmr_lambda: 0.3 });
    const varied = await search(m, 'running', 2);
    expect(varied).toContain('Running shoes should be replaced every 800 km');
  });
});

describe('one ranking everywhere', () => {
  it('memory.search, GET /api/mem/vector?query= and the prompt block list the same memories in the same order', async () => {
    const mem = createMemHal();
    const device = bootMemory(mem);
    const m = device.ctx.memory;
    for (const f of FACTS) await m.store.write({ content: f }, null);
    const q = 'when do I see the dentist and what about my wife';
    const tool = await device.ctx.tools.call('memory.search', { query: q, n_results: 3 }, OWNER);
    const toolLines = tool.output.split('\n');
    const res = await request(mem.net, HTTP_PORT, 'GET', `/api/mem/vector?query=${encodeURIComponent(q)}&limit=3`, { headers: { 'X-Device-Token': device.ctx.token.reveal() } });
    const api = JSON.parse(res.body) as { items: Array<{ content: string }> };
    m.config.set({ retrieval_count: 3 });
    const block = (await m.relevantMemories(q, [], null)).split('\n');
    expect(toolLines.map((l) => l.replace(/^- \[\d\d%\] /, ''))).toEqual(api.items.map((i) => i.content));
    expect(block).toEqual(toolLines);
    device.stop();
  });
});
