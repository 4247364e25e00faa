// Skill capsules (spec, "Skill capsule"): an id of a-z 0-9 - _ (at most 23
// characters) and markdown with optional front matter (title:, inject: spawn
// or both, and our provider: for the connector-matching provider choice).
// Front matter is the first lines between two '---' lines, one 'key: value'
// each; anything else in it is kept in the text and ignored.
//
// Built-in capsules ship in the firmware, approved, and their ids are
// reserved: skill.save cannot shadow them and nothing deletes them.

import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
export const SKILL_ID = /^[a-z0-9_-]{1,23}$/;
const FRONT_LINE = /^([A-Za-z_]+)\s*:\s*(.*)$/;
const NEWLINES = /\r\n?/;
const QUOTES = /^["']|["']$/;

/** The brief's cap (spec, Limits "Brief"); a longer capsule is refused rather than cut. */
export const SKILL_MD_MAX_BYTES = 4096;
export const TITLE_MAX_BYTES = 60;

export interface FrontMatter {
  title: string;
  /** 'spawn', 'both', or '' (not injected). */
  inject: string;
  /** A provider the capsule names for its spawns ('' none). */
  provider: string;
  /** The markdown after the front matter. */
  body: string;
}

export function parseCapsule(md: string): FrontMatter {
  const text = replaceEvery(md, NEWLINES, '\n');
  const out: FrontMatter = { title: '', inject: '', provider: '', body: text.trim() };
  if (!text.startsWith('---\n')) return out;
  const end = text.indexOf('\n---', 3);
  if (end < 0) return out;
  for (const line of text.slice(4, end).split('\n')) {
    const m = FRONT_LINE.exec(line.trim());
    if (!m) continue;
    const key = m[1]!.toLowerCase();
    const value = replaceEvery(m[2]!.trim(), QUOTES, '');
    if (key === 'title') out.title = value;
    else if (key === 'inject') out.inject = value.toLowerCase();
    else if (key === 'provider') out.provider = value.toLowerCase();
  }
  const after = text.indexOf('\n', end + 1);
  out.body = (after < 0 ? '' : text.slice(after + 1)).trim();
  return out;
}

export function injects(inject: string): boolean {
  return inject === 'spawn' || inject === 'both';
}

export interface BuiltinSkill {
  id: string;
  md: string;
}

/** The reserved ids: these capsules ship approved in the firmware. */
export const BUILTIN_SKILLS: readonly BuiltinSkill[] = [
  {
    id: 'research',
    md:
      '---\ntitle: Research brief\ninject: spawn\n---\n' +
      'You research for the owner of a small desk assistant. Prefer primary sources; give the date of every figure; keep facts apart from judgement. ' +
      'End with the sources you used (title and address) and say plainly what you could not find.',
  },
  {
    id: 'summarize',
    md:
      '---\ntitle: Summary\ninject: spawn\n---\n' +
      'Summarize for a busy reader: the answer in one sentence first, then at most five points, then open questions. ' +
      'Keep names, numbers and dates exact and add nothing the material does not say.',
  },
  {
    id: 'compare',
    md:
      '---\ntitle: Comparison\ninject: spawn\n---\n' +
      'Compare the options the task names on the criteria that matter for the decision: a short table (one row per option), ' +
      'then the trade-offs in plain words, then a recommendation with the one condition that would change it.',
  },
];

export function builtin(id: string): BuiltinSkill | null {
  return BUILTIN_SKILLS.find((b) => b.id === id) ?? null;
}
