// The screen's fonts, made at build time from real typefaces (tools/font/
// sources.mjs: Noto Sans and Noto Sans CJK, SIL Open Font License 1.1): each
// glyph's outline (read with fontkit) is flattened and rasterized here with
// 16 sub-scanlines per pixel row and exact horizontal coverage, quantized to
// 4 bits (16 levels), and written in the device's glyph format, read by
// src/ui/face.ts:
//
//   font/<id>.json          {id, role (text, digits, cjk), px, ascent, descent,
//                           count, unitsPerEm, typeface, kern?}
//   font/<id>.cmap          Uint32 per glyph: its code point, ascending
//   font/<id>.metrics       Int16 x 6 per glyph: advance in 1/64 px, left,
//                           top (rows above the baseline), width, height, 0
//   font/<id>.offsets       Uint32 per glyph: where its rows start in .bits
//   font/<id>.bits          per glyph: one byte per row (the row's length in
//                           bytes), then the rows; a row is segments, each a
//                           skip byte (pixels from the end of the previous
//                           segment) and a header byte: bit 7 set = a solid
//                           run of (header & 127) fully covered pixels; clear
//                           = (header & 127) pixels of coverage, 4 bits each,
//                           high nibble first (0 = none, 15 = full)
//   font/kern-<typeface>.left, .right   Uint8 per glyph of the text faces
//                           (they share one glyph order): its kerning class
//   font/kern-<typeface>.values         Int16 [left * rightClasses + right],
//                           in font units (the pair adjustment of the GPOS
//                           'kern' feature, as HarfBuzz and browsers apply it)
//
// Solid runs are filled natively on the device; only the anti-aliased edge
// pixels cost a store each.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fontkit from 'fontkit';
import { cjkSet, DIGITS, europeanSet } from './font/charsets.mjs';
import { ensureTypefaces, TYPEFACES } from './font/sources.mjs';

/** Sub-scanlines per pixel row. */
const SUB = 16;
/** Flattening tolerance, pixels. */
const FLAT = 0.03;
/** Bump when the format or the rasterizer changes: the cache is keyed on it. */
export const FONT_FORMAT = 3;

/**
 * The faces: body, title and small text sizes of the four boards (src/ui/
 * layout.ts picks them by px), the clock's digit sizes, and the CJK set at
 * one size.
 */
export const TEXT_SIZES = [14, 18, 20, 28];
export const DIGIT_SIZES = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160];
export const CJK_SIZE = 20;

export function faceList() {
  return [
    ...TEXT_SIZES.map((px) => ({ id: `sans-${px}`, role: 'text', px, typeface: 'sans', kern: 'sans' })),
    ...DIGIT_SIZES.map((px) => ({ id: `digits-${px}`, role: 'digits', px, typeface: 'sans' })),
    { id: `cjk-${CJK_SIZE}`, role: 'cjk', px: CJK_SIZE, typeface: 'cjk' },
  ];
}

let opened = {};
function openTypeface(name) {
  if (opened[name]) return opened[name];
  const t = TYPEFACES[name];
  const f = fontkit.openSync(t.file, t.postscriptName);
  return (opened[name] = f);
}

// --- outlines to coverage -------------------------------------------------

