// Runs ON XS (build/sim/xsim --standalone): the long-term memory store's
// search as the firmware runs it (VectorIndex.topk: namespace norms, then the
// vecdot hotspot) over 400, 6000 and 60000 vectors x 256 dims, with the C
// hotspot and with the TypeScript fallback; the offline embedders' time for
// a query (the static word table from the image's assets, and feature
// hashing); and the XS heap each stored memory costs (its columns, vector of
// the default 100 dims, norm and term list; the content stays on the card).
// The search vectors are the same pseudo-random int8 data bench/memory.mjs
// gives usearch in Node. Prints JSON lines.

import { vecdotFallback, vecdotNative, type NativeVecdot, type VecdotApi } from '../../modules/vecdot/vecdot.ts';
import { OfflineEmbedder } from '../../src/memory/embed-offline.ts';
import { StaticTable } from '../../src/memory/embed-static.ts';
import { readAssetPack } from '../../src/util/asset-pack.ts';
import type { MemRecord } from '../../src/memory/record.ts';
import { VectorIndex } from '../../src/memory/vector-index.ts';
import { quantize } from '../../modules/vecdot/vecdot.ts';

declare const __sim: { print(text: string): void; monoMs(): number; gc(): void; heap(): { now: number }; assets?: ArrayBuffer };
declare const __native: NativeVecdot;

const emit = (o: Record<string, unknown>): void => __sim.print(JSON.stringify(o));
const DIMS = 256;

/** xorshift32 from a fixed seed; bench/memory.mjs has the same generator. */
function data(rows: number, seed: number, dims = DIMS): Int8Array {
  const m = new Int8Array(rows * dims);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < m.length; i += 4) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    m[i] = s;
    m[i + 1] = s >> 8;
    m[i + 2] = s >> 16;
    m[i + 3] = s >> 24;
  }
  return m;
}

function record(i: number): MemRecord {
  return {
    id: i.toString(16).padStart(16, '0'),
    ns: '',
    content: `memory number ${i} `.padEnd(100, 'x'),
    importance: 0.5,
    ttlHours: 720,
    createdAt: 1795424400000,
    updatedAt: 1795424400000,
    source: 'self',
    creator: false,
    permanent: false,
    pinned: false,
    metadata: null,
    bytes: 100,
  };
}

/** An index as the store holds it with a card: the content's place on the card, not the content. */
function build(rows: number, vecdot: VecdotApi, dims = DIMS): VectorIndex {
  const m = data(rows, 0x9e3779b9, dims);
  const index = new VectorIndex(dims, rows);
  for (let r = 0; r < rows; r++) {
    const v = m.subarray(r * dims, (r + 1) * dims);
    index.put(record(r), v, Math.fround(Math.sqrt(vecdot.dot(v, v))), { file: 1, off: r * 200, len: 120 });
  }
  return index;
}

function searchMs(index: VectorIndex, api: VecdotApi, reps: number): { best: number; median: number; top: number } {
  const queries = data(reps, 0x12345678);
  const times: number[] = [];
  let top = -1;
  for (let r = 0; r < reps; r++) {
    const q = queries.subarray(r * DIMS, (r + 1) * DIMS);
    const qnorm = Math.fround(Math.sqrt(api.dot(q, q)));
    const t0 = __sim.monoMs();
    const hits = index.topk(api, q, qnorm, 5, '');
    times.push(__sim.monoMs() - t0);
    if (r === 0) top = hits[0]!.row;
  }
  times.sort((a, b) => a - b);
  return { best: times[0]!, median: times[times.length >> 1]!, top };
}

const C = vecdotNative(__native);
for (const [rows, repsC, repsTs] of [
  [400, 500, 20],
  [6000, 200, 3],
  [60000, 60, 1],
] as const) {
  const index = build(rows, C);
  emit({ what: `search-c-${rows}`, ...searchMs(index, C, repsC) });
  emit({ what: `search-ts-${rows}`, ...searchMs(index, vecdotFallback, repsTs) });
}

// The offline embedders on a typical query, then quantization.
const text = 'when is the weekly team meeting with the design group';
const bestOf = (f: () => void): number => {
  let best = Infinity;
  for (let i = 0; i < 20; i++) {
    const t0 = __sim.monoMs();
    f();
    best = Math.min(best, __sim.monoMs() - t0);
  }
  return best;
};
const hashing = new OfflineEmbedder(256);
emit({ what: 'embed-query', best: bestOf(() => quantize(hashing.embedOne(text))) });
const table = StaticTable.from(readAssetPack(__sim.assets));
if (table) emit({ what: 'embed-query-table', best: bestOf(() => quantize(table.pool(text))), model: table.header.model });

// Heap per stored memory: 6000 records (the default 100 dims), after a full GC each side.
__sim.gc();
const before = __sim.heap().now;
const held = build(6000, C, 100);
__sim.gc();
const after = __sim.heap().now;
emit({ what: 'bytes-per-memory', bytes: (after - before) / held.count, vectorBytes: held.vectorBytes() / held.count, lexicalBytes: held.lexicalBytes() / held.count });
