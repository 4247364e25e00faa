// The offline embedder that carries meaning: a static table of word vectors
// (tools/embed-table.mjs derives it from GloVe; it ships in the image's
// assets), a text's vector is the SIF-weighted sum of its words' vectors. No
// network, no model run: a table lookup and a few hundred multiply-adds per
// word.
//
// Words are what the table was made of: lowercase runs of ASCII letters and
// digits (the function words are not in the table, so they count for
// nothing); a word not in the table counts for nothing either (the lexical
// side still matches it by its letters, ranking.ts).
//
// XS: the table is read in place (typed arrays over the image's assets, no
// copy); a word is found by binary search in the table's words (stored in
// byte order); rows are 4-bit with a factor per row (its scale times its
// weight).

import type { Assets } from '../hal/assets.ts';
import { decode } from '../util/utf8.ts';
import { OFFLINE_PROVIDER, type Embedder, type EmbeddingConfig } from './embedder.ts';

/** The table's header (embed.json). */
export interface TableHeader {
  model: string;
  dims: number;
  words: number;
  maxWordBytes: number;
  sifA: number;
  /** Typical cosine of two unrelated texts under this table (the squared length of embed.mean; informative). */
  c0: number;
}

function view<T>(assets: Assets, name: string, make: (b: ArrayBufferLike, off: number, n: number) => T, size: number): T | null {
  const bytes = assets.get(name);
  if (!bytes || bytes.byteLength % size !== 0) return null;
  return make(bytes.buffer, bytes.byteOffset, bytes.byteLength / size);
}

const A = 0x61;
const Z = 0x7a;

export class StaticTable {
  private constructor(
    readonly header: TableHeader,
    /** 4-bit rows, two values per byte (low nibble first), stored + 8. */
    readonly rows: Uint8Array,
    /** Per word: its row's scale times its SIF weight. */
    readonly factor: Float32Array,
    readonly mean: Float32Array,
    private readonly chars: Uint8Array,
    private readonly start: Uint32Array,
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
    const rows = view(assets, 'embed.rows', (b, o, n) => new Uint8Array(b, o, n), 1);
    const factor = view(assets, 'embed.factor', (b, o, n) => new Float32Array(b, o, n), 4);
    const mean = view(assets, 'embed.mean', (b, o, n) => new Float32Array(b, o, n), 4);
    const chars = view(assets, 'embed.chars', (b, o, n) => new Uint8Array(b, o, n), 1);
    const start = view(assets, 'embed.start', (b, o, n) => new Uint32Array(b, o, n), 4);
    if (!rows || !factor || !mean || !chars || !start || h.dims % 2 !== 0) return null;
    const n = h.words;
    if (rows.length !== (n * h.dims) / 2 || factor.length !== n || mean.length !== h.dims || start.length !== n + 1 || start[n] !== chars.length) return null;
    return new StaticTable(h, rows, factor, mean, chars, start);
  }

  /** The index of the word whose bytes are w[0..len), or -1 (binary search: the words are in byte order). */
  private lookup(w: Uint8Array, len: number): number {
    let lo = 0;
    let hi = this.header.words - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.start[mid]!;
      const n = this.start[mid + 1]! - s;
      let c = 0;
      for (let i = 0; i < len && i < n && c === 0; i++) c = w[i]! - this.chars[s + i]!;
      if (c === 0) c = len - n;
      if (c === 0) return mid;
      if (c < 0) hi = mid - 1;
      else lo = mid + 1;
    }
    return -1;
  }

  /** The indices of the text's words that the table holds, in order. */
  words(text: string): number[] {
    const ids: number[] = [];
    const max = this.header.maxWordBytes;
    const w = new Uint8Array(max + 1);
    let len = 0;
    const flush = (): void => {
      if (len > 0 && len <= max) {
        const id = this.lookup(w, len);
        if (id >= 0) ids.push(id);
      }
      len = 0;
    };
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c >= 0x41 && c <= 0x5a) c += 0x20;
      if ((c >= A && c <= Z) || (c >= 0x30 && c <= 0x39)) {
        if (len <= max) w[len] = c;
        len++;
      } else flush();
    }
    flush();
    return ids;
  }

  /** The SIF-weighted sum of the text's words' vectors (not normalized). */
  pool(text: string, out = new Float32Array(this.header.dims)): Float32Array {
    const dims = this.header.dims;
    const half = dims >> 1;
    out.fill(0);
    const rows = this.rows;
    for (const id of this.words(text)) {
      const f = this.factor[id]!;
      for (let j = 0, o = id * half; j < half; j++, o++) {
        const b = rows[o]!;
        out[2 * j] = out[2 * j]! + f * ((b & 15) - 8);
        out[2 * j + 1] = out[2 * j + 1]! + f * ((b >> 4) - 8);
      }
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
