// Reading the documentation pack: list files and sections, search sections
// by keywords (every keyword must occur: an AND match, case-insensitive,
// in the title or the text), read one section by id, and suggest near-miss
// ids for an unknown one. Cheap enough for XS: one lowercase copy of each
// section, made on first search; no edit distances.

import type { DocsPack, DocSection } from './pack.ts';
import { replaceEvery } from '../util/replace.ts';
import { stringify } from '../util/json.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const NON_ALNUM_RUN = /[^a-z0-9]+/;
const WHITESPACE_RUNS = /\s+/;
const MD_EXTENSION = /\.md$/;
const DOCS_PREFIX = /^docs\//;
const QUERY_SEPARATORS = /[\s,;]+/;

/** Most search hits listed. */
export const MAX_HITS = 8;
/** Longest section text returned by read (in characters); longer text is cut with a note. */
export const MAX_READ_CHARS = 8000;
const SNIPPET_CHARS = 120;

export type DocsAnswer = { ok: true; text: string } | { ok: false; kind: 'not-found' | 'bad-query'; text: string };

function words(s: string): string[] {
  return s
    .toLowerCase()
    .split(NON_ALNUM_RUN)
    .filter((w) => w.length > 0);
}

function oneLine(s: string): string {
  return replaceEvery(s, WHITESPACE_RUNS, ' ').trim();
}

function count(hay: string, needle: string): number {
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0 && n < 10; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

export class Docs {
  private lower: string[] | null = null;

  constructor(readonly pack: DocsPack) {}

  empty(): boolean {
    return this.pack.sections.length === 0;
  }

  /** Without a file: the files. With one: its sections, indented by level. */
  list(file?: string): DocsAnswer {
    if (this.empty()) return { ok: true, text: 'This firmware build carries no documentation pack.' };
    if (file === undefined) {
      return {
        ok: true,
        text: this.pack.files
          .map((f) => `${f.slug} (${f.path}): ${f.title}, ${this.pack.sections.filter((s) => s.file === f.slug).length} sections`)
          .join('\n'),
      };
    }
    const slug = file.trim().toLowerCase().replace(MD_EXTENSION, '').replace(DOCS_PREFIX, '');
    if (!this.pack.files.some((f) => f.slug === slug)) {
      return { ok: false, kind: 'not-found', text: `No documentation file ${stringify(file)}. Files: ${this.pack.files.map((f) => f.slug).join(', ')}.` };
    }
    const lines = this.pack.sections
      .filter((s) => s.file === slug)
      .map((s) => `${'  '.repeat(Math.max(0, s.level - 1))}${s.id}: ${s.title}`);
    return { ok: true, text: lines.join('\n') };
  }

  /** Sections containing every keyword of query, best first. */
  search(query: string): DocsAnswer {
    const terms = [...new Set(query.toLowerCase().split(QUERY_SEPARATORS).filter((t) => t.length > 0))];
    if (terms.length === 0) return { ok: false, kind: 'bad-query', text: 'The query has no keywords.' };
    if (this.empty()) return { ok: true, text: 'This firmware build carries no documentation pack.' };
    const lower = this.lowered();
    const hits: Array<{ s: DocSection; score: number; at: number }> = [];
    this.pack.sections.forEach((s, i) => {
      const hay = lower[i]!;
      if (!terms.every((t) => hay.indexOf(t) >= 0)) return;
      const title = s.title.toLowerCase();
      let score = 0;
      for (const t of terms) score += (title.indexOf(t) >= 0 ? 5 : 0) + count(hay, t);
      hits.push({ s, score, at: i });
    });
    if (hits.length === 0) return { ok: true, text: `No section contains all of: ${terms.join(', ')}.` };
    hits.sort((a, b) => b.score - a.score || a.at - b.at);
    const lines = hits.slice(0, MAX_HITS).map(({ s }) => `- ${s.id}: ${s.title} | ${this.snippet(s, terms[0]!)}`);
    const more = hits.length > MAX_HITS ? [`(${hits.length - MAX_HITS} more; add keywords to narrow)`] : [];
    return { ok: true, text: [`${hits.length} section${hits.length === 1 ? '' : 's'} match:`, ...lines, ...more].join('\n') };
  }

  /** One section by id, with the ids of its subsections. */
  read(id: string): DocsAnswer {
    const want = id.trim();
    const i = this.pack.sections.findIndex((s) => s.id === want);
    if (i < 0) {
      const near = this.nearMisses(want);
      const hint = near.length ? ` Did you mean: ${near.join(', ')}?` : this.empty() ? ' This firmware build carries no documentation pack.' : ' docs.list shows the ids.';
      return { ok: false, kind: 'not-found', text: `No section ${stringify(want.slice(0, 80))}.${hint}` };
    }
    const s = this.pack.sections[i]!;
    const children: string[] = [];
    for (let j = i + 1; j < this.pack.sections.length; j++) {
      const c = this.pack.sections[j]!;
      if (c.file !== s.file || c.level <= s.level) break;
      children.push(c.id);
    }
    let body = s.text;
    let cut = '';
    if (body.length > MAX_READ_CHARS) {
      body = body.slice(0, MAX_READ_CHARS);
      cut = `\n(cut at ${MAX_READ_CHARS} characters)`;
    }
    const subs = children.length ? `\n\nSubsections: ${children.join(', ')}` : '';
    return { ok: true, text: `${'#'.repeat(Math.max(1, s.level))} ${s.title}\n\n${body}${cut}${subs}` };
  }

  /** Up to 3 ids sharing the most words with the unknown one (the same file first). */
  nearMisses(id: string): string[] {
    const [fileWant = '', headWant = ''] = id.toLowerCase().split('#');
    const wanted = new Set(words(`${fileWant} ${headWant}`));
    const fileSlug = fileWant.replace(MD_EXTENSION, '').replace(DOCS_PREFIX, '');
    const scored = this.pack.sections
      .map((s, at) => {
        const [f = '', h = ''] = s.id.split('#');
        let score = 0;
        for (const w of words(h)) if (wanted.has(w)) score += 2;
        if (f === fileSlug) score += headWant ? 1 : 3;
        return { id: s.id, score, at };
      })
      .filter((x) => x.score > 0);
    scored.sort((a, b) => b.score - a.score || a.at - b.at);
    return scored.slice(0, 3).map((x) => x.id);
  }

  private snippet(s: DocSection, term: string): string {
    const text = oneLine(s.text);
    const at = text.toLowerCase().indexOf(term);
    if (at < 0) return text.slice(0, SNIPPET_CHARS);
    const from = Math.max(0, at - 40);
    return `${from > 0 ? '...' : ''}${text.slice(from, from + SNIPPET_CHARS)}${from + SNIPPET_CHARS < text.length ? '...' : ''}`;
  }

  private lowered(): string[] {
    if (!this.lower) this.lower = this.pack.sections.map((s) => `${s.title}\n${s.text}`.toLowerCase());
    return this.lower;
  }
}