/** Flattens a fontkit path into closed polygons in pixel space (y down, baseline at 0). */
export function flatten(commands, scale) {
  const polys = [];
  let cur = null;
  let x0 = 0;
  let y0 = 0;
  const P = (x, y) => [x * scale, -y * scale];
  const add = (p) => cur.push(p);
  const quad = (p0, p1, p2, depth = 0) => {
    const dx = p0[0] - 2 * p1[0] + p2[0];
    const dy = p0[1] - 2 * p1[1] + p2[1];
    if (depth > 10 || dx * dx + dy * dy <= 16 * FLAT * FLAT) return add(p2);
    const a = [(p0[0] + p1[0]) / 2, (p0[1] + p1[1]) / 2];
    const b = [(p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2];
    const m = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    quad(p0, a, m, depth + 1);
    quad(m, b, p2, depth + 1);
  };
  const cubic = (p0, p1, p2, p3, depth = 0) => {
    const d1 = Math.hypot(p0[0] - 2 * p1[0] + p2[0], p0[1] - 2 * p1[1] + p2[1]);
    const d2 = Math.hypot(p1[0] - 2 * p2[0] + p3[0], p1[1] - 2 * p2[1] + p3[1]);
    if (depth > 10 || Math.max(d1, d2) <= 4 * FLAT) return add(p3);
    const mid = (a, b) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    const a = mid(p0, p1);
    const b = mid(p1, p2);
    const c = mid(p2, p3);
    const ab = mid(a, b);
    const bc = mid(b, c);
    const m = mid(ab, bc);
    cubic(p0, a, ab, m, depth + 1);
    cubic(m, bc, c, p3, depth + 1);
  };
  for (const c of commands) {
    const a = c.args;
    switch (c.command) {
      case 'moveTo':
        if (cur && cur.length > 2) polys.push(cur);
        cur = [P(a[0], a[1])];
        [x0, y0] = [a[0], a[1]];
        break;
      case 'lineTo':
        add(P(a[0], a[1]));
        [x0, y0] = [a[0], a[1]];
        break;
      case 'quadraticCurveTo':
        quad(P(x0, y0), P(a[0], a[1]), P(a[2], a[3]));
        [x0, y0] = [a[2], a[3]];
        break;
      case 'bezierCurveTo':
        cubic(P(x0, y0), P(a[0], a[1]), P(a[2], a[3]), P(a[4], a[5]));
        [x0, y0] = [a[4], a[5]];
        break;
      case 'closePath':
        if (cur && cur.length > 2) polys.push(cur);
        cur = null;
        break;
    }
  }
  if (cur && cur.length > 2) polys.push(cur);
  return polys;
}

/**
 * Coverage (0..1) of each pixel of the box that holds the polygons, with the
 * non-zero winding rule: SUB sub-scanlines per row, exact coverage along each.
 */
export function rasterize(polys) {
  let xMin = Infinity;
  let xMax = -Infinity;
  let yMin = Infinity;
  let yMax = -Infinity;
  for (const p of polys) {
    for (const [x, y] of p) {
      xMin = Math.min(xMin, x);
      xMax = Math.max(xMax, x);
      yMin = Math.min(yMin, y);
      yMax = Math.max(yMax, y);
    }
  }
  if (!polys.length || xMax - xMin < 1e-6 || yMax - yMin < 1e-6) return { left: 0, top: 0, w: 0, h: 0, cov: new Float64Array(0) };
  const left = Math.floor(xMin);
  const top = Math.floor(yMin);
  const w = Math.ceil(xMax) - left;
  const h = Math.ceil(yMax) - top;
  const cov = new Float64Array(w * h);
  const edges = [];
  for (const p of polys) {
    for (let i = 0; i < p.length; i++) {
      const a = p[i];
      const b = p[(i + 1) % p.length];
      if (a[1] === b[1]) continue;
      const dir = a[1] < b[1] ? 1 : -1;
      const [lo, hi] = dir === 1 ? [a, b] : [b, a];
      edges.push({ y0: lo[1], y1: hi[1], x0: lo[0], slope: (hi[0] - lo[0]) / (hi[1] - lo[1]), dir });
    }
  }
  const cross = [];
  for (let row = 0; row < h; row++) {
    for (let s = 0; s < SUB; s++) {
      const y = top + row + (s + 0.5) / SUB;
      cross.length = 0;
      for (const e of edges) if (y >= e.y0 && y < e.y1) cross.push([e.x0 + (y - e.y0) * e.slope, e.dir]);
      cross.sort((p, q) => p[0] - q[0]);
      let wind = 0;
      for (let i = 0; i < cross.length - 1; i++) {
        wind += cross[i][1];
        if (wind === 0) continue;
        span(cov, row * w, cross[i][0] - left, cross[i + 1][0] - left, w, 1 / SUB);
      }
    }
  }
  return { left, top, w, h, cov };
}

function span(cov, base, a, b, w, weight) {
  if (b <= a) return;
  a = Math.max(0, a);
  b = Math.min(w, b);
  const ia = Math.floor(a);
  const ib = Math.floor(b);
  if (ia === ib) {
    cov[base + ia] += (b - a) * weight;
    return;
  }
  cov[base + ia] += (ia + 1 - a) * weight;
  for (let x = ia + 1; x < ib; x++) cov[base + x] += weight;
  if (ib < w) cov[base + ib] += (b - ib) * weight;
}

/** 4-bit levels of a coverage box. */
export function quantize(cov) {
  const out = new Uint8Array(cov.length);
  for (let i = 0; i < cov.length; i++) out[i] = Math.max(0, Math.min(15, Math.round(cov[i] * 15)));
  return out;
}

// --- the glyph format ------------------------------------------------------

/** Encodes one row of 4-bit levels into segments (see the header). */
export function encodeRow(levels) {
  const out = [];
  const w = levels.length;
  let x = 0;
  let end = 0;
  while (x < w) {
    if (!levels[x]) {
      x++;
      continue;
    }
    // a solid run of at least 3 becomes a fill; shorter ones and edges are coverage
    let solid = x;
    while (solid < w && levels[solid] === 15) solid++;
    if (solid - x >= 3) {
      const n = Math.min(127, solid - x);
      out.push(x - end, 0x80 | n);
      x += n;
      end = x;
      continue;
    }
    // coverage until the next solid run of 3 or a gap of 2 empty pixels
    let stop = x;
    while (stop < w && stop - x < 127) {
      if (!levels[stop] && !levels[stop + 1]) break;
      if (levels[stop] === 15 && levels[stop + 1] === 15 && levels[stop + 2] === 15) break;
      stop++;
    }
    const n = stop - x;
    out.push(x - end, n);
    for (let i = 0; i < n; i += 2) out.push((levels[x + i] << 4) | (i + 1 < n ? levels[x + i + 1] : 0));
    x = stop;
    end = x;
  }
  if (out.length > 255) throw new Error(`a glyph row of ${out.length} bytes (at most 255)`);
  return out;
}

/** One glyph's bytes: row lengths, then the rows. */
export function encodeGlyph(levels, w, h) {
  const rows = [];
  for (let y = 0; y < h; y++) rows.push(encodeRow(levels.subarray(y * w, (y + 1) * w)));
  return [...rows.map((r) => r.length), ...rows.flat()];
}

/** Decodes a glyph back into levels (the tool's own check; src/ui/glyph-draw.ts draws the same bytes). */
export function decodeGlyph(bytes, w, h) {
  const out = new Uint8Array(w * h);
  let p = h;
  for (let y = 0; y < h; y++) {
    const end = p + bytes[y];
    let x = 0;
    while (p < end) {
      x += bytes[p++];
      const hd = bytes[p++];
      const n = hd & 127;
      if (hd & 128) {
        out.fill(15, y * w + x, y * w + x + n);
      } else {
        for (let i = 0; i < n; i++) out[y * w + x + i] = (bytes[p + (i >> 1)] >> (i & 1 ? 0 : 4)) & 15;
        p += (n + 1) >> 1;
      }
      x += n;
    }
  }
  return out;
}

// --- faces -----------------------------------------------------------------

/** The code points a face carries that its typeface has glyphs for. */
function coverage(face, font) {
  const want = face.role === 'digits' ? DIGITS : face.role === 'cjk' ? cjkSet().all : europeanSet();
  const have = [...new Set(want)].filter((cp) => font.hasGlyphForCodePoint(cp) && font.glyphForCodePoint(cp).id !== 0).sort((a, b) => a - b);
  return { have, dropped: want.length - have.length };
}

/**
 * The glyphs that set a face's line (ascent and descent): Latin up to
 * Extended-A for the text faces (the accented capitals and the descenders),
 * kana, Hangul and the ideographs for CJK. A rarer glyph that reaches further
 * (a Cyrillic historic letter, a CJK repeat mark) is cut at the line's edge.
 */
function lineSetter(role, cp) {
  if (role === 'text') return cp >= 0x20 && cp <= 0x17f;
  if (role === 'cjk') return cp >= 0x3041 && cp < 0xff00 && !(cp >= 0x3031 && cp <= 0x3035);
  return true;
}

/** Rasterizes one face: its files (name -> Buffer) and figures. */
export function makeFace(face) {
  const font = openTypeface(face.typeface);
  const scale = face.px / font.unitsPerEm;
  const { have, dropped } = coverage(face, font);
  const metrics = new Int16Array(have.length * 6);
  const offsets = new Uint32Array(have.length);
  const bits = [];
  let ascent = 0;
  let descent = 0;
  have.forEach((cp, i) => {
    const g = font.glyphForCodePoint(cp);
    const r = rasterize(flatten(g.path.commands, scale));
    const levels = quantize(r.cov);
    offsets[i] = bits.length;
    for (const b of encodeGlyph(levels, r.w, r.h)) bits.push(b);
    metrics.set([Math.round(g.advanceWidth * scale * 64), r.left, -r.top, r.w, r.h, 0], i * 6);
    if (r.h && lineSetter(face.role, cp)) {
      ascent = Math.max(ascent, -r.top);
      descent = Math.max(descent, r.top + r.h);
    }
  });
  const header = { id: face.id, role: face.role, px: face.px, typeface: TYPEFACES[face.typeface].family, count: have.length, dropped, ascent, descent, unitsPerEm: font.unitsPerEm, ...(face.kern ? { kern: face.kern } : {}) };
  return {
    header,
    files: {
      [`font/${face.id}.json`]: Buffer.from(JSON.stringify(header)),
      [`font/${face.id}.cmap`]: Buffer.from(Uint32Array.from(have).buffer),
      [`font/${face.id}.metrics`]: Buffer.from(metrics.buffer),
      [`font/${face.id}.offsets`]: Buffer.from(offsets.buffer),
      [`font/${face.id}.bits`]: Buffer.from(Uint8Array.from(bits).buffer),
    },
  };
}

/**
 * The kerning of a typeface over the text faces' glyphs, as classes: each
 * glyph's row (its adjustments before every other glyph) and column are
 * deduplicated into left and right classes; values in font units.
 */
export function makeKerning(typeface) {
  const font = openTypeface(typeface);
  const { have } = coverage({ role: 'text' }, font);
  const glyphs = have.map((cp) => font.glyphForCodePoint(cp));
  const n = glyphs.length;
  const pair = new Int16Array(n * n);
  for (let a = 0; a < n; a++) {
    if (have[a] >= 0x300 && have[a] <= 0x36f) continue;
    for (let b = 0; b < n; b++) {
      const run = font.layout([glyphs[a], glyphs[b]], { liga: false, clig: false, calt: false, mark: false, mkmk: false });
      if (run.glyphs.length !== 2) continue;
      pair[a * n + b] = run.positions[0].xAdvance - glyphs[a].advanceWidth;
    }
  }
  const classesOf = (key) => {
    const ids = new Map();
    const of = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const k = key(i);
      if (!ids.has(k)) ids.set(k, ids.size);
      of[i] = ids.get(k);
    }
    if (ids.size > 255) throw new Error(`${ids.size} kerning classes (at most 255)`);
    return { of, count: ids.size };
  };
  const left = classesOf((a) => pair.subarray(a * n, (a + 1) * n).join(','));
  const right = classesOf((b) => Array.from({ length: n }, (_, a) => pair[a * n + b]).join(','));
  const values = new Int16Array(left.count * right.count);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) values[left.of[a] * right.count + right.of[b]] = pair[a * n + b];
  const pairs = pair.reduce((s, v) => s + (v ? 1 : 0), 0);
  return {
    header: { left: left.count, right: right.count, pairs },
    files: {
      [`font/kern-${typeface}.json`]: Buffer.from(JSON.stringify({ left: left.count, right: right.count, pairs, unitsPerEm: font.unitsPerEm })),
      [`font/kern-${typeface}.left`]: Buffer.from(left.of.buffer),
      [`font/kern-${typeface}.right`]: Buffer.from(right.of.buffer),
      [`font/kern-${typeface}.values`]: Buffer.from(values.buffer),
    },
  };
}

