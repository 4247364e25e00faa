// The offline embedder: memory works out of the box, with no network and no
// key. Feature hashing of word unigrams (lightly stemmed, stop words out),
// adjacent word bigrams and character trigrams of each word into `dims`
// signed buckets, then L2-normalized. Lexical, not semantic: a query finds a
// memory when they share words or word stems (recall measured in
// test/unit/memory/recall.test.ts). Since the static table (embed-static.ts)
// carries meaning this is the fallback of an image without it, and the
// baseline the recall bench measures beside it. Deterministic across hosts and versions:
// the model name changes if the features ever do.
//
// XS: the text is lowercased once, walked once with for...of, and words are
// kept as arrays of code points and hashed as numbers (no string building).

import { HASH_EMBEDDING, HASH_MODEL, OFFLINE_PROVIDER, type Embedder, type EmbeddingConfig } from './embedder.ts';

const W_WORD = 1.0;
const W_BIGRAM = 0.3;
const W_TRIGRAM = 0.6;
const TRIGRAM_WORD_MAX = 24;

const STOP_WORDS =
  'a an and are as at be been but by can could did do does for from had has have he her hers him his how i if in into is it its ' +
  'me my no not of on or our ours she so than that the their them then there these they this those to too us was we were what ' +
  'when where which who whom why will with would you your yours about also just very';

function fnv(cps: ArrayLike<number>, from: number, to: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = from; i < to; i++) {
    h ^= cps[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's finalizer: spreads the bits so index and sign are independent. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function isWordChar(c: number): boolean {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
  // Non-ASCII letters count as word characters; common punctuation and spaces do not.
  return !(c >= 0x2000 && c <= 0x206f) && c !== 0xa0 && c !== 0x3000 && !(c >= 0x3001 && c <= 0x303f) && !(c >= 0xff01 && c <= 0xff0f);
}

function codes(word: string): number[] {
  const out: number[] = [];
  for (const ch of word) out.push(ch.codePointAt(0)!);
  return out;
}

const STOP = new Set(STOP_WORDS.split(' ').map((w) => { const c = codes(w); return fnv(c, 0, c.length, 0); }));

const VOWELS = [0x61, 0x65, 0x69, 0x6f, 0x75];

const SUFFIXES = ['ing', 'edly', 'ed', 'ies', 'es', 's', 'ly', 'er'].map(codes);

/** Length of the word's stem: a common English suffix off words long enough to have one. */
function stemLength(w: number[]): number {
  for (const suf of SUFFIXES) {
    const n = w.length - suf.length;
    if (n < 3) continue;
    let match = true;
    for (let i = 0; i < suf.length; i++) if (w[n + i] !== suf[i]) { match = false; break; }
    if (!match) continue;
    if (suf.length === 1 && w[n - 1] === 0x73) continue; // 'ss' (class, glass) keeps its s
    // running -> run, stopped -> stop: a doubled consonant left by the suffix goes too
    const last = w[n - 1]!;
    if (suf.length >= 2 && n > 3 && last === w[n - 2] && last !== 0x6c && last !== 0x73 && last !== 0x7a && !VOWELS.includes(last)) return n - 1;
    return n;
  }
  return w.length;
}

export class OfflineEmbedder implements Embedder {
  readonly config: EmbeddingConfig;

  constructor(dims = HASH_EMBEDDING.dims) {
    this.config = { provider: OFFLINE_PROVIDER, model: HASH_MODEL, dims };
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((t) => this.embedOne(t)));
  }

  embedOne(text: string): Float32Array {
    const dims = this.config.dims;
    const v = new Float32Array(dims);
    const add = (h: number, w: number): void => {
      const m = mix(h);
      v[m % dims] += m & 0x80000000 ? -w : w;
    };
    let prev = -1;
    const word: number[] = [];
    const flush = (): void => {
      if (!word.length) return;
      const whole = fnv(word, 0, word.length, 0);
      if (!STOP.has(whole)) {
        const stem = fnv(word, 0, stemLength(word), 1);
        add(stem, W_WORD);
        if (prev >= 0) add(Math.imul(prev, 31) ^ stem ^ 0x5bd1e995, W_BIGRAM);
        prev = stem;
        // Character trigrams with word boundaries (^ab, abc, ..., yz$), weighted
        // 1/sqrt(count) so that one long word cannot outweigh the words.
        if (word.length > TRIGRAM_WORD_MAX) word.length = TRIGRAM_WORD_MAX;
        word.unshift(0x5e);
        word.push(0x24);
        const w = W_TRIGRAM / Math.sqrt(word.length - 2);
        for (let i = 0; i + 3 <= word.length; i++) add(fnv(word, i, i + 3, 2), w);
      }
      word.length = 0;
    };
    for (const ch of text.toLowerCase()) {
      const c = ch.codePointAt(0)!;
      if (isWordChar(c)) {
        if (word.length < 48) word.push(c);
      } else flush();
    }
    flush();
    let s = 0;
    for (let i = 0; i < dims; i++) s += v[i]! * v[i]!;
    if (s > 0) {
      const k = 1 / Math.sqrt(s);
      for (let i = 0; i < dims; i++) v[i] = v[i]! * k;
    }
    return v;
  }
}
