// The embedded documentation pack (spec Versioning 8: it ships in the
// firmware image): README.md and docs/*.md split into sections at build time,
// so the device never parses Markdown. tools/build.mjs injects it into the
// firmware as the define __DOCS_PACK__ (src/docs/pack.ts reads it); unit
// tests call docsPack() and hand the result to the docs tools.
//
// A section runs from one heading to the next heading of any level, so each
// is small to read. Its id is <file-slug>#<heading-slug>: the file name
// without .md, lowercased (readme, decisions, ...), and the heading slugged
// as GitHub does (lowercase; characters other than letters, digits, spaces,
// '-' and '_' dropped; spaces to '-'; a repeated slug gets -1, -2, ...).
// Text before a file's first heading becomes the section <file>#intro.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The Markdown files of the pack, relative to the repository root, in pack order. */
/**
 * The engineering records (why each decision, which spec row a test covers)
 * are for the people who build the firmware, not for its owner or the
 * assistant: at 450 KB they would take a third of what the image has left for
 * the SDK's code (npm run build:device prints the margin), so they stay out.
 */
export const NOT_PACKED = new Set(['docs/decisions.md', 'docs/spec-coverage.md']);

export function docsFiles(root) {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .filter((f) => !NOT_PACKED.has(`docs/${f}`))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export function slugify(heading) {
  const s = heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .trim()
    .replace(/ /g, '-');
  return s || 'section';
}

/** Splits one Markdown text into sections (headings inside code fences are text). */
export function parseMarkdown(text) {
  const sections = [];
  let current = { level: 0, title: '', lines: [] };
  let fence = null;
  const close = () => {
    const body = current.lines.join('\n').replace(/^\s*\n/, '').trimEnd();
    if (current.level > 0 || body.trim()) sections.push({ level: current.level, title: current.title, text: body });
  };
  for (const line of text.split(/\r?\n/)) {
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) fence = fence === null ? f[1] : fence === f[1] ? null : fence;
    const h = fence === null && !f ? /^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line) : null;
    if (h) {
      close();
      current = { level: h[1].length, title: h[2], lines: [] };
    } else current.lines.push(line);
  }
  close();
  return sections;
}

/** The pack: files (slug, path, title) and sections (id, file, level, title, text). */
export function docsPack(root) {
  const files = [];
  const sections = [];
  for (const path of docsFiles(root)) {
    const slug = basename(path, '.md').toLowerCase();
    const parsed = parseMarkdown(readFileSync(join(root, path), 'utf8'));
    const seen = new Map();
    const title = parsed.find((s) => s.level > 0)?.title ?? path;
    files.push({ slug, path, title });
    for (const s of parsed) {
      let heading = s.level === 0 ? 'intro' : slugify(s.title);
      const n = seen.get(heading) ?? 0;
      seen.set(heading, n + 1);
      if (n > 0) heading = `${heading}-${n}`;
      sections.push({ id: `${slug}#${heading}`, file: slug, level: s.level, title: s.level === 0 ? title : s.title, text: s.text });
    }
  }
  return { files, sections };
}
