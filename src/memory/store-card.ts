// The vector store on the card and off it: opening the card's store (and
// merging what was learned without a card), running in RAM when the card
// goes, recording changes (journaled on the card before they apply, so a
// power cut loses at most the write in flight), compaction into the next
// snapshot, and moving memories to the archive.

import { HalError } from '../hal/index.ts';
import { sameEmbedding } from './embedder.ts';
import { DEGRADED_CAP } from './limits.ts';
import { termList } from './lexicon.ts';
import { coldJson, encodeRecord, idHalves } from './record-bin.ts';
import { encodeDelete, encodeFlush, type MemRecord } from './record.ts';
import { MemoryError, type Change, type StoreCore } from './store-types.ts';
import { VectorIndex, type TextWhere } from './vector-index.ts';

/**
 * Opens the card's store when a card is live (at boot, and when one comes
 * back). Returns true when the vectors on the card were made with another
 * embedding and must be re-embedded (reembed()).
 */
export function attachCard(s: StoreCore): boolean {
  if (!s.deps.cardLive()) return false;
  const t0 = s.deps.clock.monoMs();
  let index = new VectorIndex(s.emb.dims);
  let result;
  try {
    result = s.file.load({
      begin: (emb) => void (index = new VectorIndex(emb.dims)),
      record: (d, where) => void index.putHot(d.hot, null, d.vec, s.norm(d.vec), { terms: d.terms, length: d.hot.words }, where),
      legacy: (rec, vec) => void index.put(rec, vec.slice(), s.norm(vec), null),
      remove: (id) => void index.remove(id),
      flush: (keep) => {
        for (let r = index.count - 1; r >= 0; r--) if (!(keep && (index.permanentAt(r) || index.pinnedAt(r)))) index.remove(index.idOf(r));
      },
    });
  } catch (e) {
    s.deps.log.warn('mem', `vector store not readable from the card: ${String(e)}`);
    return false;
  }
  index.source = s.file;
  const offline = s.offline;
  s.index = index;
  s.degraded = false;
  s.offline = [];
  s.archive.unload();
  const stale = result.emb !== null && !sameEmbedding(result.emb, s.emb);
  if (result.torn) s.deps.log.warn('mem', 'vector journal had a torn tail; dropped');
  if (!stale) {
    if (result.torn || result.old) s.compact();
    // What was learned without a card joins the card's store.
    for (const op of offline) {
      if ('del' in op && !s.index.rowOf(op.del)) continue;
      try {
        s.commit([op]);
        if ('put' in op) s.unchecked.add(op.put.id);
      } catch (e) {
        s.deps.log.warn('mem', `merging a memory made without a card failed: ${String(e)}`);
      }
    }
    s.enforceCap();
  }
  s.deps.log.info('mem', `vector store on the card: ${s.index.count} memories in ${Math.round(s.deps.clock.monoMs() - t0)} ms${stale ? ' (re-embedding)' : ''}`);
  return stale;
}

/**
 * The card went away: memory runs in RAM under the degraded cap, with the
 * memories whose content it has in RAM (written or read lately: the
 * index's warm texts), the most important first. The others stay on the
 * card for its return.
 */
export function demoteToRam(s: StoreCore): void {
  if (s.degraded) return;
  s.file.close();
  s.archive.unload();
  s.degraded = true;
  const ix = s.index;
  const lost = ix.toRam().map((r) => ix.idOf(r));
  for (const id of lost) ix.remove(id);
  const order: number[] = [];
  for (let r = 0; r < ix.count; r++) order.push(r);
  order.sort((a, b) => Number(s.protectedAt(b)) - Number(s.protectedAt(a)) || ix.importanceOf(b) - ix.importanceOf(a));
  const drop = order.slice(DEGRADED_CAP).map((r) => ix.idOf(r));
  for (const id of drop) ix.remove(id);
  ix.source = null;
  s.deps.log.warn('mem', `no SD card: memory runs in RAM (${ix.count} kept, cap ${DEGRADED_CAP}; ${lost.length + drop.length} wait on the card)`);
}

