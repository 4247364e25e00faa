// The words of a memory as the lexical ranking counts them: lowercase words
// (a-z and digits, and runs of other letters), common English function words
// out, English words reduced to their Porter stem, each CJK character a word
// of its own; a word is kept as a 32-bit FNV-1a hash of its stem with the low
// three bits cleared, which is how modules/lexical stores a term (the low bits
// carry the count). A changed rule here changes what the stored term lists
// mean: LEXICON_ID names the rules, and a store whose lists were made under
// another id rebuilds them (vector-store.ts).

import { stem } from './stem.ts';
import { MAX_QUERY_TERMS, TF_MASK } from '../../modules/lexical/lexical.ts';

export const LEXICON_ID = 'porter-1';

const STOP_WORDS =
  'a an and are as at be been but by can could did do does for from had has have he her hers him his how i if in into is it its ' +
  'me my no not of on or our ours she so than that the their them then there these they this those to too us was we were what ' +
  'when where which who whom why will with would you your yours about also just very';

const STOP = new Set(STOP_WORDS.split(' '));
/** A word longer than this is cut (a pasted key or URL is one long "word"). */
const WORD_MAX = 40;

function hashWord(w: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
  return (h & ~TF_MASK) >>> 0;
}

function isCjk(c: number): boolean {
  return (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff);
}

function isWordChar(c: number): boolean {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
  // Other letters count; general punctuation, spaces and CJK punctuation do not.
  return !(c >= 0x2000 && c <= 0x206f) && c !== 0xa0 && c !== 0x3000 && !(c >= 0x3001 && c <= 0x303f) && !(c >= 0xff01 && c <= 0xff0f);
}

/** Calls visit(hash, word) for each counted word of text, in order (the word as stemmed). */
function eachTerm(text: string, visit: (h: number, word: string) => void): void {
  const lower = text.toLowerCase();
  let start = -1;
  let ascii = true;
  const flush = (end: number): void => {
    if (start < 0) return;
    let w = lower.slice(start, Math.min(end, start + WORD_MAX));
    start = -1;
    if (STOP.has(w)) return;
    if (ascii) w = stem(w);
    visit(hashWord(w), w);
  };
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (isCjk(c)) {
      flush(i);
      visit(hashWord(lower[i]!), lower[i]!);
    } else if (isWordChar(c)) {
      if (start < 0) {
        start = i;
        ascii = true;
      }
      if (c >= 0x80) ascii = false;
    } else flush(i);
  }
  flush(lower.length);
}

export interface TermList {
  /** Distinct terms, each hash | min(count, 7). */
  terms: Uint32Array;
  /** Words counted (the row's length for BM25), at most 65535. */
  length: number;
}

/** A memory's term list. */
export function termList(text: string): TermList {
  const counts = new Map<number, number>();
  let n = 0;
  eachTerm(text, (h) => {
    counts.set(h, (counts.get(h) ?? 0) + 1);
    n++;
  });
  const terms = new Uint32Array(counts.size);
  let i = 0;
  for (const [h, c] of counts) terms[i++] = (h | Math.min(c, TF_MASK)) >>> 0;
  return { terms, length: Math.min(n, 0xffff) };
}

/** A query's distinct terms (at most MAX_QUERY_TERMS, first ones first). */
export function queryTerms(text: string): Uint32Array {
  const seen: number[] = [];
  eachTerm(text, (h) => {
    if (seen.length < MAX_QUERY_TERMS && !seen.includes(h)) seen.push(h);
  });
  return Uint32Array.from(seen);
}

/**
 * A matcher of texts holding every counted word of `query` (stems, any order,
 * any case: "budget meetings" finds "the meeting about the budget"), or the
 * query as it is written. A stem is a prefix of the words it stands for, so a
 * text that lacks one as a substring is passed over without being split.
 */
export function wordsMatcher(query: string): (text: string) => boolean {
  const literal = query.toLowerCase();
  const stems: string[] = [];
  const hashes: number[] = [];
  eachTerm(query, (h, w) => {
    if (!hashes.includes(h)) {
      hashes.push(h);
      stems.push(w);
    }
  });
  return (text) => {
    const lower = text.toLowerCase();
    if (lower.includes(literal)) return true;
    if (!stems.length || !stems.every((s) => lower.includes(s))) return false;
    const have = new Set<number>();
    eachTerm(text, (h) => void have.add(h));
    return hashes.every((h) => have.has(h));
  };
}

/**
 * Cosine of two term lists as count vectors (counts saturated at 7): 1 for the
 * same words in any order, whatever the case, punctuation or stop words.
 */
export function termCosine(a: Uint32Array, b: Uint32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const ta = a[i]! & TF_MASK;
    na += ta * ta;
    const h = (a[i]! & ~TF_MASK) >>> 0;
    for (let j = 0; j < b.length; j++) if ((b[j]! & ~TF_MASK) >>> 0 === h) dot += ta * (b[j]! & TF_MASK);
  }
  for (let j = 0; j < b.length; j++) nb += (b[j]! & TF_MASK) * (b[j]! & TF_MASK);
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** A term list as distinct query terms (counts cleared). */
export function asQuery(terms: Uint32Array): Uint32Array {
  const q = new Uint32Array(Math.min(terms.length, MAX_QUERY_TERMS));
  for (let i = 0; i < q.length; i++) q[i] = (terms[i]! & ~TF_MASK) >>> 0;
  return q;
}
