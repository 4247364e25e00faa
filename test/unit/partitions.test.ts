// partitions.csv: the 16 MB layout with two 6.5 MB app slots is sound.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkLayout, FLASH_BYTES, parsePartitions, type PartitionRow } from '../../hosts/sim/board/partitions.ts';
import { DEFAULT_PARTITIONS } from '../support/memstorage.ts';

const rows = parsePartitions(readFileSync(new URL('../../partitions.csv', import.meta.url), 'utf8'));
const byName = (name: string): PartitionRow => {
  const row = rows.find((r) => r.name === name);
  if (!row) throw new Error(`no partition ${name}`);
  return row;
};

describe('partitions.csv', () => {
  it('has nvs, otadata, phy_init and two app slots of exactly 6.5 MB', () => {
    expect(byName('nvs').subtype).toBe('nvs');
    expect(byName('otadata')).toMatchObject({ type: 'data', subtype: 'ota', size: 0x2000 });
    expect(byName('phy_init').subtype).toBe('phy');
    for (const slot of ['ota_0', 'ota_1']) {
      expect(byName(slot)).toMatchObject({ type: 'app', subtype: slot, size: 6.5 * 1024 * 1024 });
    }
  });

  it('is aligned (app slots on 64 KB), without overlap, and fits in 16 MB', () => {
    expect(checkLayout(rows)).toEqual([]);
    for (const r of rows.filter((r) => r.type === 'app')) expect(r.offset % 0x10000).toBe(0);
    const end = Math.max(...rows.map((r) => r.offset + r.size));
    expect(end).toBeLessThanOrEqual(FLASH_BYTES);
  });

  it('the layout check catches overlap, misalignment and overflow', () => {
    const bad = rows.map((r) => ({ ...r }));
    bad.find((r) => r.name === 'ota_1')!.offset = 0x6a1000;
    expect(checkLayout(bad).join('\n')).toMatch(/ota_1: offset .* not aligned/);
    const overlap = rows.map((r) => ({ ...r }));
    overlap.find((r) => r.name === 'ota_1')!.offset = 0x690000;
    expect(checkLayout(overlap).join('\n')).toMatch(/ota_0 overlaps ota_1/);
    expect(checkLayout(rows, 8 * 1024 * 1024).join('\n')).toMatch(/ends past the flash/);
  });

  it('matches the layout the in-memory HAL reports', () => {
    expect(rows.map(({ flags: _f, ...r }) => r)).toEqual(DEFAULT_PARTITIONS);
  });
});
