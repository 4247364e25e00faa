#!/usr/bin/env node
// The repository stands alone: every relative link in its Markdown files
// resolves to a file inside it (and a #fragment to a heading of that file,
// by GitHub's slug rules, the docs pack's slugify), and no file points
// outside the checkout to a sibling folder. Links with a scheme (https:,
// mailto:) are not followed. test/unit/docs/links.test.ts runs it;
// `node tools/doc-links.mjs` prints what is wrong and exits 1.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { slugify } from './docs-pack.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const SKIP_DIRS = new Set(['node_modules', 'build', '.git', '.sim', 'test-results']);

/** The checkout's files (tracked, and new ones not ignored), relative to root; a walk when it is not a git checkout. */
export function repositoryFiles(root = ROOT) {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\0').filter((f) => f && existsSync(join(root, f)));
  } catch {
    const files = [];
    const walk = (dir) => {
      for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name)) walk(join(dir, e.name));
        } else files.push(join(dir, e.name));
      }
    };
    walk('');
    return files;
  }
}

/** The text outside fenced code blocks, line by line (a fence's lines become empty, so line numbers hold). */
function prose(text) {
  let fence = null;
  return text.split('\n').map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1][0].repeat(m[1].length);
      else if (m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      return '';
    }
    return fence ? '' : line;
  });
}

/** The anchors GitHub makes for a Markdown file's headings, duplicates numbered -1, -2, ... */
export function anchorsOf(text) {
  const seen = new Map();
  const anchors = new Set();
  for (const line of prose(text)) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slugify(m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** Every link of a Markdown text outside code: [text](target), ![alt](target), [id]: target, <a href="target">. */
export function linksOf(text) {
  const links = [];
  prose(text).forEach((raw, i) => {
    const line = raw.replace(/`+[^`]*`+/g, (c) => ' '.repeat(c.length));
    for (const m of line.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)) links.push({ target: m[1], line: i + 1 });
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (def) links.push({ target: def[1], line: i + 1 });
    for (const m of line.matchAll(/<a\s[^>]*href="([^"]+)"/gi)) links.push({ target: m[1], line: i + 1 });
  });
  return links;
}

/** Problems with the relative links of the Markdown files under root: { file, line, target, problem }. */
export function checkLinks(root = ROOT, files = repositoryFiles(root).filter((f) => f.endsWith('.md'))) {
  const problems = [];
  const anchorCache = new Map();
  const anchors = (abs) => {
    if (!anchorCache.has(abs)) anchorCache.set(abs, anchorsOf(readFileSync(abs, 'utf8')));
    return anchorCache.get(abs);
  };
  const rootAbs = resolve(root);
  for (const file of files) {
    const abs = resolve(root, file);
    for (const { target, line } of linksOf(readFileSync(abs, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const fragment = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
      const dest = pathPart ? resolve(dirname(abs), pathPart) : abs;
      const report = (problem) => problems.push({ file, line, target, problem });
      if (dest !== rootAbs && !dest.startsWith(rootAbs + sep)) {
        report('points outside the repository');
        continue;
      }
      if (!existsSync(dest)) {
        report(`no such file: ${relative(rootAbs, dest)}`);
        continue;
      }
      if (fragment === null || fragment === '') continue;
      if (statSync(dest).isDirectory() || !dest.endsWith('.md')) {
        report('a #fragment on a file that is not Markdown');
        continue;
      }
      if (!anchors(dest).has(fragment)) report(`no heading #${fragment} in ${relative(rootAbs, dest)}`);
    }
  }
  return problems;
}

/** Files of the checkout whose text contains needle: { file, line }. */
export function mentions(needle, root = ROOT, files = repositoryFiles(root)) {
  const found = [];
  for (const file of files) {
    let text;
    try {
      text = readFileSync(join(root, file));
    } catch {
      continue;
    }
    if (text.includes(0) || !text.includes(needle)) continue;
    text
      .toString('utf8')
      .split('\n')
      .forEach((l, i) => {
        if (l.includes(needle)) found.push({ file, line: i + 1 });
      });
  }
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = checkLinks();
  for (const p of problems) console.log(`${p.file}:${p.line}: ${p.target}: ${p.problem}`);
  const outside = mentions(['..', 'shared'].join('/'));
  for (const m of outside) console.log(`${m.file}:${m.line}: mentions a folder beside the repository`);
  console.log(problems.length + outside.length ? `${problems.length + outside.length} problems` : 'every relative link resolves; nothing points beside the repository');
  process.exit(problems.length + outside.length ? 1 : 0);
}
