// The firmware's shape (issue 25; docs/architecture.md): layers that import
// only downwards, subsystems that reach each other only through their face
// (index.ts), no import cycles, and modules/ (the native hotspots' fallbacks)
// importing nothing of src/. The graph is read from the sources with the
// TypeScript parser, type-only imports included (test/support/imports.ts).
//
// There is no allowlist and no exemption (src/main.ts too reaches the
// subsystems only through their faces), so any violation fails the suite; the
// negative controls plant one violation of each rule in a made-up graph.
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, importsOf, namesOf, type Edge } from '../support/imports.ts';
import { LAYERS } from '../support/layers.ts';
import { documented, runtimeImports, testCounts } from '../../tools/test-counts.mjs';

const ROOT = join(import.meta.dirname, '../..');



/** Folders whose files other folders may import directly: the platform under the subsystems. */
const OPEN_FOLDERS = new Set(['modules', 'util', 'hal', 'version', 'net', 'log', 'core']);

function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'modules') return 'modules';
  return parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.ts$/, '');
}

const graph = importGraph(ROOT, ['src', 'modules'], (f) => f.startsWith('src/web/page/') || f.includes('/test/'));

interface Findings {
  unknownFolders: string[];
  upward: string[];
  throughFace: string[];
  modules: string[];
  fileCycles: string[];
  folderCycles: string[];
}

function findings(graph: { files: string[]; edges: Edge[] }): Findings {
  const folders = new Set(graph.files.map(folderOf));
  const unknownFolders = [...folders].filter((f) => !(f in LAYERS)).sort();
  const upward: string[] = [];
  const throughFace: string[] = [];
  const modules: string[] = [];
  for (const { from, to } of graph.edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === 'modules' && !to.startsWith('modules/')) modules.push(`${from} -> ${to}`);
    if (a === b) continue;
    if ((LAYERS[b] ?? 0) > (LAYERS[a] ?? 0)) upward.push(`${from} -> ${to}`);
    if (!OPEN_FOLDERS.has(b) && to !== `src/${b}/index.ts`) throughFace.push(`${from} -> ${to}`);
  }
  const fileCycles = cycles(graph.files, graph.edges.map((e) => [e.from, e.to])).map((g) => g.join(' '));
  const folderEdges = graph.edges.map((e) => [folderOf(e.from), folderOf(e.to)] as [string, string]).filter(([a, b]) => a !== b);
  const folderCycles = cycles([...folders], folderEdges).map((g) => g.join(' '));
  const uniq = (xs: string[]): string[] => [...new Set(xs)].sort();
  return { unknownFolders, upward: uniq(upward), throughFace: uniq(throughFace), modules: uniq(modules), fileCycles, folderCycles };
}

const now = findings(graph);

describe('the firmware\'s shape', () => {
  it('every folder of src/ has a place in the layer table', () => {
    expect(now.unknownFolders).toEqual([]);
  });

  for (const rule of ['upward', 'throughFace', 'modules', 'fileCycles', 'folderCycles'] as const) {
    const what = {
      upward: 'imports from a lower layer to a higher one',
      throughFace: 'cross-folder imports of a subsystem file that is not its index.ts',
      modules: 'imports from modules/ into src/',
      fileCycles: 'file import cycles',
      folderCycles: 'folder import cycles',
    }[rule];
    it(`no ${what}`, () => {
      expect(now[rule]).toEqual([]);
    });
  }

  it('finds each kind of violation (negative controls: one of each planted in a made-up graph)', () => {
    const edge = (from: string, to: string): Edge => ({ from, to });
    const planted = findings({
      files: ['src/util/a.ts', 'src/turn/index.ts', 'src/turn/engine.ts', 'src/memory/index.ts', 'src/memory/store.ts', 'modules/x/x.ts', 'src/zzz/q.ts', 'src/main.ts'],
      edges: [
        edge('src/util/a.ts', 'src/turn/index.ts'), // a low layer reaching up
        edge('src/main.ts', 'src/memory/store.ts'), // past a face, from main.ts
        edge('modules/x/x.ts', 'src/util/a.ts'), // modules/ into src/
        edge('src/turn/engine.ts', 'src/turn/index.ts'), // a file cycle
        edge('src/turn/index.ts', 'src/turn/engine.ts'),
        edge('src/memory/index.ts', 'src/turn/index.ts'), // a folder cycle memory <-> turn
        edge('src/turn/engine.ts', 'src/memory/index.ts'),
      ],
    });
    expect(planted.unknownFolders).toEqual(['zzz']);
    expect(planted.upward).toEqual(['modules/x/x.ts -> src/util/a.ts', 'src/memory/index.ts -> src/turn/index.ts', 'src/util/a.ts -> src/turn/index.ts']);
    expect(planted.throughFace).toEqual(['src/main.ts -> src/memory/store.ts']);
    expect(planted.modules).toEqual(['modules/x/x.ts -> src/util/a.ts']);
    expect(planted.fileCycles).toEqual(['src/memory/index.ts src/turn/engine.ts src/turn/index.ts']);
    expect(planted.folderCycles).toEqual(['memory turn']);
    expect(folderOf('src/turn/engine.ts')).toBe('turn');
    expect(folderOf('src/main.ts')).toBe('main');
    expect(graph.edges.some((e) => e.from === 'src/main.ts')).toBe(true);
  });

  it('reads every form of import with the TypeScript parser', () => {
    const text = [
      "import {",
      "  a, // the owner's choice: a quote in a comment",
      "  b,",
      "} from './one.ts';",
      "import type { T } from './two.ts';",
      "export { c } from './three.ts';",
      "export * from './four.ts';",
      "const m = await import('./five.ts');",
      "let t: import('./six.ts').Six;",
      "const s = \"import x from './not-an-import.ts'\";",
      "// import y from './commented.ts';",
    ].join('\n');
    expect(importsOf(text)).toEqual(['./one.ts', './two.ts', './three.ts', './four.ts', './five.ts', './six.ts']);
  });
});

