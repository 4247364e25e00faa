// Boots the whole device: no device runs here, but it loads src/main.ts for its list of subsystems, and holds the boot order computed from their declarations to the layer ranks.
//
// The boot mounts each subsystem after the parts it needs (src/core/boot-order.ts);
// with the list in rank order, the computed order is the ranks' order exactly
// when no subsystem needs, before it mounts, a part of a higher-ranked one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootOrder } from '../../../src/core/boot-order.ts';
import type { AnySubsystem } from '../../../src/core/subsystem.ts';
import { SUBSYSTEMS as BOOT_LIST } from '../../../src/main.ts';
import { SUBSYSTEMS } from '../../support/layers.ts';

/** Needs met before mounting that point to a subsystem ranked higher (a late need may point anywhere). */
function needsUpward(list: readonly AnySubsystem[]): string[] {
  const by = new Map<string, string>();
  for (const s of list) for (const part of Object.keys(s.provides)) by.set(part, s.name);
  const rank = (name: string): number => SUBSYSTEMS.indexOf(name);
  return list.flatMap((s) => s.needs.filter((n) => by.has(n) && rank(by.get(n)!) > rank(s.name)).map((n) => `${s.name} needs "${n}" of ${by.get(n)}`));
}

/** What main.ts hands the subsystems (its given parts), by name: the HAL's boot-time parts and the update guard's verdict. */
const BOOT_GIVEN = [
  'clockSync', 'faults', 'hotspots', 'otaVerdict', 'p256', 'sha256', 'shutdown',
];

describe('the boot order', () => {
  const given = [...new Set(BOOT_LIST.flatMap((s) => [...s.needs, ...(s.later ?? [])]))].filter((n) => !BOOT_LIST.some((s) => n in s.provides));

  it('is computed from what the subsystems declare, and is the layer ranks\' order (console\'s filler last)', () => {
    expect(bootOrder(BOOT_LIST, given).map((s) => s.name)).toEqual(SUBSYSTEMS.slice(0, -1));
    expect(needsUpward(BOOT_LIST)).toEqual([]);
  });

  it('main.ts lists every subsystem, and every subsystem declares its parts by its options\' and its face\'s names', () => {
    expect(BOOT_LIST.map((s) => s.name).sort()).toEqual(SUBSYSTEMS.filter((s) => s !== 'console').sort());
    // The boot hands out the HAL's boot-time parts and the update guard's verdict, nothing else (docs/architecture.md).
    expect(given.sort()).toEqual(BOOT_GIVEN);
  });

  it('a need of a higher-ranked subsystem\'s part is found (negative control)', () => {
    const low = BOOT_LIST.find((s) => s.name === 'faults')!;
    const planted = { ...low, needs: [...low.needs, 'assistant'] };
    expect(needsUpward(BOOT_LIST.map((s) => (s === low ? planted : s)))).toEqual(['faults needs "assistant" of turn']);
    // And the computed order puts it after what it needs, off the ranks.
    const order = bootOrder(BOOT_LIST.map((s) => (s === low ? planted : s)), given).map((s) => s.name);
    expect(order.indexOf('faults')).toBe(order.indexOf('turn') + 1);
  });

  it('docs/architecture.md lists each subsystem with the parts it declares, in rank order', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/architecture.md'), 'utf8');
    const cell = (text: string): string => (text.trim() === '-' ? '' : text.replace(/`/g, '').trim());
    const rows = [...doc.matchAll(/^\| `([a-z]+)` \| ([^|]*) \| ([^|]*) \| ([^|]*) \|/gm)].map((m) => [m[1], cell(m[2]!), cell(m[3]!), cell(m[4]!)].join(' | '));
    const declared = BOOT_LIST.map((s) => [s.name, s.needs.join(', '), (s.later ?? []).join(', '), Object.keys(s.provides).join(', ')].join(' | '));
    expect(rows).toEqual(declared);
  });
});
