// The brief a sub-agent gets, in the spec's dispatch order:
//   1. a now-header with the date and the owner's local time, its zone and UTC
//      offset (the local time's nowStamp(); left out while the clock is unsynced);
//   2. the skill capsule (at most 4096 bytes), only when it is approved and its
//      inject is spawn or both;
//   3. a separator line, then the task (at most 4095 bytes) as the lead instruction;
//   4. [CONTEXT]: the last 6 messages of the spawning conversation, one line each
//      of at most 300 characters, within 1200 bytes (the oldest go first);
//   5. [ATTACHED: <project>/<name>] and the document's full text, for up to 4
//      documents within 24 KB together; a document that cannot be read gets an
//      explicit note instead, and one past the budget is cut with a note.
// Parts are separated by a blank line. Notes for the spawning model (a skill
// not injected, an attachment missing) come back beside the text.

import { capBytes } from '../util/cap.ts';
import { utf8Length } from '../util/utf8.ts';
import { ATTACH_MAX, ATTACH_TOTAL_BYTES, CONTEXT_BYTES, CONTEXT_LINE_CHARS, CONTEXT_MESSAGES, SKILL_BYTES, TASK_BYTES } from './limits.ts';
import type { AgentDocs, AgentSkills } from './ports.ts';
import { capChars, oneLine } from './text.ts';
import type { SpawnSpec } from '../contracts/index.ts';
import type { JobOrigin } from './types.ts';

export const SEPARATOR = '-----';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const TRAILING_STOP = /\.+$/;

export interface ContextMessage {
  role: 'user' | 'assistant';
  text: string;
}

export interface BriefDeps {
  /** 'Sun 2026-11-22 10:00 CET (UTC+01:00)' in the owner's time zone, or null while the clock is unsynced (the local time's nowStamp). */
  now(): string | null;
  skills: AgentSkills;
  docs: AgentDocs;
  /** The spawning chat's messages since it was last cleared, newest first (at least CONTEXT_MESSAGES if there are). */
  conversation(chat: string): ContextMessage[];
}

export interface Brief {
  text: string;
  notes: string[];
}

function contextBlock(messages: ContextMessage[]): string {
  const lines = messages
    .slice(0, CONTEXT_MESSAGES)
    .reverse()
    .map((m) => capChars(`${m.role}: ${oneLine(m.text)}`, CONTEXT_LINE_CHARS).text);
  let bytes = lines.reduce((n, l) => n + utf8Length(l) + 1, 0);
  // Over the budget: the oldest lines go first.
  while (lines.length && bytes > CONTEXT_BYTES) bytes -= utf8Length(lines.shift()!) + 1;
  return lines.length ? ['[CONTEXT]', ...lines].join('\n') : '';
}

function splitRef(ref: string): { project: string; name: string } | null {
  const i = ref.indexOf('/');
  if (i <= 0 || i === ref.length - 1) return null;
  return { project: ref.slice(0, i), name: ref.slice(i + 1) };
}

export function buildBrief(spec: SpawnSpec & JobOrigin, deps: BriefDeps): Brief {
  const parts: string[] = [];
  const notes: string[] = [];
  const now = deps.now();
  if (now) parts.push(`Now: ${now}`);

  if (spec.skill) {
    const capsule = deps.skills.capsule(spec.skill);
    const inject = capsule ? capsule.inject.trim().toLowerCase() : '';
    if (!capsule) notes.push(`skill ${spec.skill} does not exist: not injected`);
    else if (!capsule.approved) notes.push(`skill ${spec.skill} is not approved: not injected`);
    else if (inject !== 'spawn' && inject !== 'both') notes.push(`skill ${spec.skill} is not for spawn briefs (inject: ${inject || 'none'}): not injected`);
    else parts.push(capBytes(capsule.md.trim(), SKILL_BYTES));
  }

  parts.push(`${SEPARATOR}\n${capBytes(spec.task.trim(), TASK_BYTES)}`);

  const context = contextBlock(deps.conversation(spec.chat));
  if (context) parts.push(context);

  let left = ATTACH_TOTAL_BYTES;
  for (const ref of spec.attach.slice(0, ATTACH_MAX)) {
    const head = `[ATTACHED: ${ref}]`;
    const where = splitRef(ref);
    const doc = where ? deps.docs.read(spec.person, where.project, where.name) : { ok: false as const, reason: 'not a <project>/<name> reference' };
    if (!doc.ok) {
      const why = doc.reason.replace(TRAILING_STOP, '');
      parts.push(`${head}\n(This document could not be attached: ${why}.)`);
      notes.push(`${ref} not attached: ${why}`);
      continue;
    }
    if (left <= 0) {
      parts.push(`${head}\n(Not included: the ${ATTACH_TOTAL_BYTES / 1024} KB budget for attachments is spent.)`);
      notes.push(`${ref} not attached: the attachment budget is spent`);
      continue;
    }
    const text = capBytes(doc.text, left);
    left -= utf8Length(text);
    if (text.length < doc.text.length) {
      parts.push(`${head}\n${text}\n(Cut here: the ${ATTACH_TOTAL_BYTES / 1024} KB budget for attachments is spent.)`);
      notes.push(`${ref} cut at the attachment budget`);
    } else parts.push(`${head}\n${text}`);
  }
  return { text: parts.join('\n\n'), notes };
}
