// The skills' tools: skill.list and skill.get (open), skill.save (admin-only,
// refused in unattended turns; the owner is told a capsule waits) and
// skill.delete (admin-only, agent-authored only).

import { fail, ok, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import type { Clock } from '../hal/index.ts';
import { stringify } from '../util/json.ts';
import { SKILL_MD_MAX_BYTES } from './capsule.ts';
import { PENDING_MAX, type SkillFail, type SkillOutcome, type SkillStore } from './store.ts';

const TOOL_ERROR: Record<SkillFail, string> = { 'bad-input': 'bad-arguments', 'not-found': 'not-found', reserved: 'reserved', limit: 'limit', refused: 'refused', 'no-card': 'no-card', storage: 'storage' };

function toolResult<T>(o: SkillOutcome<T>, output?: (v: T) => string): ToolResult {
  return o.ok ? ok(output ? output(o.value) : o.message) : fail(TOOL_ERROR[o.code], o.message);
}

/** notify posts an owner notice (the chat's outbox). */
export function skillTools(skills: SkillStore, notify: (key: string, text: string) => void, clock: Pick<Clock, 'monoMs'>): ToolSpec[] {
  return [
    {
      name: 'skill.list',
      description: 'Skill capsules: id, title, inject (spawn or both: carried in sub-agent briefs that name the skill), approved, who wrote it. JSON.',
      schema: { type: 'object', properties: {}, additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: () => ok(stringify({ skills: skills.list(), pending: skills.pendingAgent(), pendingMax: PENDING_MAX })),
    },
    {
      name: 'skill.get',
      description: 'One skill capsule with its markdown.',
      schema: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 23 } }, required: ['id'], additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: (args) => toolResult(skills.get(String(args.id)), (v) => stringify(v)),
    },
    {
      name: 'skill.save',
      description:
        'Save a skill capsule: markdown instructions for sub-agents, with optional front matter (---, title: ..., inject: spawn, ---). ' +
        'It stays inert until the owner approves it; at most 4 of yours wait at a time; built-in ids (research, summarize, compare) are reserved.',
      schema: {
        type: 'object',
        properties: {
          id: { type: 'string', minLength: 1, maxLength: 23, description: 'a-z, 0-9, - and _' },
          md: { type: 'string', minLength: 1, description: `the capsule (at most ${SKILL_MD_MAX_BYTES} bytes)` },
        },
        required: ['id', 'md'],
        additionalProperties: false,
      },
      access: 'admin',
      where: 'both',
      unattended: false,
      handler: (args, caller) => {
        const r = skills.save(String(args.id), String(args.md), caller.via === 'mcp' ? 'mcp' : 'model');
        if (r.ok) notify(`skill:${r.value.id}:${clock.monoMs()}`, `The assistant saved a skill that waits for your approval: ${r.value.id}${r.value.title ? ` ("${r.value.title}")` : ''}. The web page (Assistant > Skills) shows it; reply /skill approve ${r.value.id} to allow it, or /skill deny ${r.value.id} to delete it.`);
        return toolResult(r);
      },
    },
    {
      name: 'skill.delete',
      description: 'Delete a skill capsule the assistant saved (the owner\'s and built-in ones cannot be deleted here).',
      schema: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 23 } }, required: ['id'], additionalProperties: false },
      access: 'admin',
      where: 'both',
      handler: (args) => toolResult(skills.remove(String(args.id), true)),
    },
  ];
}
