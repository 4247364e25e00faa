// Reads partitions.csv (ESP-IDF's format) into a checked list, for the
// simulated flash and for the layout test.

export interface PartitionRow {
  name: string;
  type: 'app' | 'data';
  subtype: string;
  offset: number;
  size: number;
  flags: string;
}

function parseNumber(text: string, what: string): number {
  const t = text.trim();
  const m = /^(0x[0-9a-f]+|\d+)([km])?$/i.exec(t);
  if (!m) throw new Error(`partitions.csv: bad ${what} '${text}'`);
  let n = Number(m[1]);
  if (m[2]?.toLowerCase() === 'k') n *= 1024;
  if (m[2]?.toLowerCase() === 'm') n *= 1024 * 1024;
  return n;
}

/** Parses the CSV; every row must give an explicit offset and size. */
export function parsePartitions(csv: string): PartitionRow[] {
  const rows: PartitionRow[] = [];
  for (const raw of csv.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const cells = line.split(',').map((c) => c.trim());
    const [name, type, subtype, offset, size, flags = ''] = cells;
    if (!name || !subtype || !offset || !size) throw new Error(`partitions.csv: incomplete row '${line}'`);
    if (type !== 'app' && type !== 'data') throw new Error(`partitions.csv: bad type '${type}'`);
    rows.push({ name, type, subtype, offset: parseNumber(offset, 'offset'), size: parseNumber(size, 'size'), flags });
  }
  return rows;
}

export const FLASH_BYTES = 16 * 1024 * 1024;
/** The partition table itself sits at 0x8000 (one 4 KB sector). */
export const TABLE_END = 0x9000;
export const APP_ALIGN = 0x10000;
export const DATA_ALIGN = 0x1000;

/** Returns the problems with a layout (empty when it is sound). */
export function checkLayout(rows: PartitionRow[], flashBytes = FLASH_BYTES): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const r of rows) {
    if (names.has(r.name)) problems.push(`${r.name}: duplicate name`);
    names.add(r.name);
    if (r.name.length > 16) problems.push(`${r.name}: name over 16 characters`);
    const align = r.type === 'app' ? APP_ALIGN : DATA_ALIGN;
    if (r.offset % align) problems.push(`${r.name}: offset 0x${r.offset.toString(16)} not aligned to 0x${align.toString(16)}`);
    if (r.size % DATA_ALIGN) problems.push(`${r.name}: size not a multiple of 4 KB`);
    if (r.offset < TABLE_END) problems.push(`${r.name}: overlaps the bootloader or partition table`);
    if (r.offset + r.size > flashBytes) problems.push(`${r.name}: ends past the flash`);
  }
  const sorted = [...rows].sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    if (prev.offset + prev.size > cur.offset) problems.push(`${prev.name} overlaps ${cur.name}`);
  }
  return problems;
}