/** What a face may export beyond what other folders of src/ import from it: the types of its options and its face. */
const FACE_API = /(Options|Face|Needs)$/;

/** Face exports no other folder of src/ imports (the subsystem's declared option and face types aside). */
function extraExports(sources: Record<string, string>): string[] {
  const used = new Map<string, Set<string>>();
  for (const [file, text] of Object.entries(sources)) {
    for (const { spec, names } of namesOf(text, file).imports) {
      if (!spec.startsWith('.')) continue;
      const to = normalize(join(dirname(file), spec)).split('\\').join('/');
      if (folderOf(to) === folderOf(file)) continue;
      const set = used.get(to) ?? new Set<string>();
      for (const n of names) set.add(n);
      used.set(to, set);
    }
  }
  const faces = Object.keys(sources).filter((f) => /^src\/[a-z]+\/index\.ts$/.test(f) && !OPEN_FOLDERS.has(folderOf(f)) && folderOf(f) !== 'contracts');
  return faces.flatMap((face) => namesOf(sources[face]!, face).exports.filter((n) => !FACE_API.test(n) && !used.get(face)?.has(n)).map((n) => `${face}: ${n}`));
}

describe('the faces', () => {
  const sources = Object.fromEntries(graph.files.filter((f) => f.startsWith('src/')).map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));

  it('export only what another folder of src/ imports, and the types of their options and face', () => {
    expect(extraExports(sources)).toEqual([]);
  });

  it('an export nobody imports is found (negative control)', () => {
    const planted = { ...sources, 'src/memory/index.ts': `${sources['src/memory/index.ts']}\nexport const UNUSED_HELPER = 1;\n` };
    expect(extraExports(planted)).toEqual(['src/memory/index.ts: UNUSED_HELPER']);
  });
});

/** The tests at the root of test/unit/: the repository's own checks, the build's and the device host's, each with what it tests. */
const ROOT_TESTS: Record<string, string> = {
  'architecture.test.ts': 'the repository: layers, faces, cycles, where tests live',
  'repo-checks.test.ts': 'the repository: typecheck, lint, host independence, file sizes',
  'board-manifests.test.ts': 'the build: board manifests against their descriptors',
  'boards.test.ts': 'the build: the board descriptors',
  'check-device.test.ts': 'the build: npm run check:device',
  'device-build.test.ts': 'the build: the device bundle without the SDK',
  'device-memory-doc.test.ts': "the build: docs/device.md's creation sizes",
  'device-sdk.test.ts': "the build: the SDK's stages of the device build",
  'fuzz-c.test.ts': 'the build: the C parsers fuzzed',
  'licenses.test.ts': 'the build: the licence inventory',
  'manifest.test.ts': 'the build: the Moddable manifests',
  'mp3-vectors.test.ts': "the build: minimp3's conformance vectors",
  'partitions.test.ts': 'the build: the flash layout',
  'sdk-locate.test.ts': 'the build: finding the SDK',
  'sdk-modules.test.ts': "the build: the SDK modules the bundle imports",
  'sdk-patches.test.ts': "the build: our fixes to the SDK's sources",
  'device-audio.test.ts': "the ESP32 host: the speaker",
  'device-mic.test.ts': 'the ESP32 host: the microphone',
  'device-watchdog.test.ts': "the ESP32 host: the task watchdog's settings",
  'es8311.test.ts': 'the ESP32 host: the ES8311 codec',
  'gatt-json.test.ts': "the ESP32 host: the GATT table",
};

describe('where the tests live', () => {
  const counts = testCounts();

  it("docs/architecture.md's figures are what node tools/test-counts.mjs computes", () => {
    expect(documented(), 'run node tools/test-counts.mjs --write').toEqual({ mounting: counts.mounting, total: counts.total, booting: counts.booting.length });
  });

  it('every test that boots the whole device says why in its first line, and no kernel test boots it', () => {
    const silent = counts.booting.filter((f) => !/^\/\/ Boots the whole device: \S.*$/m.test(readFileSync(join(ROOT, f), 'utf8').split('\n')[0]!));
    expect(silent).toEqual([]);
    expect(counts.booting.filter((f) => f.startsWith('test/unit/core/'))).toEqual([]);
  });

  it('the root of test/unit/ holds only the repository\'s, the build\'s and the device host\'s tests', () => {
    expect(counts.root.map((f) => f.slice('test/unit/'.length)).sort()).toEqual(Object.keys(ROOT_TESTS).sort());
  });

  it('tells booting from not (a type-only import of src/main.ts loads nothing)', () => {
    expect(runtimeImports('test/unit/x.test.ts', "import { boot } from '../../src/main.ts';")).toEqual(['src/main.ts']);
    expect(runtimeImports('test/unit/x.test.ts', "import type * as Main from '../../src/main.ts';\nexport type { Device } from '../../src/main.ts';")).toEqual([]);
    expect(counts.booting).toContain('test/unit/agents/flow.test.ts'); // through test/support/agent-rig.ts
    expect(counts.booting).not.toContain('test/unit/core/form-route.test.ts'); // test/support/kernel.ts imports main.ts's types only
  });
});