/**
 * Records changes: journaled on the card when it is live, else kept for the
 * card's return; then applied to the index. A card that vanished demotes
 * the store and the change still applies in RAM; any other card failure
 * throws and nothing changes.
 */
export function commitChanges(s: StoreCore, changes: Change[]): void {
  const payloads: Uint8Array[] = [];
  const colds: Array<Uint8Array | null> = [];
  const terms = changes.map((c) => ('put' in c ? termList(c.put.content) : null));
  changes.forEach((c, i) => {
    if ('put' in c) {
      const cold = coldJson(c.put);
      colds.push(cold);
      payloads.push(encodeRecord(c.put, c.vec, terms[i]!.terms, terms[i]!.length, cold));
    } else {
      colds.push(null);
      payloads.push('del' in c ? encodeDelete(c.del) : encodeFlush(c.flush));
    }
  });
  let at: number[] | null = null;
  if (!s.degraded) {
    try {
      at = s.file.append(payloads, s.emb);
    } catch (e) {
      if (!(e instanceof HalError) || e.code !== 'ENOCARD') {
        throw new MemoryError('storage', `the memory could not be saved on the SD card (${e instanceof HalError ? e.code : String(e)}); nothing was changed`);
      }
      demoteToRam(s);
    }
  }
  changes.forEach((c, i) => {
    if ('put' in c) {
      const where: TextWhere | null = at ? { file: 2, off: at[i]! + payloads[i]!.length - colds[i]!.length, len: colds[i]!.length } : null;
      const [idHi, idLo] = idHalves(c.put.id);
      const cold = { content: c.put.content, source: c.put.source, metadata: c.put.metadata, ...(c.put.archivedAt !== undefined ? { archivedAt: c.put.archivedAt } : {}), ...(c.put.why !== undefined ? { why: c.put.why } : {}) };
      s.index.putHot({ ...c.put, idHi, idLo, words: terms[i]!.length }, cold, c.vec, c.norm, terms[i]!, where);
    } else if ('del' in c) s.index.remove(c.del);
    else s.applyFlush(c.flush);
  });
  if (!at) {
    s.offline.push(...changes);
    if (s.offline.length > 4 * DEGRADED_CAP) s.offline.splice(0, s.offline.length - 4 * DEGRADED_CAP);
  }
}

/** Rewrites every memory into the next snapshot (their content read back from the card in file order); the journal starts empty. */
export function compactStore(s: StoreCore): void {
  if (s.degraded) return;
  const ix = s.index;
  const coldAt = new Uint32Array(ix.count);
  const coldLen = new Uint32Array(ix.count);
  try {
    const at = s.file.compact(s.emb, ix.count, (r) => {
      const cold = coldJson(ix.cold(r));
      const p = encodeRecord(ix.rec(r), ix.vector(r), ix.terms(r), ix.wordsOf(r), cold);
      coldAt[r] = p.length - cold.length;
      coldLen[r] = cold.length;
      return p;
    }, s.deps.feed);
    for (let r = 0; r < at.length; r++) ix.relocate(r, { file: 1, off: at[r]! + coldAt[r]!, len: coldLen[r]! });
  } catch (e) {
    s.deps.log.warn('mem', `compaction failed (the journal stays valid): ${String(e)}`);
  }
}

/** Moves rows' memories to the archive (before they leave the working set). */
export function archiveRows(s: StoreCore, rows: number[], why: string): void {
  if (s.degraded || !rows.length) return;
  try {
    s.archive.add(
      rows.map((r) => [s.index.rec(r), s.index.vector(r).slice(), s.index.norms[r]!] as [MemRecord, Int8Array, number]),
      why,
      s.now(),
    );
  } catch (e) {
    s.deps.log.warn('mem', `archiving ${rows.length} memories failed: ${String(e)}`);
  }
}
