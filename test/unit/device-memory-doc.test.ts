// docs/device.md's creation sizes are the manifests' own: the table under
// "Creation sizes" quotes every numeric creation setting of manifest.json
// with the value each board's manifest chain ends up with, and nothing else.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEVICE_TYPES } from '../../src/hal/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
type Tree = { [k: string]: number | string | Tree };
const ROW = /^\| `([a-z.]+)` \| (\d+)\b/;

function leaves(tree: Tree, prefix = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(tree)) {
    if (typeof v === 'number') out.set(prefix + k, v);
    else if (typeof v === 'object') for (const [kk, vv] of leaves(v, `${prefix}${k}.`)) out.set(kk, vv);
  }
  return out;
}

/** The creation settings a board's build gets: mcconfig merges them in manifest order, later ones winning. */
function creationOf(manifest: string, seen = new Set<string>()): Map<string, number> {
  if (seen.has(manifest)) return new Map();
  seen.add(manifest);
  const m = JSON.parse(readFileSync(manifest, 'utf8')) as { include?: string | string[]; creation?: Tree; platforms?: Record<string, { creation?: Tree }> };
  const merged = new Map<string, number>();
  for (const inc of [m.include ?? []].flat()) {
    if (inc.startsWith('$(DESK_ROOT)/')) for (const [k, v] of creationOf(inc.replace('$(DESK_ROOT)', ROOT), seen)) merged.set(k, v);
  }
  for (const [k, v] of leaves(m.creation ?? {})) merged.set(k, v);
  for (const [k, v] of leaves(m.platforms?.['esp32']?.creation ?? {})) merged.set(k, v);
  return merged;
}

function documented(): Map<string, number> {
  const doc = readFileSync(join(ROOT, 'docs/device.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Creation sizes'), doc.indexOf('### Per board'));
  const rows = section.split('\n').map((l) => ROW.exec(l)).filter((m) => m !== null);
  return new Map(rows.map((m) => [m[1]!, Number(m[2])]));
}

describe('docs/device.md creation sizes', () => {
  it('quote every numeric creation setting', () => {
    const doc = documented();
    expect(doc.size).toBeGreaterThan(8);
    for (const board of DEVICE_TYPES) {
      const creation = creationOf(join(ROOT, 'boards', board, 'manifest.json'));
      expect(Object.fromEntries(doc), board).toEqual(Object.fromEntries(creation));
    }
  });

  it('state the measured figures the sizes are chosen from, with the command', () => {
    const doc = readFileSync(join(ROOT, 'docs/device.md'), 'utf8');
    const memory = doc.slice(doc.indexOf('## Memory budget'), doc.indexOf('## TLS and the CA store'));
    expect(memory).toContain('node bench/creation.mjs');
    expect(memory).not.toMatch(/round guess|to be measured on hardware\)/);
    expect(memory).toMatch(/XS stack high-water \| \d+ slots/);
    expect(memory).toMatch(/Keys \(property names\) created at run time \| \d+ after boot/);
  });
});
