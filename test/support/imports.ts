// The firmware's import graph, read from the sources with the TypeScript
// parser (every import, export-from, dynamic import() and import("...") type
// in src/ and modules/, type-only ones included), for the architecture test
// and docs/architecture.md's picture. A parser, not a pattern: a multi-line
// import whose comment holds a quote is read like any other.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, normalize, dirname, relative } from 'node:path';
import ts from 'typescript';

/** The module specifiers a TypeScript source imports or re-exports, in source order. */
export function importsOf(text: string, fileName = 'file.ts'): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const literal = (n: ts.Node | undefined): void => {
    if (n && ts.isStringLiteralLike(n)) out.push(n.text);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) literal(n.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) literal(n.moduleReference.expression);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) literal(n.arguments[0]);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) literal(n.argument.literal);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}

/** The names a source exports at its top level (declared or listed), and the names it imports by module. */
export function namesOf(text: string, fileName = 'file.ts'): { exports: string[]; imports: Array<{ spec: string; names: string[] }> } {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const exports: string[] = [];
  const imports: Array<{ spec: string; names: string[] }> = [];
  for (const st of source.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteralLike(st.moduleSpecifier)) {
      const bound = st.importClause?.namedBindings;
      imports.push({ spec: st.moduleSpecifier.text, names: bound && ts.isNamedImports(bound) ? bound.elements.map((e) => (e.propertyName ?? e.name).text) : [] });
    } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
      const listed = st.exportClause.elements;
      exports.push(...listed.map((e) => e.name.text));
      if (st.moduleSpecifier && ts.isStringLiteralLike(st.moduleSpecifier)) imports.push({ spec: st.moduleSpecifier.text, names: listed.map((e) => (e.propertyName ?? e.name).text) });
    } else if (ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) exports.push(d.name.text);
      const named = st as ts.Node & { name?: ts.Node };
      if (named.name && ts.isIdentifier(named.name)) exports.push(named.name.text);
    }
  }
  return { exports, imports };
}

export interface Edge {
  from: string;
  to: string;
}

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
}

/** Every relative import between firmware files (paths relative to root, with /). */
export function importGraph(root: string, dirs: string[], skip: (file: string) => boolean): { files: string[]; edges: Edge[] } {
  const abs: string[] = [];
  for (const d of dirs) walk(join(root, d), abs);
  const files = abs.map((f) => relative(root, f).split('\\').join('/')).filter((f) => !skip(f));
  const edges: Edge[] = [];
  for (const f of files) {
    for (const spec of importsOf(readFileSync(join(root, f), 'utf8'), f)) {
      if (!spec.startsWith('.')) continue;
      const to = normalize(join(dirname(f), spec)).split('\\').join('/');
      if (to !== f) edges.push({ from: f, to });
    }
  }
  return { files, edges };
}

/** Strongly connected groups of more than one node (Tarjan), each sorted; the groups sorted. */
export function cycles(nodes: string[], edges: Array<[string, string]>): string[][] {
  const out = new Map<string, string[]>();
  for (const n of nodes) out.set(n, []);
  for (const [a, b] of edges) if (out.has(a) && out.has(b)) out.get(a)!.push(b);
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of out.get(v)!) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const g: string[] = [];
      for (;;) {
        const w = stack.pop()!;
        on.delete(w);
        g.push(w);
        if (w === v) break;
      }
      if (g.length > 1) groups.push(g.sort());
    }
  };
  for (const n of nodes) if (!idx.has(n)) visit(n);
  return groups.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}
