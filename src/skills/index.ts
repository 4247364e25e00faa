// The skills subsystem: the capsule store (src/skills/store.ts), plugged into
// the sub-agent fabric's skills port (capsules for briefs, a capsule's
// provider for the provider choice); the tools skill.list and skill.get
// (open), skill.save (admin-only, refused in unattended turns) and
// skill.delete (admin-only, agent-authored only); the chat command /skill
// approve | deny <id> (a bare /skill lists those waiting); GET and POST
// /api/skills for the web page's Assistant > Skills.
//
// Routes (token-gated: the token holder is the owner):
//   GET  /api/skills            {skills: [...], pending, pendingMax}; ?id=<id> one capsule with md
//   POST /api/skills            action=approve|deny&id=<id>; action=save&id&md (the owner's own
//                               capsule, approved as written)

import type { Agents } from '../agents/index.ts';
import type { Context } from '../core/context.ts';
import { fail, ok, type ToolResult } from '../core/tools/types.ts';
import { parseForm, queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { SKILL_MD_MAX_BYTES } from './capsule.ts';
import { PENDING_MAX, SKILLS_NS, SkillStore, type SkillFail, type SkillOutcome } from './store.ts';
import { stringify } from '../util/json.ts';

const TOOL_ERROR: Record<SkillFail, string> = { 'bad-input': 'bad-arguments', 'not-found': 'not-found', reserved: 'reserved', limit: 'limit', refused: 'refused', 'no-card': 'no-card', storage: 'storage' };
const HTTP_STATUS: Record<SkillFail, number> = { 'bad-input': 400, 'not-found': 404, reserved: 409, limit: 409, refused: 409, 'no-card': 409, storage: 500 };

function toolResult<T>(o: SkillOutcome<T>, output?: (v: T) => string): ToolResult {
  return o.ok ? ok(output ? output(o.value) : o.message) : fail(TOOL_ERROR[o.code], o.message);
}

export function installSkills(ctx: Context, agents: Agents): SkillStore {
  const skills = new SkillStore({ store: ctx.store(SKILLS_NS), sd: ctx.hal.sd, cardLive: () => ctx.card.live(), sha256: ctx.hotspots.sha256, clock: ctx.hal.clock, log: ctx.log });
  agents.setSkills({ capsule: (id) => skills.capsule(id), provider: (id) => skills.provider(id) });

  ctx.tools.register({
    name: 'skill.list',
    description: 'Skill capsules: id, title, inject (spawn or both: carried in sub-agent briefs that name the skill), approved, who wrote it. JSON.',
    schema: { type: 'object', properties: {}, additionalProperties: false },
    access: 'open',
    where: 'both',
    handler: () => ok(stringify({ skills: skills.list(), pending: skills.pendingAgent(), pendingMax: PENDING_MAX })),
  });
  ctx.tools.register({
    name: 'skill.get',
    description: 'One skill capsule with its markdown.',
    schema: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 23 } }, required: ['id'], additionalProperties: false },
    access: 'open',
    where: 'both',
    handler: (args) => toolResult(skills.get(String(args.id)), (v) => stringify(v)),
  });
  ctx.tools.register({
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
      if (r.ok) ctx.outbox.post(`skill:${r.value.id}:${ctx.hal.clock.monoMs()}`, `The assistant saved a skill that waits for your approval: ${r.value.id}${r.value.title ? ` ("${r.value.title}")` : ''}. The web page (Assistant > Skills) shows it; reply /skill approve ${r.value.id} to allow it, or /skill deny ${r.value.id} to delete it.`);
      return toolResult(r);
    },
  });
  ctx.tools.register({
    name: 'skill.delete',
    description: 'Delete a skill capsule the assistant saved (the owner\'s and built-in ones cannot be deleted here).',
    schema: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 23 } }, required: ['id'], additionalProperties: false },
    access: 'admin',
    where: 'both',
    handler: (args) => toolResult(skills.remove(String(args.id), true)),
  });

  ctx.chat.commands.register({
    name: '/skill',
    usage: 'approve | deny <id>',
    help: 'approve or delete a skill capsule (/skill alone lists those waiting)',
    run: (c) => {
      const [rawVerb, id] = c.argv;
      if (!rawVerb) {
        const waiting = skills.list().filter((s) => !s.approved);
        return waiting.length ? ['Skills waiting for your approval:', ...waiting.map((s) => `${s.id}${s.title ? ` "${s.title}"` : ''} (${s.bytes} bytes, by ${s.created_by}${s.available ? '' : ', not readable now'})`)].join('\n') : 'No skill waits for approval.';
      }
      const verb = rawVerb.toLowerCase();
      if ((verb !== 'approve' && verb !== 'deny') || !id || c.argv.length !== 2) return 'Usage: /skill approve | deny <id>';
      return (verb === 'approve' ? skills.approve(id) : skills.remove(id, false)).message;
    },
  });

  ctx.router.add({
    method: 'GET',
    path: '/api/skills',
    handler: (req) => {
      const id = queryParams(req).get('id');
      if (id !== undefined) {
        const r = skills.get(id);
        return r.ok ? jsonResponse(r.value) : errorResponse(HTTP_STATUS[r.code], r.code, r.message);
      }
      return jsonResponse({ skills: skills.list(), pending: skills.pendingAgent(), pendingMax: PENDING_MAX, card: ctx.card.live() });
    },
  });
  ctx.router.add({
    method: 'POST',
    path: '/api/skills',
    bodyLimit: 16 * 1024,
    handler: (req) => {
      const f = parseForm(req);
      if (!f.ok) return errorResponse(400, 'bad-request', f.error);
      const action = f.form.fields.get('action') ?? '';
      const id = (f.form.fields.get('id') ?? '').trim();
      if (!id) return errorResponse(400, 'bad-request', 'id names the skill.');
      let r: SkillOutcome<unknown>;
      if (action === 'approve') r = skills.approve(id);
      else if (action === 'deny') r = skills.remove(id, false);
      else if (action === 'save') r = skills.save(id, f.form.fields.get('md') ?? '', 'owner');
      else return errorResponse(400, 'bad-action', 'action must be approve, deny or save.');
      if (!r.ok) return errorResponse(HTTP_STATUS[r.code], r.code, r.message);
      return jsonResponse({ id, message: r.message, ...(action === 'deny' ? { deleted: true } : { skill: r.value }) });
    },
  });

  // Counts from the index alone: the snapshot never reads the card.
  ctx.status.section(() => ({ skills: { stored: skills.storedCount(), pending: skills.pendingAgent() } }));
  return skills;
}
