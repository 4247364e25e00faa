// Retrieval quality of the offline embedder on a small labelled set
// (test/fixtures/memory-recall.ts: 60 memories, 20 queries), through the real
// store and search: recall@5 is the share of queries whose expected memory
// is among the first five hits. Measured: 20/20 (recall@1 18/20). The floor
// asserted is 0.85 (17/20): the embedder is lexical, so a change of features
// may trade a hit or two, but falling below that means paraphrases sharing
// a word no longer find their memory, which a person would notice.
import { describe, expect, it } from 'vitest';
import { mountMemory, testKernel } from '../../support/kernel.ts';
import { MEMORIES, QUERIES } from '../../fixtures/memory-recall.ts';

describe('offline embedder retrieval quality', () => {
  it('finds the labelled memory in the top 5 for at least 85% of the queries', async () => {
    const store = mountMemory(testKernel().kernel).store;
    for (const m of MEMORIES) await store.write({ content: m }, null);
    expect(store.index.count).toBe(MEMORIES.length);
    let at5 = 0;
    let at1 = 0;
    for (const { q, expect: want } of QUERIES) {
      const hits = await store.search(q, null, 5, 0);
      const rank = hits.findIndex((h) => h.rec.content === MEMORIES[want]);
      if (rank >= 0) at5++;
      if (rank === 0) at1++;
    }
    const recall5 = at5 / QUERIES.length;
    console.log(`offline embedder: recall@5 ${recall5.toFixed(2)} (${at5}/${QUERIES.length}), recall@1 ${(at1 / QUERIES.length).toFixed(2)}`);
    expect(recall5).toBeGreaterThanOrEqual(0.85);
  });
});
