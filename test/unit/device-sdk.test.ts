// The device build as the Moddable SDK runs it, for every board: `npm run
// build:device -- --board <type>` (tools/build-device.mjs) runs every stage
// short of the Xtensa compiler: the bundle, tsc against the SDK's typings,
// mcconfig's manifest processing for esp32/esp32s3, the makefile's xsc and
// xsid, the PRELOADING xsl link, mcrez and bles2gatt, and stops at the C
// compile with one line. A link or preload failure fails the build and this
// test. docs/device.md records xsl's figures per board and the creation sizes
// the makefile really passes xsl; this test holds the doc to them (figures
// within 10%, sizes exactly). Then each board's licence inventory: every
// input declared, every SDK header agreeing, no GPL-only component but the
// known release blockers (licenses/components.mjs; docs/licenses.md). After a change that moves the figures:
//   UPDATE_DEVICE_FIGURES=1 npx vitest run test/unit/device-sdk.test.ts
// Skipped, saying why, where there is no SDK (test/support/sdk.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makefileDir, xslFigures, type XslFigures } from '../../tools/build-device.mjs';
import { inventory, problems } from '../../tools/licenses.mjs';
import { RELEASE_BLOCKERS } from '../../licenses/components.mjs';
import { DEVICE_TYPES } from '../../src/hal/index.ts';
import { needSdk, sdk } from '../support/sdk.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = join(ROOT, 'docs/device.md');
const FIGURES_HEADING = '### What xsl links, per board';
const ROW = /^\| (ring-tft|panel-28|panel-35|panel-40) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|/;
const TOLERANCE = 0.1;

const measured = new Map<string, XslFigures>();

/** The figures table of docs/device.md: board to [instances, keys, preloaded heap slots, aliases]. */
function documentedFigures(): Map<string, number[]> {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf(FIGURES_HEADING));
  return new Map(section.split('\n').map((l) => ROW.exec(l)).filter((m) => m !== null).map((m) => [m[1]!, [2, 3, 4, 5].map((i) => Number(m[i]))]));
}

/** The creation table of docs/device.md (setting to value). */
function documentedCreation(): Map<string, number> {
  const doc = readFileSync(DOC, 'utf8');
  const section = doc.slice(doc.indexOf('### Creation sizes'), doc.indexOf('### Per board'));
  return new Map(section.split('\n').map((l) => /^\| `([a-z.]+)` \| (\d+)\b/.exec(l)).filter((m) => m !== null).map((m) => [m[1]!, Number(m[2])]));
}

function flatten(tree: Record<string, unknown>, prefix = ''): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const [k, v] of Object.entries(tree)) {
    if (v !== null && typeof v === 'object') for (const [kk, vv] of flatten(v as Record<string, unknown>, `${prefix}${k}.`)) out.set(kk, vv);
    else out.set(prefix + k, v as number | null);
  }
  return out;
}

