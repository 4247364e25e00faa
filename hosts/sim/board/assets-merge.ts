// The simulator's assets at boot: the booting slot's assets region and the
// flash's fonts partition (partitions.csv; the CJK glyphs live there, not in
// the image: docs/decisions.md "Screen fonts") packed into one region in the
// format of src/util/asset-pack.ts, which xsim maps as __sim.assets. On the
// device the two stay apart and the firmware reads them as one
// (hosts/esp32/hal/assets.ts, mergeAssets).

const MAGIC = 'DSKAST01';
const ALIGN = 16;

interface Entry {
  name: string;
  offset: number;
  length: number;
}

/** The index at the start of a region (it may end before the data does), or null when there is no pack. */
function readIndex(region: Buffer): Entry[] | null {
  if (region.length < 12 || region.toString('latin1', 0, 8) !== MAGIC) return null;
  const n = region.readUInt32LE(8);
  if (12 + n > region.length) return null;
  try {
    const index = JSON.parse(region.toString('utf8', 12, 12 + n)) as Entry[];
    return Array.isArray(index) ? index : null;
  } catch {
    return null;
  }
}

/** A region's entries, or null when it holds no whole pack (an erased partition). */
export function packEntries(region: Buffer): Entry[] | null {
  const index = readIndex(region);
  return index && index.every((e) => e.offset + e.length <= region.length) ? index : null;
}

/** Bytes a pack at the start of a region takes (0: none); read(n) gives the region's first n bytes. */
export function packLength(head: Buffer, read: (n: number) => Buffer): number {
  if (head.length < 12 || head.toString('latin1', 0, 8) !== MAGIC) return 0;
  const index = readIndex(read(12 + head.readUInt32LE(8)));
  if (!index) return 0;
  return index.reduce((end, e) => Math.max(end, e.offset + e.length), 12);
}

/** One pack holding the entries of both (the first's win a name both have). */
export function mergePacks(first: Buffer, second: Buffer | null): Buffer {
  const a = packEntries(first) ?? [];
  const b = second ? (packEntries(second) ?? []) : [];
  if (!b.length) return first;
  const names = new Set(a.map((e) => e.name));
  const parts: Array<{ name: string; data: Buffer }> = [
    ...a.map((e) => ({ name: e.name, data: first.subarray(e.offset, e.offset + e.length) })),
    ...b.filter((e) => !names.has(e.name)).map((e) => ({ name: e.name, data: second!.subarray(e.offset, e.offset + e.length) })),
  ];
  let guess = 64 + parts.length * 64;
  for (;;) {
    const index: Entry[] = [];
    let offset = Math.ceil((12 + guess) / ALIGN) * ALIGN;
    for (const p of parts) {
      index.push({ name: p.name, offset, length: p.data.length });
      offset = Math.ceil((offset + p.data.length) / ALIGN) * ALIGN;
    }
    const json = Buffer.from(JSON.stringify(index));
    if (json.length <= guess) {
      const out = Buffer.alloc(offset);
      out.write(MAGIC, 0, 'latin1');
      out.writeUInt32LE(json.length, 8);
      json.copy(out, 12);
      parts.forEach((p, i) => p.data.copy(out, index[i]!.offset));
      return out;
    }
    guess = json.length;
  }
}
