// The Moddable manifests: every file they name exists (SDK paths and build
// outputs aside), for the device (esp32) and the SDK's desktop runtime (lin),
// and each board's manifest includes the top-level one.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BOARD_DESCRIPTORS } from '../../boards/index.ts';
import { I2S_AMPLIFIERS, I2S_CODECS } from '../../hosts/esp32/hal/audio.ts';
import { DEVICE_TYPES } from '../../src/hal/index.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Manifest {
  build?: Record<string, string>;
  include?: string | string[];
  modules?: Record<string, string | string[]>;
  preload?: string[];
  platforms?: Record<string, Manifest & { error?: string }>;
}

function load(path: string): Manifest {
  return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
}

function expand(text: string, vars: Record<string, string>, manifestDir: string): string | null {
  let out = text;
  for (let i = 0; i < 5 && out.includes('$('); i++) {
    out = out.replace(/\$\(([A-Z_]+)\)/g, (m, name: string) => vars[name] ?? m);
  }
  if (out.includes('$(MODDABLE)')) return null; // the SDK's own files
  if (out.includes('$(')) throw new Error(`unknown variable in ${text}`);
  return out.startsWith('/') ? out : join(manifestDir, out);
}

/** Every (manifest, path) pair reachable from a board manifest. */
function walk(path: string, vars: Record<string, string>, seen = new Set<string>()): Array<{ from: string; file: string; kind: string }> {
  if (seen.has(path)) return [];
  seen.add(path);
  const m = load(path);
  const dir = dirname(path);
  const localVars = { ...vars };
  for (const [k, v] of Object.entries(m.build ?? {})) if (!(k in localVars)) localVars[k] = v;
  const out: Array<{ from: string; file: string; kind: string }> = [];
  const visit = (section: Manifest): void => {
    const includes = section.include === undefined ? [] : Array.isArray(section.include) ? section.include : [section.include];
    for (const inc of includes) {
      const file = expand(inc, localVars, dir);
      if (file === null) continue;
      out.push({ from: path, file, kind: 'include' });
      if (existsSync(file)) out.push(...walk(file, localVars, seen));
    }
    for (const spec of Object.values(section.modules ?? {})) {
      for (const s of Array.isArray(spec) ? spec : [spec]) {
        const file = expand(s, localVars, dir);
        if (file !== null) out.push({ from: path, file, kind: 'module' });
      }
    }
    const parts = section.build?.PARTITIONS_FILE;
    if (parts) {
      const file = expand(parts, localVars, dir);
      if (file !== null) out.push({ from: path, file, kind: 'file' });
    }
  };
  visit(m);
  for (const [name, p] of Object.entries(m.platforms ?? {})) if (name.startsWith('esp32') || name === 'lin') visit(p);
  return out;
}

function exists(entry: { file: string; kind: string }): boolean {
  if (entry.kind !== 'module') return existsSync(entry.file);
  // Module specifiers omit the extension (or name it, for C beside a .ts of the same name); a trailing * names a folder's files.
  if (entry.file.endsWith('/*')) return existsSync(entry.file.slice(0, -2));
  return existsSync(entry.file) || ['.ts', '.js', '.c', '.cpp'].some((ext) => existsSync(entry.file + ext));
}

