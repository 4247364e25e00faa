// The offline embedder that carries meaning: a static table of one int8 row
// per SentencePiece piece (tools/embed-table.mjs derives it from Universal
// Sentence Encoder Lite; it ships in the image's assets), a text's vector is
// the SIF-weighted sum of its pieces' rows. No network, no model run: a
// unigram tokenization and a few thousand multiply-adds per text.
//
// The tokenizer is the encoder's own (SentencePiece unigram, Viterbi over the
// pieces' log-probabilities, as @energetic-ai/embeddings implements it, quirks
// included, so a text splits as the table was made for; test/unit/memory/
// embed-static.test.ts checks it against that implementation). Text is NFKC
// normalized where the engine can, whitespace runs become one '▁'.
//
// XS: the table is read in place (typed arrays over the image's assets, no
// copy), pieces are looked up by an FNV-1a hash of their UTF-16 code units in
// an open-addressing table made by the tool, and the hash grows with the
// candidate so each position costs one pass.

import type { Assets } from '../hal/assets.ts';
import { decode } from '../util/utf8.ts';
import { replaceEvery } from '../util/replace.ts';
import { OFFLINE_PROVIDER, type Embedder, type EmbeddingConfig } from './embedder.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const WHITESPACE = /\s+/;
const SEPARATOR = 0x2581; // '▁'

/** The table's header (embed.json). */
export interface TableHeader {
  model: string;
  dims: number;
  pieces: number;
  reserved: number;
  maxPieceUnits: number;
  scale: number;
  sifA: number;
  /** Typical cosine of two unrelated texts under this table (the squared length of embed.mean; informative). */
  c0: number;
  hashCap: number;
}

function view<T>(assets: Assets, name: string, make: (b: ArrayBufferLike, off: number, n: number) => T, size: number): T | null {
  const bytes = assets.get(name);
  if (!bytes || bytes.byteLength % size !== 0) return null;
  return make(bytes.buffer, bytes.byteOffset, bytes.byteLength / size);
}

export class StaticTable {
  private constructor(
    readonly header: TableHeader,
    readonly rows: Int8Array,
    readonly weights: Float32Array,
    readonly mean: Float32Array,
    private readonly scores: Float32Array,
    private readonly units: Uint16Array,
    private readonly start: Uint32Array,
    private readonly hash: Uint16Array,
  ) {}

  /** The table in the image's assets, or null when the image has none (or a damaged one). */
  static from(assets: Assets): StaticTable | null {
    const json = assets.get('embed.json');
    if (!json) return null;
    let h: TableHeader;
    try {
      h = JSON.parse(decode(json)) as TableHeader;
    } catch {
      return null;
    }
    const rows = view(assets, 'embed.rows', (b, o, n) => new Int8Array(b, o, n), 1);
    const weights = view(assets, 'embed.weights', (b, o, n) => new Float32Array(b, o, n), 4);
    const scores = view(assets, 'embed.scores', (b, o, n) => new Float32Array(b, o, n), 4);
    const mean = view(assets, 'embed.mean', (b, o, n) => new Float32Array(b, o, n), 4);
    const units = view(assets, 'embed.units', (b, o, n) => new Uint16Array(b, o, n), 2);
    const start = view(assets, 'embed.start', (b, o, n) => new Uint32Array(b, o, n), 4);
    const hash = view(assets, 'embed.hash', (b, o, n) => new Uint16Array(b, o, n), 2);
    if (!rows || !weights || !scores || !mean || !units || !start || !hash) return null;
    if (rows.length !== h.pieces * h.dims || weights.length !== h.pieces || scores.length !== h.pieces || mean.length !== h.dims || start.length !== h.pieces + 1 || hash.length !== h.hashCap)
      return null;
    return new StaticTable(h, rows, weights, mean, scores, units, start, hash);
  }

  /** The piece whose code units are t[from..to), or -1. */
  private lookup(t: Uint16Array, from: number, to: number, h: number): number {
    const mask = this.header.hashCap - 1;
    const len = to - from;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const e = this.hash[slot]!;
      if (e === 0) return -1;
      const id = e - 1;
      const s = this.start[id]!;
      if (this.start[id + 1]! - s !== len) continue;
      let i = 0;
      while (i < len && this.units[s + i] === t[from + i]) i++;
      if (i === len) return id;
    }
  }

  /** The text as the encoder's pieces (ids), unknown characters as 0 (merged when consecutive). */
  tokenize(text: string): number[] {
    let s = replaceEvery(text, WHITESPACE, ' ').trim();
    try {
      s = s.normalize('NFKC');
    } catch {
      // an engine without normalization: the text as it is
    }
    if (!s) return [];
    const n = s.length + 1;
    const t = new Uint16Array(n);
    t[0] = SEPARATOR;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      t[i + 1] = c === 0x20 ? SEPARATOR : c;
    }
    // best[end]: the best score of a split of t[0..end); 0 also means "none yet", as in the reference
    const best = new Float64Array(n + 1);
    const word = new Int32Array(n + 1);
    const wlen = new Uint8Array(n + 1);
    const maxLen = this.header.maxPieceUnits;
    for (let i = 0; i < n; i++) {
      let h = 0x811c9dc5;
      let found = false;
      const last = Math.min(n, i + maxLen);
      for (let j = i; j < last; j++) {
        h = Math.imul(h ^ t[j]!, 0x01000193);
        const id = this.lookup(t, i, j + 1, h >>> 0);
        if (id < 0) continue;
        found = true;
        const score = this.scores[id]! + best[i]!;
        const end = j + 1;
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score;
          word[end] = id;
          wlen[end] = end - i;
        }
      }
      if (!found) {
        // no piece starts here: the unknown piece, one unit long, score 0
        const score = best[i]!;
        if (best[i + 1] === 0 || score >= best[i + 1]!) {
          best[i + 1] = score;
          word[i + 1] = 0;
          wlen[i + 1] = 1;
        }
      }
    }
    const ids: number[] = [];
    for (let end = n; end > 0; end -= wlen[end]!) {
      const id = word[end]!;
      if (!(id === 0 && ids.length && ids[ids.length - 1] === 0)) ids.push(id);
    }
    return ids.reverse();
  }

  /** The SIF-weighted sum of the text's pieces' rows (not normalized). */
  pool(text: string, out = new Float32Array(this.header.dims)): Float32Array {
    const dims = this.header.dims;
    out.fill(0);
    for (const id of this.tokenize(text)) {
      const w = this.weights[id]!;
      if (!w) continue;
      const rows = this.rows;
      for (let k = 0, o = id * dims; k < dims; k++, o++) out[k] = out[k]! + w * rows[o]!;
    }
    return out;
  }
}

export class StaticEmbedder implements Embedder {
  readonly config: EmbeddingConfig;

  constructor(readonly table: StaticTable) {
    this.config = { provider: OFFLINE_PROVIDER, model: table.header.model, dims: table.header.dims };
  }

  get mean(): Float32Array {
    return this.table.mean;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((t) => this.table.pool(t)));
  }
}
