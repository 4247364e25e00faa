// The fabric's tools: session.spawn, session.list, session.terminate,
// results.get (paged by offset) and results.list. A person sees and stops
// only their own jobs and results; the owner (person null) sees all.
// session.tell and session.poll (unsupported) live in session-tools.ts.

import { fail, ok, type ToolCaller, type ToolSpec } from '../core/tools/types.ts';
import { capBytes } from '../util/cap.ts';
import { jobLine } from './blocks.ts';
import type { Fabric } from './fabric.ts';
import { ATTACH_MAX, RESULT_PAGE_CHARS, TASK_BYTES } from './limits.ts';
import type { ResultStore } from './results.ts';
import { charPage } from './text.ts';
import type { SpawnSpec } from '../contracts/index.ts';
import type { JobOrigin } from './types.ts';
import { utf8Length } from '../util/utf8.ts';

/** Spec caps for a spawn's fields (bytes). */
export const SPAWN_CAPS = { provider: 15, model: 39, skill: 23, name: 23, project: 24, id: 15, attachRef: 73 } as const;

export type SpawnInput = { ok: true; spec: SpawnSpec } | { ok: false; error: string };

/** A spawn from a tool, the web or the console: the parser's caps, refused rather than cut where a cut would change the meaning. */
export function spawnSpec(args: Record<string, unknown>): SpawnInput {
  const str = (k: string): string => (typeof args[k] === 'string' ? (args[k] as string).trim() : '');
  const task = str('task');
  if (!task) return { ok: false, error: 'task is required' };
  const attachIn = args['attach'];
  const attach = (Array.isArray(attachIn) ? attachIn : typeof attachIn === 'string' && attachIn.trim() ? attachIn.split(',') : [])
    .filter((a): a is string => typeof a === 'string')
    .map((a) => a.trim())
    .filter(Boolean);
  if (attach.length > ATTACH_MAX) return { ok: false, error: `attach takes at most ${ATTACH_MAX} documents` };
  if (attach.some((a) => utf8Length(a) > SPAWN_CAPS.attachRef)) return { ok: false, error: `an attach reference is at most ${SPAWN_CAPS.attachRef} bytes` };
  for (const k of ['provider', 'model', 'skill', 'project'] as const) {
    if (utf8Length(str(k)) > SPAWN_CAPS[k]) return { ok: false, error: `${k} is at most ${SPAWN_CAPS[k]} bytes` };
  }
  return {
    ok: true,
    spec: {
      task: capBytes(task, TASK_BYTES),
      provider: str('provider').toLowerCase(),
      model: str('model'),
      skill: str('skill'),
      name: capBytes(str('name'), SPAWN_CAPS.name),
      project: str('project'),
      attach,
    },
  };
}

export interface ToolDeps {
  fabric: Fabric;
  results: ResultStore;
  /** Which chat a caller's spawn reports to (the turn's chat; 'mcp' over /mcp). */
  originOf(caller: ToolCaller): JobOrigin;
  /** Whether any provider can run a sub-agent (else session.spawn is Unavailable). */
  canSpawn(): boolean;
}

export function fabricTools(d: ToolDeps): ToolSpec[] {
  const { fabric, results } = d;
  return [
    {
      name: 'session.spawn',
      description: 'Start a sub-agent: a background job on a provider that returns text. Its result comes back to this chat by itself.',
      schema: {
        type: 'object',
        properties: {
          task: { type: 'string', minLength: 1, description: 'the instruction (at most 4095 bytes)' },
          provider: { type: 'string', description: 'provider id; empty: the device picks by priority' },
          model: { type: 'string', description: "model id; empty: the provider's default; deep_research on openai" },
          name: { type: 'string', description: 'display and saved-document name' },
          project: { type: 'string', description: 'save the result as <project>/<name>-<tag>.md' },
          skill: { type: 'string', description: 'approved skill capsule to inject' },
          attach: { type: 'array', items: { type: 'string' }, maxItems: ATTACH_MAX, description: '<project>/<name> documents for the brief' },
        },
        required: ['task'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      available: () => d.canSpawn(),
      handler: (args, caller) => {
        const s = spawnSpec(args);
        if (!s.ok) return fail('bad-arguments', s.error);
        const r = fabric.enqueue(s.spec, d.originOf(caller));
        // A full queue: the fabric tells the chat too (the spec's queue-full message).
        if (!r.ok) return fail(r.reason, r.message);
        return ok(`Queued ${r.tag}${s.spec.name ? ` [${s.spec.name}]` : ''} (position ${r.position}). Its result comes back to this chat when it finishes.`);
      },
    },
    {
      name: 'session.list',
      description: 'List sub-agent jobs: queued, running and recently ended.',
      schema: { type: 'object', properties: {}, additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: (_args, caller) => {
        const lines: string[] = [];
        fabric.pending(caller.person).forEach((p, i) => lines.push(`${p.tag} [${p.name || p.tag}] queued #${i + 1}`));
        for (const j of fabric.running(caller.person)) lines.push(`${jobLine(j)} (${j.polls} polls)`);
        for (const j of fabric.recent(caller.person)) lines.push(jobLine(j));
        return ok(lines.length ? lines.join('\n') : 'No sub-agent jobs.');
      },
    },
    {
      name: 'session.terminate',
      description: 'Stop a queued or running sub-agent job by its tag. It yields no result.',
      schema: {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1, maxLength: 15, description: 'the job tag' } },
        required: ['id'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (args, caller) => {
        const id = String(args['id']).trim();
        const r = fabric.terminate(id, caller.person);
        if (r === 'terminated') return ok(`Stopped ${id}. It yields no result.`);
        if (r === 'ended') return fail('not-running', `${id} has already ended.`);
        return fail('not-found', `No job ${id}.`);
      },
    },
    {
      name: 'results.get',
      description: `Read a sub-agent result by tag, ${RESULT_PAGE_CHARS} characters at a time from offset.`,
      schema: {
        type: 'object',
        properties: {
          tag: { type: 'string', minLength: 1, maxLength: 15, description: 'the job tag' },
          offset: { type: 'integer', minimum: 0, description: 'character offset (default 0)' },
        },
        required: ['tag'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (args, caller) => {
        const tag = String(args['tag']).trim();
        const e = results.get(tag, caller.person);
        if (!e) return fail('not-found', `No result ${tag}.`);
        const offset = typeof args['offset'] === 'number' ? args['offset'] : 0;
        const page = charPage(e.text, offset, RESULT_PAGE_CHARS);
        const head = `[${e.tag} ${e.name}] ${e.kind}, ${e.size} bytes, ${page.total} characters, from ${e.provider} ${e.model}; characters ${Math.min(offset, page.total)}-${Math.min(offset, page.total) + page.count} follow.`;
        const tail = page.next === null ? '(end of result)' : `(more: results.get tag ${e.tag} offset ${page.next})`;
        return ok([head, page.text, tail].join('\n'));
      },
    },
    {
      name: 'results.list',
      description: 'List stored sub-agent results: tag, kind, name, size.',
      schema: { type: 'object', properties: {}, additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: (_args, caller) => {
        const list = results.list(caller.person);
        if (!list.length) return ok('No results stored.');
        return ok(list.map((e) => `${e.tag} ${e.kind} [${e.name}] ${e.size} bytes${e.fresh ? ' (fresh)' : ''}${e.saved?.ok ? ` saved as ${e.saved.path}` : ''}`).join('\n'));
      },
    },
  ];
}