describe('Moddable manifests', () => {
  for (const board of DEVICE_TYPES) {
    it(`boards/${board}/manifest.json names only files that exist`, () => {
      const entries = walk(join(ROOT, 'boards', board, 'manifest.json'), { DESK_ROOT: ROOT });
      expect(entries.some((e) => e.file === join(ROOT, 'manifest.json'))).toBe(true);
      const missing = entries
        .filter((e) => !e.file.startsWith(join(ROOT, 'build') + '/')) // build outputs: made by build:device
        .filter((e) => !exists(e))
        .map((e) => `${e.file.slice(ROOT.length + 1)} (named in ${e.from.slice(ROOT.length + 1)})`);
      expect(missing).toEqual([]);
    });
  }

  it('takes the flash layout from partitions.csv and the firmware from the device build folder (the lin build\'s for lin)', () => {
    const top = load(join(ROOT, 'manifest.json'));
    expect(top.platforms?.esp32?.build?.PARTITIONS_FILE).toBe('$(DESK_ROOT)/partitions.csv');
    expect(Object.values(top.modules ?? {}).flat().join()).toContain('$(DESK_FIRMWARE)/firmware');
    expect(top.build?.DESK_FIRMWARE).toBe('$(DESK_ROOT)/build/device/$(DESK_BOARD)');
    expect(top.platforms?.lin?.build?.DESK_FIRMWARE).toBe('$(DESK_ROOT)/build/lin/$(DESK_BOARD)');
    expect(top.platforms?.lin?.include).toEqual(['$(DESK_ROOT)/hosts/lin/manifest.json']);
  });

  it('refuses platforms other than esp32 and lin with a clear error', () => {
    const top = load(join(ROOT, 'manifest.json'));
    expect(top.platforms?.['...']?.error).toMatch(/esp32[\s\S]*lin/);
  });

  it('gives every manifest one esp32 platform entry, complete on its own (a subplatform entry would replace it, not merge)', () => {
    const files = ['manifest.json', 'hosts/esp32/manifest.json', ...DEVICE_TYPES.map((b) => `boards/${b}/manifest.json`), 'modules/vecdot/manifest.json', 'modules/sha256/manifest.json', 'modules/utf8/manifest.json'];
    for (const f of files) {
      const entries = Object.keys(load(join(ROOT, f)).platforms ?? {}).filter((k) => k === 'esp32' || k.startsWith('esp32/'));
      expect(entries.length, f).toBeLessThanOrEqual(1);
    }
    const build = load(join(ROOT, 'manifest.json')).platforms?.esp32?.build ?? {};
    expect(build.PARTITIONS_FILE).toBe('$(DESK_ROOT)/partitions.csv');
    expect(build.SDKCONFIGPATH).toBe('$(DESK_FIRMWARE)/sdkconfig');
    // the boards inherit both: one place says where they are
    for (const b of DEVICE_TYPES) expect(load(join(ROOT, `boards/${b}/manifest.json`)).platforms?.esp32?.build, b).toBeUndefined();
    const host = load(join(ROOT, 'hosts/esp32/manifest.json')) as Manifest & { platforms: Record<string, { defines?: Record<string, Record<string, number>> }> };
    expect(host.platforms['esp32']?.defines?.['sha256']?.['mbedtls']).toBe(1);
  });

  it('links the SDK AudioOut on every board with an I2S amplifier or codec, its pins the board\'s own', () => {
    for (const board of DEVICE_TYPES) {
      const m = (load(join(ROOT, 'boards', board, 'manifest.json')).platforms?.esp32 ?? {}) as Manifest & { defines?: { audioOut?: { i2s?: Record<string, number>; queueLength?: number } } };
      const out = BOARD_DESCRIPTORS[board].audio.out;
      const linked = ((m.include ?? []) as string[]).includes('$(MODDABLE)/modules/pins/i2s/manifest.json');
      const plain = !!out && (I2S_AMPLIFIERS.includes(out.driver) || I2S_CODECS.includes(out.driver));
      expect(linked, board).toBe(plain);
      if (!plain) {
        expect(m.defines?.audioOut, board).toBeUndefined();
        continue;
      }
      expect(m.defines?.audioOut?.i2s, board).toEqual({ num: 0, bck_pin: out.i2s['bclk'], lr_pin: out.i2s['lrclk'], dataout_pin: out.i2s['dout'] });
      // a chunk takes two queue elements (samples and its callback): room for 8 in flight
      expect(m.defines?.audioOut?.queueLength, board).toBe(16);
    }
    expect(DEVICE_TYPES.every((b) => ((load(join(ROOT, 'boards', b, 'manifest.json')).platforms?.esp32?.include ?? []) as string[]).includes('$(MODDABLE)/modules/pins/i2s/manifest.json'))).toBe(true);
    // Every board links our MP3 decoder (minimp3, through the device host's manifest), never the SDK's libmad (GPL).
    const deviceIncludes = (load(join(ROOT, 'hosts/esp32/manifest.json')).include ?? []) as string[];
    expect(deviceIncludes).toContain('$(DESK_ROOT)/modules/mp3/manifest.json');
    expect(deviceIncludes.filter((m) => m.includes('modules/data/mp3'))).toEqual([]);
  });

  it('preloads the firmware module and boots it from a main that is not preloaded', () => {
    const top = load(join(ROOT, 'manifest.json')) as Manifest & { creation: { main: string } };
    expect(top.preload).toContain('firmware');
    expect(top.creation.main).toBe('main');
    expect(top.preload).not.toContain('main');
    for (const host of ['esp32', 'lin']) expect(readFileSync(join(ROOT, `hosts/${host}/main.js`), 'utf8')).toMatch(/import \{ start \} from "firmware";\s+try \{\s+start\(\);/);
  });
});
