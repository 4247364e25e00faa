// Retrieval for the prompt's relevant-memories block: candidates from every
// query (the user's text and the turn's mem_query strings) by cosine, then
// the relevance threshold, a ranking that favours important and recent
// memories, maximal marginal relevance for variety, retrieval_count and the
// block's byte budget (max_context_bytes, whole lines only).
//
// rank = cosine x (0.8 + 0.2 x importance) x recency, where recency is
// 0.7 + 0.3 x 2^(-age / recency_half_life_hours) (1 for permanent and pinned
// memories, and when the half-life is 0). MMR picks, one at a time, the
// candidate maximizing mmr_lambda x rank - (1 - mmr_lambda) x (its highest
// cosine to those already picked); mmr_lambda 1 is plain ranking.

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
  /** Best cosine over the queries (what the '[NN%]' shows). */
  score: number;
  rank: number;
}

function recency(rec: MemRecord, now: number, halfLife: number): number {
  if (halfLife <= 0 || rec.permanent || rec.pinned) return 1;
  const ageH = Math.max(0, now - rec.updatedAt) / 3600_000;
  return 0.7 + 0.3 * Math.pow(2, -ageH / halfLife);
}

/** One line of a memory list: '- [NN%] content'. */
export function hitLine(score: number, content: string): string {
  const pct = Math.max(0, Math.min(100, Math.round(score * 100)));
  return `- [${pct < 10 ? '0' : ''}${pct}%] ${replaceEvery(content, LINE_BREAK_RUNS, ' ')}`;
}

export async function retrieve(store: VectorStore, queries: string[], person: string | null, cfg: MemoryConfig, now: number): Promise<Ranked[]> {
  const texts = queries.map((q) => (typeof q === 'string' ? q.trim() : '')).filter(Boolean);
  if (!texts.length || store.index.count === 0) return [];
  const vecs = await store.embedQ(texts);
  const pool = Math.min(100, cfg.retrieval_count * 3);
  const best = new Map<string, { rec: MemRecord; score: number }>();
  for (const { q, norm } of vecs) {
    for (const h of store.searchVec(q, norm, person, pool, cfg.relevance_threshold)) {
      const prev = best.get(h.rec.id);
      if (!prev || h.score > prev.score) best.set(h.rec.id, h);
    }
  }
  const cands: Ranked[] = [...best.values()].map((h) => ({
    rec: h.rec,
    score: h.score,
    rank: h.score * (0.8 + 0.2 * h.rec.importance) * recency(h.rec, now, cfg.recency_half_life_hours),
  }));
  cands.sort((a, b) => b.rank - a.rank);
  const picked: Ranked[] = [];
  const lambda = cfg.mmr_lambda;
  const rows = (r: Ranked): number => store.index.rowOf(r.rec.id)!;
  while (picked.length < cfg.retrieval_count && cands.length) {
    let bestI = 0;
    let bestV = -Infinity;
    for (let i = 0; i < cands.length; i++) {
      let sim = 0;
      if (lambda < 1) for (const p of picked) sim = Math.max(sim, store.index.cosine(store.vecdot, rows(cands[i]!), rows(p)));
      const v = lambda * cands[i]!.rank - (1 - lambda) * sim;
      if (v > bestV) {
        bestV = v;
        bestI = i;
      }
    }
    picked.push(cands.splice(bestI, 1)[0]!);
  }
  return picked;
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
