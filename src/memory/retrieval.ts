// The one retrieval of long-term memory: memory.search, GET /api/mem/vector
// ?query= and the prompt's relevant-memories block all ask it. Candidates
// from every query (ranking.ts: by meaning and by words, fused into one
// relevance), then the memory config: the relevance threshold, a ranking that
// favours important and recent memories, maximal marginal relevance for
// variety, the count asked for; the prompt's block also fits max_context_bytes
// (whole lines only).
//
// rank = (sem + lex) x (0.8 + 0.2 x importance) x recency, recency being
// 0.7 + 0.3 x 2^(-age / recency_half_life_hours) (1 for permanent and pinned
// memories, and when the half-life is 0). MMR picks, one at a time, the
// candidate maximizing mmr_lambda x rank - (1 - mmr_lambda) x (its highest
// calibrated similarity to those already picked); mmr_lambda 1 is plain ranking.

import { capBytes } from '../util/cap.ts';
import { utf8Length } from '../util/utf8.ts';
import type { MemoryConfig } from './config.ts';
import type { MemRecord } from './record.ts';
import type { VectorStore } from './vector-store.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAK_RUNS = /\s*\n\s*/;

export interface Ranked {
  rec: MemRecord;
  /** Relevance 0-1 (what '[NN%]' shows): ranking.ts. */
  score: number;
  rank: number;
}

function recency(store: VectorStore, row: number, now: number, halfLife: number): number {
  const ix = store.index;
  if (halfLife <= 0 || ix.permanentAt(row) || ix.pinnedAt(row)) return 1;
  const ageH = Math.max(0, now - ix.updatedAtOf(row)) / 3600_000;
  return 0.7 + 0.3 * Math.pow(2, -ageH / halfLife);
}

/** One line of a memory list: '- [NN%] content' (two digits, as the spec writes it: a full match shows 99). */
export function hitLine(score: number, content: string): string {
  const pct = Math.max(0, Math.min(99, Math.round(score * 100)));
  return `- [${pct < 10 ? '0' : ''}${pct}%] ${replaceEvery(content, LINE_BREAK_RUNS, ' ')}`;
}

/** Candidates considered per query and side, for n asked: enough for MMR to choose among. */
export function poolFor(n: number): number {
  return Math.min(200, Math.max(50, n * 4));
}

/** The memories that answer the queries, as the memory config orders them (n: how many; default retrieval_count). */
export async function retrieve(store: VectorStore, queries: string[], person: string | null, cfg: MemoryConfig, now: number, n = cfg.retrieval_count): Promise<Ranked[]> {
  const found = await store.candidates(queries, person, poolFor(n));
  const cands = found
    .filter((c) => c.rel >= cfg.relevance_threshold)
    .map((c) => ({ score: c.rel, row: c.row, rank: c.fused * (0.8 + 0.2 * store.index.importanceOf(c.row)) * recency(store, c.row, now, cfg.recency_half_life_hours) }));
  cands.sort((a, b) => b.rank - a.rank || a.row - b.row);
  // MMR chooses among the best few; each pick updates the others' highest similarity once
  const pool = cands.slice(0, Math.max(20, n * 3));
  const maxSim = new Float64Array(pool.length);
  const picked: typeof cands = [];
  const lambda = cfg.mmr_lambda;
  while (picked.length < n && pool.length) {
    let bestI = 0;
    let bestV = -Infinity;
    for (let i = 0; i < pool.length; i++) {
      const v = lambda * pool[i]!.rank - (1 - lambda) * maxSim[i]!;
      if (v > bestV) {
        bestV = v;
        bestI = i;
      }
    }
    const p = pool.splice(bestI, 1)[0]!;
    maxSim.copyWithin(bestI, bestI + 1);
    picked.push(p);
    if (lambda < 1) for (let i = 0; i < pool.length; i++) maxSim[i] = Math.max(maxSim[i]!, store.similarity(pool[i]!.row, p.row));
  }
  // only the memories returned are read back from the card
  return picked.map((p) => ({ rec: store.index.rec(p.row), score: p.score, rank: p.rank }));
}

/** The block's lines within maxBytes (whole lines; a first line longer than the budget is cut). */
export function formatBlock(hits: Ranked[], maxBytes: number): string {
  const lines: string[] = [];
  let used = 0;
  for (const h of hits) {
    let line = hitLine(h.score, h.rec.content);
    const need = utf8Length(line) + (lines.length ? 1 : 0);
    if (used + need > maxBytes) {
      if (lines.length) break;
      line = capBytes(line, maxBytes);
    }
    lines.push(line);
    used += need;
  }
  return lines.join('\n');
}
