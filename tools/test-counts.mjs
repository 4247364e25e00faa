#!/usr/bin/env node
// The unit tests' numbers that docs/architecture.md quotes, computed from the
// sources: how many unit test files there are, which of them boot the whole
// device (src/main.ts, imported by the test or by a rig it imports; a
// type-only import does not boot anything), and which tests sit at the root
// of test/unit/. test/unit/architecture.test.ts checks the page against it.
//
//   node tools/test-counts.mjs            prints the figures
//   node tools/test-counts.mjs --write    writes them into docs/architecture.md
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(ROOT, 'docs/architecture.md');
const MAIN = 'src/main.ts';

function walk(dir, out = []) {
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The relative imports of a file that load code (type-only imports left out), resolved to repository paths. */
export function runtimeImports(file, text = readFileSync(join(ROOT, file), 'utf8')) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out = [];
  for (const s of source.statements) {
    let spec = null;
    if (ts.isImportDeclaration(s) && !s.importClause?.isTypeOnly) spec = s.moduleSpecifier;
    else if (ts.isExportDeclaration(s) && !s.isTypeOnly && s.moduleSpecifier) spec = s.moduleSpecifier;
    if (spec && ts.isStringLiteral(spec) && spec.text.startsWith('.')) out.push(normalize(join(dirname(file), spec.text)).split('\\').join('/'));
  }
  return out;
}

/** Does this test file load src/main.ts, itself or through the test-side modules it imports? */
function bootsDevice(file, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  for (const to of runtimeImports(file)) {
    if (to === MAIN) return true;
    if (to.startsWith('test/') && bootsDevice(to, seen)) return true;
  }
  return false;
}

export function testCounts() {
  const tests = walk('test/unit').filter((f) => f.endsWith('.test.ts')).sort();
  const booting = tests.filter((f) => bootsDevice(f));
  const root = tests.filter((f) => f.split('/').length === 3);
  return { total: tests.length, booting, mounting: tests.length - booting.length, root };
}

/** The sentence of docs/architecture.md that carries the figures, as the figures make it. */
const FIGURES = /(\d+) of the (\d+) unit test files \(`node tools\/test-counts\.mjs`\) mount what they test([\s\S]*?)The (\d+) that boot\b/;

export function documented(doc = readFileSync(DOC, 'utf8')) {
  const m = FIGURES.exec(doc);
  return m ? { mounting: Number(m[1]), total: Number(m[2]), booting: Number(m[4]) } : null;
}

function write(c) {
  const doc = readFileSync(DOC, 'utf8');
  if (!FIGURES.test(doc)) throw new Error('test-counts: docs/architecture.md has no figures sentence to update');
  writeFileSync(DOC, doc.replace(FIGURES, (_m, _a, _b, between) => `${c.mounting} of the ${c.total} unit test files (\`node tools/test-counts.mjs\`) mount what they test${between}The ${c.booting.length} that boot`));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const c = testCounts();
  console.log(`unit test files: ${c.total}`);
  console.log(`mount what they test (or test one part alone): ${c.mounting}`);
  console.log(`boot the whole device: ${c.booting.length}`);
  for (const f of c.booting) console.log(`  ${relative(ROOT, join(ROOT, f))}`);
  console.log(`at the root of test/unit/: ${c.root.length}`);
  for (const f of c.root) console.log(`  ${f}`);
  if (process.argv.includes('--write')) {
    write(c);
    console.log('docs/architecture.md: figures written');
  }
}