/** The rasterizer's identity: what a cached face depends on. */
function fingerprint() {
  const h = createHash('sha256').update(`format ${FONT_FORMAT}\n`);
  h.update(readFileSync(new URL(import.meta.url)));
  h.update(readFileSync(new URL('./font/charsets.mjs', import.meta.url)));
  for (const t of Object.values(TYPEFACES)) h.update(`${t.file} ${existsSync(t.file) ? readFileSync(t.file).length : 0}\n`);
  return h.digest('hex').slice(0, 16);
}

/**
 * Every font file of the image (tools/assets.mjs's fonts asset), cached in
 * dir: made again only when the typefaces, the character sets or this tool
 * change. `which` filters the faces by role (the CJK set is its own asset).
 */
export function fontAssets(dir, { log = () => {}, roles = ['text', 'digits'] } = {}) {
  ensureTypefaces(log);
  const faces = faceList().filter((f) => roles.includes(f.role));
  const id = `${fingerprint()}-${roles.join('+')}`;
  const stamp = join(dir, 'fonts.stamp');
  const manifest = join(dir, 'fonts.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === id && existsSync(manifest)) {
    const names = JSON.parse(readFileSync(manifest, 'utf8'));
    return Object.fromEntries(names.map((n) => [n, readFileSync(join(dir, n.replace(/\//g, '_')))]));
  }
  const t0 = Date.now();
  const files = {};
  for (const f of faces) {
    const made = makeFace(f);
    Object.assign(files, made.files);
    log(`font ${f.id}: ${made.header.count} glyphs (${made.header.dropped} not in ${made.header.typeface}), ${made.files[`font/${f.id}.bits`].length} bytes of glyphs`);
  }
  if (roles.includes('text')) {
    const k = makeKerning('sans');
    Object.assign(files, k.files);
    log(`kerning: ${k.header.pairs} pairs in ${k.header.left} x ${k.header.right} classes`);
  }
  mkdirSync(dir, { recursive: true });
  for (const [n, b] of Object.entries(files)) writeFileSync(join(dir, n.replace(/\//g, '_')), b);
  writeFileSync(manifest, JSON.stringify(Object.keys(files)));
  writeFileSync(stamp, id);
  log(`fonts (${roles.join(', ')}) made in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return files;
}