describe('npm run build:device with the Moddable SDK (no ESP-IDF)', () => {
  for (const board of DEVICE_TYPES) {
    it(`${board}: bundle, tsc, mcconfig, xsc, the preloading xsl link, mcrez and bles2gatt run; it stops at the C compile`, (ctx) => {
      if (!needSdk(ctx, `the ${board} device build`)) return;
      const env = { ...process.env, IDF_PATH: '' };
      const r = spawnSync(process.execPath, ['tools/build-device.mjs', '--board', board], { cwd: ROOT, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
      expect(r.stderr.split('\n').filter((l) => /failed|error/i.test(l))).toEqual([]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      const prefix = `build:device: ${board}: `;
      expect(lines.map((l) => l.slice(prefix.length).split(/[ :(]/)[0])).toEqual(['bundled', 'tsc', 'mcconfig', 'xsc,', 'licenses', 'image', 'slot', 'fonts', 'stopped']);
      expect(lines.at(-1)).toBe(`${prefix}stopped before the C compile, no image built: IDF_PATH is not set: ESP-IDF v6.0 (with xtensa-esp32s3-elf-gcc) compiles and links the image; install it and source its export.sh (docs/device.md)`);
      // what the stages made, in the makefile's own folder
      const dir = makefileDir(board);
      for (const out of ['mc.xs.c', 'mc.xs.h', 'mc.resources.c', 'mc.bleservices.c', 'modules/firmware.xsb', 'modules/desk-native.xsb']) expect(existsSync(join(dir, out)), out).toBe(true);
      const mcXs = readFileSync(join(dir, 'mc.xs.c'), 'utf8').slice(0, 4096);
      const figures = xslFigures(readFileSync(join(dir, 'xsl-figures.txt'), 'utf8'), mcXs, readFileSync(join(dir, 'makefile'), 'utf8'));
      expect(r.stdout).toContain(`xsc, xsl (preloaded): ${figures.instances} instances, ${figures.keys} keys, preloaded heap ${figures.heapSlots} slots, ${figures.aliases} aliases`);
      // preloaded: the firmware is among the preparation's scripts
      expect(readFileSync(join(dir, 'makefile'), 'utf8')).toMatch(/^PRELOADS =[\s\S]*-p firmware\.xsb/m);
      // MP3 by our minimp3 build, bound by desk-native.js; nothing of the SDK's libmad (GPL) is compiled
      const makefile = readFileSync(join(dir, 'makefile'), 'utf8');
      expect(makefile).toMatch(/\/mp3mono\.c\.o\b/);
      expect(makefile).toMatch(/\/xs_mp3\.c\.o\b/);
      expect(makefile).not.toMatch(/libmad|data\/mp3/);
      expect(readFileSync(join(dir, 'mc.xs.c'), 'utf8')).toMatch(/\{ xs_mp3_decode, 3, \d+ \}/);
      // the LED ring by our RMT driver: nothing of the SDK's NeoPixel (GPL-3.0 headers) nor the development kit's setup is linked
      expect(makefile).toMatch(/\/desk_ring\.c\.o\b/);
      expect(makefile).toMatch(/\/ledring\.c\.o\b/);
      expect(makefile).not.toMatch(/neopixel|setup-target|drivers\/button/i);
      expect(readFileSync(join(dir, 'mc.xs.c'), 'utf8')).toMatch(/\{ xs_desk_ring_show, 1, \d+ \}/);
      // the GATT table was compiled from our JSON, the CA store made into resources
      expect(readFileSync(join(dir, 'mc.bleservices.c'), 'utf8')).toContain('e9190003');
      expect(readFileSync(join(dir, 'mc.resources.c'), 'utf8')).toContain('ca.ski');
      measured.set(board, figures);
      // the licence inventory of what it links (tools/licenses.mjs), beside the build
      for (const f of [`${board}.spdx.json`, `${board}.NOTICE.txt`]) expect(existsSync(join(ROOT, 'build/device', board, 'licenses', f)), f).toBe(true);
    }, 300_000);
  }

  it("our target (hosts/esp32/target) is the SDK's esp32s3 target without its development kit's LED and button", (ctx) => {
    if (!needSdk(ctx, 'the target check')) return;
    const ours = JSON.parse(readFileSync(join(ROOT, 'hosts/esp32/target/manifest.json'), 'utf8'));
    const sdkTarget = JSON.parse(readFileSync(join(sdk.moddable!, 'build/devices/esp32/targets/esp32s3/manifest.json'), 'utf8'));
    expect(ours.build.ESP32_SUBCLASS).toBe(sdkTarget.build.ESP32_SUBCLASS);
    expect(ours.creation).toEqual(sdkTarget.creation);
    expect(ours.defines).toEqual(sdkTarget.defines);
    expect(ours.config.screen).toBe(sdkTarget.config.screen);
    // what we leave out is exactly the kit's LED and button
    expect(sdkTarget.preload.sort()).toEqual(['neopixel', 'setup/target']);
    expect(ours.preload ?? []).toEqual([]);
    expect(ours.include ?? []).toEqual([]);
  });

  // What each board's image links, as the makefile and the bundle say (docs/licenses.md).
  for (const board of DEVICE_TYPES) {
    it(`${board}: every input of the image is declared in licenses/components.mjs, every SDK header agrees with its declaration, every licence text is there`, (ctx) => {
      if (!needSdk(ctx, `the ${board} licence inventory`) || !measured.has(board)) return;
      const inv = inventory(board);
      expect(inv.unlisted).toEqual([]);
      expect(inv.headerProblems).toEqual([]);
      expect(inv.missingTexts).toEqual([]);
      expect(inv.packages.map((p) => p.decl.id)).toEqual(expect.arrayContaining(['firmware', 'noble-hashes', 'noble-curves', 'moddable-runtime', 'moddable-xs', 'esp-idf']));
    });

    it(`${board}: no GPL-only component is in the image but the known release blockers, and a release refuses it while they remain`, (ctx) => {
      if (!needSdk(ctx, `the ${board} licence inventory`) || !measured.has(board)) return;
      const inv = inventory(board);
      expect(inv.gplOnly.sort()).toEqual(RELEASE_BLOCKERS.map((b) => b.id).sort());
      for (const id of inv.gplOnly) expect(problems(inv)).toContain(`GPL-only component in the image: ${id}`);
    });
  }

  it('docs/device.md records xsl\'s figures per board (within 10%) and the creation sizes the makefile passes xsl', (ctx) => {
    if (!needSdk(ctx, 'the device figures check')) return;
    expect([...measured.keys()].sort()).toEqual([...DEVICE_TYPES].sort());
    if (process.env['UPDATE_DEVICE_FIGURES']) {
      const doc = readFileSync(DOC, 'utf8');
      const rows = DEVICE_TYPES.map((b) => {
        const f = measured.get(b)!;
        return `| ${b} | ${f.instances} | ${f.keys} | ${f.heapSlots} | ${f.aliases} |`;
      });
      const lines = doc.split('\n');
      let at = 0;
      const updated = lines.map((l) => (ROW.test(l) ? rows[at++]! : l));
      writeFileSync(DOC, updated.join('\n'));
    }
    const documented = documentedFigures();
    for (const board of DEVICE_TYPES) {
      const f = measured.get(board)!;
      const doc = documented.get(board);
      expect(doc, `docs/device.md has no figures row for ${board}`).toBeDefined();
      const now = [f.instances!, f.keys!, f.heapSlots!, f.aliases!];
      now.forEach((v, i) => expect(Math.abs(v - doc![i]!) / v, `${board} column ${i + 1}: measured ${v}, documented ${doc![i]}`).toBeLessThanOrEqual(TOLERANCE));
    }
    // the creation sizes: what the makefile's CREATION line really passes xsl, the same for every board
    const creation = flatten(measured.get('panel-35')!.creation as unknown as Record<string, unknown>);
    for (const board of DEVICE_TYPES) expect(flatten(measured.get(board)!.creation as unknown as Record<string, unknown>), board).toEqual(creation);
    const doc = documentedCreation();
    for (const [k, v] of creation) expect(doc.get(k), `creation.${k}`).toBe(v);
  });
});
