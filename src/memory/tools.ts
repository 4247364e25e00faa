// The memory tools (spec "Tool server": memory.*), one ToolSpec each, for
// the tool registry (through mount) to offer to the live turn and POST /mcp.
// Every read stays in the caller's namespace (ToolCaller.person; null is the
// owner). Access:
// - memory.config update and memory.scratchpad are admin-only (re-checked
//   here as well as by the registry);
// - memory.episodic is "device only": it runs on the device (live turn and
//   the local /mcp) and is never offered to sub-agents, which run on a
//   provider and have no device history;
// - memory.archive is registered always but available only with a live card.

import { fail, ok, type ToolCaller, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import { TTL_CLASSES, type TtlClass } from '../contracts/index.ts';
import { CONFIG_KEYS, parseConfigPatch } from './config.ts';
import { checkEmbeddingConfig, embeddingId, sameEmbedding, type EmbeddingConfig } from './embedder.ts';
import { EPI_LIMIT_MAX } from './limits.ts';
import type { Memory } from './memory.ts';
import { hitLine } from './retrieval.ts';
import { TIERS, type Scratchpad, type Tier } from './scratchpad.ts';
import { stamp } from './time.ts';
import { MemoryError, PIN_MATCH, UPDATE_MATCH, type WriteOutcome } from './vector-store.ts';
import type { EpiPage } from './episodic.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAK_RUNS = /\s*\n\s*/;

const str = (a: Record<string, unknown>, k: string): string | undefined => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
const num = (a: Record<string, unknown>, k: string): number | undefined => (typeof a[k] === 'number' && Number.isFinite(a[k]) ? (a[k] as number) : undefined);
const bool = (a: Record<string, unknown>, k: string): boolean | undefined => (typeof a[k] === 'boolean' ? (a[k] as boolean) : undefined);

function ttlArg(a: Record<string, unknown>): TtlClass | undefined {
  const t = str(a, 'ttl');
  if (t === undefined || t === '') return undefined;
  const l = t.toLowerCase();
  if (!(TTL_CLASSES as readonly string[]).includes(l)) throw new MemoryError('bad-input', `ttl must be one of ${TTL_CLASSES.join(', ')}`);
  return l as TtlClass;
}

function clampInt(v: number | undefined, lo: number, hi: number, d: number): number {
  return v === undefined ? d : Math.min(hi, Math.max(lo, Math.round(v)));
}

/** Runs a handler body, turning MemoryError into the tool's failure result. */
async function guard(body: () => ToolResult | Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof MemoryError) return fail(e.code, e.message);
    throw e;
  }
}

function describeWrite(o: WriteOutcome): string {
  const r = o.record;
  const parts = [
    o.action === 'added'
      ? `Saved memory ${r.id} (importance ${r.importance.toFixed(2)}, ${r.permanent ? 'permanent' : `ttl ${r.ttlHours} h`}).`
      : o.action === 'bumped'
        ? `Already remembered as ${r.id}: importance raised to ${r.importance.toFixed(2)}.`
        : `Merged with a near-duplicate; kept this wording as ${r.id} (importance ${r.importance.toFixed(2)}).`,
  ];
  if (o.ttlLimited) parts.push(`Time to live limited to ${r.ttlHours} h by this person's quota.`);
  if (o.evicted) parts.push(`${o.evicted} less important memor${o.evicted === 1 ? 'y was' : 'ies were'} moved to the archive to make room.`);
  return parts.join(' ');
}

function padText(p: Scratchpad): string {
  const lines = [`active: ${p.active || '(none)'}`];
  for (const t of TIERS) lines.push(`${t} (${p[t].length}/8):`, ...(p[t].length ? p[t].map((i, n) => `  ${n + 1}. ${i}`) : ['  (empty)']));
  return lines.join('\n');
}

function pageText(page: EpiPage): string {
  const lines = page.rows.map((r) => {
    const text = r.text.length > 300 ? `${r.text.slice(0, 300)}...` : r.text;
    return `- [${stamp(r.ts)}] ${r.role}/${r.kind} (${r.session}): ${replaceEvery(text, LINE_BREAK_RUNS, ' ')}${r.blobPath ? ` <${r.blobPath}>` : ''}`;
  });
  if (!lines.length) lines.push('No matching rows.');
  lines.push(
    page.nextBefore
      ? `next: before=${page.nextBefore} (older rows may match; call again with this before)`
      : `next: none${page.searchedTo !== null ? ` (searched back to ${stamp(page.searchedTo)})` : ''}`,
  );
  return lines.join('\n');
}

/** The caller's person: whose memories a tool reads and writes (null: the device owner). */
function person(c: ToolCaller): string | null {
  return c.person;
}

function memoryWriteTool(memory: Memory): ToolSpec {
  const store = memory.store;
  return {
    name: 'memory.write',
    description: 'Store a long-term memory. A near-duplicate raises the existing memory instead of adding another.',
    access: 'open',
    where: 'both',
    schema: {
      type: 'object',
      properties: {
        content: { type: 'string', description: 'what to remember (at most 1200 bytes)' },
        importance: { type: 'number', description: '0-1, default 0.5' },
        permanent: { type: 'boolean', description: 'never decays or expires (default false)' },
        ttl: { type: 'string', enum: [...TTL_CLASSES], description: 'time to live class (default weeks)' },
        source: { type: 'string', description: "where it came from (default 'self')" },
      },
      required: ['content'],
    },
    handler: (a, c) =>
      guard(async () => {
        const ttl = ttlArg(a);
        const o = await store.write(
          {
            content: str(a, 'content') ?? '',
            ...(num(a, 'importance') !== undefined ? { importance: num(a, 'importance')! } : {}),
            permanent: bool(a, 'permanent') ?? false,
            ...(ttl ? { ttl } : {}),
            ...(str(a, 'source') !== undefined ? { source: str(a, 'source')! } : {}),
            creator: c.via === 'mcp',
          },
          person(c),
        );
        return ok(describeWrite(o));
      }),
  };
}

function memorySearchTool(memory: Memory): ToolSpec {
  return {
    name: 'memory.search',
    description: "Search long-term memory by meaning and by words. One line per hit: '- [NN%] content' (NN = relevance).",
    access: 'open',
    where: 'both',
    schema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'what to look for' },
        n_results: { type: 'integer', description: 'hits to return (default the configured retrieval count)' },
      },
      required: ['query'],
    },
    handler: (a, c) =>
      guard(async () => {
        const cfg = memory.config.get();
        const n = clampInt(num(a, 'n_results'), 1, 100, cfg.retrieval_count);
        const hits = await memory.search(str(a, 'query') ?? '', person(c), n);
        if (!hits.length) return ok(`No memories above the relevance threshold (${Math.round(cfg.relevance_threshold * 100)}%).`);
        return ok(hits.map((h) => hitLine(h.score, h.rec.content)).join('\n'));
      }),
  };
}

function memoryUpdateTool(memory: Memory): ToolSpec {
  const store = memory.store;
  return {
    name: 'memory.update',
    description: 'Replace a stored memory: the one with the given id, else the closest match to old, else to content.',
    access: 'open',
    where: 'both',
    schema: {
      type: 'object',
      properties: {
        content: { type: 'string', description: 'the new text' },
        old: { type: 'string', description: 'text of the memory to replace' },
        id: { type: 'string' },
        importance: { type: 'number' },
        permanent: { type: 'boolean' },
        ttl: { type: 'string', enum: [...TTL_CLASSES] },
      },
      required: ['content'],
    },
    handler: (a, c) =>
      guard(async () => {
        const content = str(a, 'content') ?? '';
        const ttl = ttlArg(a);
        const target = await store.find({ ...(str(a, 'id') ? { id: str(a, 'id')! } : {}), text: str(a, 'old') || content }, person(c), UPDATE_MATCH);
        const rec = await store.update(
          target,
          {
            content,
            ...(num(a, 'importance') !== undefined ? { importance: Math.min(1, Math.max(0, num(a, 'importance')!)) } : {}),
            ...(bool(a, 'permanent') !== undefined ? { permanent: bool(a, 'permanent')! } : {}),
            ...(ttl ? { ttl } : {}),
          },
          person(c),
        );
        return ok(`Updated memory ${target.id} -> ${rec.id}: ${rec.content}`);
      }),
  };
}

function memoryPinTool(memory: Memory): ToolSpec {
  const store = memory.store;
  return {
    name: 'memory.pin',
    description: 'Pin (never decays, expires or is evicted), unpin, or delete a memory, by id or by its content.',
    access: 'open',
    where: 'both',
    schema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['pin', 'unpin', 'delete'] },
        content: { type: 'string' },
        id: { type: 'string' },
      },
      required: ['action'],
    },
    handler: (a, c) =>
      guard(async () => {
        const action = str(a, 'action');
        if (action !== 'pin' && action !== 'unpin' && action !== 'delete') return fail('bad-input', 'action must be pin, unpin or delete');
        const target = await store.find({ ...(str(a, 'id') ? { id: str(a, 'id')! } : {}), ...(str(a, 'content') ? { text: str(a, 'content')! } : {}) }, person(c), PIN_MATCH);
        if (action === 'delete') {
          store.delete(target);
          return ok(`Deleted memory ${target.id}: ${target.content}`);
        }
        const rec = store.setPinned(target, action === 'pin', person(c));
        return ok(`${action === 'pin' ? 'Pinned' : 'Unpinned'} memory ${rec.id}: ${rec.content}`);
      }),
  };
}

/** "provider/model/dims" (the model may itself hold slashes) as a configuration, or an error sentence. */
export function parseEmbeddingArg(text: string): EmbeddingConfig | string {
  const parts = text.trim().split('/');
  if (parts.length < 3) return 'embedding must read provider/model/dims, e.g. openai/text-embedding-3-small/256';
  const dims = Number(parts[parts.length - 1]);
  return { provider: parts[0]!, model: parts.slice(1, -1).join('/'), dims };
}

function embeddingLine(memory: Memory): string {
  const e = memory.store.emb;
  const r = memory.store.reembedding;
  const progress = r ? ` (re-embedding: ${r.done} of ${r.total}${r.error ? `, paused: ${r.error}` : ''})` : '';
  return `embedding: ${e.provider}/${e.model}/${e.dims}${progress}; offline models: ${memory.offlineModels().join(', ')}`;
}

/** memory.config update of the embedding: refused without confirm, since every memory is re-embedded. */
async function changeEmbedding(memory: Memory, text: string, confirm: boolean): Promise<ToolResult> {
  const c = parseEmbeddingArg(text);
  if (typeof c === 'string') return fail('bad-input', c);
  const problem = checkEmbeddingConfig(c, memory.offlineModels());
  if (problem) return fail('bad-input', problem);
  if (sameEmbedding(c, memory.store.emb)) return ok(`The embedding is already ${embeddingId(c)}; nothing changed.`);
  const n = memory.store.index.count;
  if (!confirm) return fail('confirm', `Changing the embedding to ${embeddingId(c)} re-embeds all ${n} memories and the archive in the background; memory answers "busy" until that is done. Call again with confirm: true to go ahead.`);
  const r = await memory.setEmbedding(c);
  return ok(`Embedding set to ${embeddingId(c)}; re-embedding ${r.reembedded} memories in the background (progress in memory.config view and GET /api/mem/stats).`);
}

function memoryConfigTool(memory: Memory): ToolSpec {
  return {
    name: 'memory.config',
    description:
      'View the memory configuration, or update it (admin only; out-of-range values are clamped). embedding (provider/model/dims) changes how memories are embedded: every memory is re-embedded, so it needs confirm: true.',
    access: 'open',
    where: 'both',
    schema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['view', 'update'] },
        ...Object.fromEntries(CONFIG_KEYS.map((k) => [k, { type: 'number' }])),
        embedding: { type: 'string', description: 'provider/model/dims, e.g. offline/<model>/256 or openai/text-embedding-3-small/256' },
        confirm: { type: 'boolean', description: 'true to go ahead with a change of embedding' },
      },
      required: ['action'],
    },
    handler: (a, c) =>
      guard(async () => {
        const action = str(a, 'action');
        if (action === 'update') {
          if (!c.admin) return fail('forbidden', 'updating the memory configuration is for admins');
          const emb = str(a, 'embedding');
          const p = parseConfigPatch(a);
          if (!p.ok) return fail('bad-input', p.error);
          if (!Object.keys(p.patch).length && emb === undefined) return fail('bad-input', `give at least one of ${CONFIG_KEYS.join(', ')}, embedding`);
          if (Object.keys(p.patch).length) memory.config.set(p.patch);
          if (emb !== undefined) return changeEmbedding(memory, emb, bool(a, 'confirm') === true);
        } else if (action !== 'view') return fail('bad-input', 'action must be view or update');
        const cfg = memory.config.get();
        return ok([...CONFIG_KEYS.map((k) => `${k}: ${cfg[k]}`), embeddingLine(memory)].join('\n'));
      }),
  };
}

function memoryScratchpadTool(memory: Memory): ToolSpec {
  return {
    name: 'memory.scratchpad',
    description: 'The persistent scratchpad: view; set_active (text); add (tier, text); replace (tier, items); clear (tier, or everything).',
    access: 'admin',
    where: 'both',
    schema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['view', 'set_active', 'add', 'replace', 'clear'] },
        tier: { type: 'string', enum: [...TIERS] },
        text: { type: 'string' },
        items: { type: 'array', items: { type: 'string' } },
      },
      required: ['action'],
    },
    handler: (a, c) =>
      guard(() => {
        if (!c.admin) return fail('forbidden', 'the scratchpad is for admins');
        const sp = memory.scratch;
        const action = str(a, 'action');
        const tierRaw = str(a, 'tier');
        if (tierRaw !== undefined && !(TIERS as readonly string[]).includes(tierRaw)) return fail('bad-input', `tier must be one of ${TIERS.join(', ')}`);
        const tier = tierRaw as Tier | undefined;
        const needTier = (): Tier => {
          if (!tier) throw new MemoryError('bad-input', `this action needs a tier (${TIERS.join(', ')})`);
          return tier;
        };
        switch (action) {
          case 'view':
            return ok(padText(sp.get()));
          case 'set_active':
            return ok(padText(sp.setActive(str(a, 'text') ?? '')));
          case 'add':
            return ok(padText(sp.add(needTier(), str(a, 'text') ?? '')));
          case 'replace': {
            const items = a['items'];
            if (!Array.isArray(items)) return fail('bad-input', 'replace needs items (a list of strings)');
            return ok(padText(sp.replace(needTier(), items)));
          }
          case 'clear':
            return ok(padText(sp.clear(tier)));
          default:
            return fail('bad-input', 'action must be view, set_active, add, replace or clear');
        }
      }),
  };
}

function memoryEpisodicTool(memory: Memory): ToolSpec {
  return {
    name: 'memory.episodic',
    description:
      'Search the conversation and device history (newest first), then older history on the SD card in steps. Ends with a line next: before=<cursor> to continue, or next: none.',
    access: 'open',
    where: 'both',
    runsOn: 'Orchestrator',
    schema: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['message', 'tool_output', 'llm_response', 'file', 'image', 'audio', 'transcript', 'log'] },
        session: { type: 'string' },
        text: { type: 'string', description: 'words the row contains (any order, any form: meeting finds meetings)' },
        limit: { type: 'integer', description: 'rows, 1-100 (default 20)' },
        since_hours: { type: 'number' },
        before_hours: { type: 'number' },
        before: { type: 'string', description: 'continue token from a previous call' },
      },
    },
    handler: (a, c) =>
      guard(() => {
        const q = {
          limit: clampInt(num(a, 'limit'), 1, EPI_LIMIT_MAX, 20),
          ...(str(a, 'kind') ? { kind: str(a, 'kind')! } : {}),
          ...(str(a, 'session') ? { session: str(a, 'session')! } : {}),
          ...(str(a, 'text') ? { text: str(a, 'text')! } : {}),
          ...(num(a, 'since_hours') !== undefined ? { sinceHours: num(a, 'since_hours')! } : {}),
          ...(num(a, 'before_hours') !== undefined ? { beforeHours: num(a, 'before_hours')! } : {}),
          // A person other than the owner sees the rows of their own chat only.
          ...(c.person !== null ? { sessions: [c.person] } : {}),
        };
        const before = str(a, 'before');
        const log = memory.episodic;
        if (before) return ok(pageText(log.coldScan(q, before)));
        const hot = log.query(q);
        if (hot.rows.length < q.limit && hot.nextBefore && !log.degraded) {
          const cold = log.coldScan({ ...q, limit: q.limit - hot.rows.length }, hot.nextBefore);
          return ok(pageText({ rows: [...hot.rows, ...cold.rows], searchedTo: cold.searchedTo ?? hot.searchedTo, olderExists: cold.olderExists, nextBefore: cold.nextBefore }));
        }
        return ok(pageText(hot));
      }),
  };
}

function memoryArchiveTool(memory: Memory): ToolSpec {
  const store = memory.store;
  return {
    name: 'memory.archive',
    description: 'Memories that decayed, expired or were evicted: search (query), list, or restore (id, optional ttl).',
    access: 'open',
    where: 'both',
    available: () => store.archiveAvailable(),
    schema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['search', 'restore', 'list'] },
        query: { type: 'string' },
        id: { type: 'string' },
        n_results: { type: 'integer' },
        limit: { type: 'integer' },
        ttl: { type: 'string', enum: [...TTL_CLASSES] },
      },
      required: ['action'],
    },
    handler: (a, c) =>
      guard(async () => {
        const action = str(a, 'action');
        const line = (r: { id: string; content: string; why?: string; archivedAt?: number }): string =>
          `- ${r.id} [${r.why ?? 'archived'} ${r.archivedAt ? stamp(r.archivedAt) : ''}] ${r.content}`;
        if (action === 'search') {
          const hits = await store.archiveSearch(str(a, 'query') ?? '', person(c), clampInt(num(a, 'n_results'), 1, 100, 5));
          return ok(hits.length ? hits.map((h) => `${hitLine(h.score, h.rec.content)} (id ${h.rec.id})`).join('\n') : 'No archived memories match.');
        }
        if (action === 'list') {
          const recs = store.archiveList(person(c), clampInt(num(a, 'limit'), 1, 100, 20));
          return ok(recs.length ? recs.map(line).join('\n') : 'The archive is empty.');
        }
        if (action === 'restore') {
          const id = str(a, 'id');
          if (!id) return fail('bad-input', 'restore needs the id of an archived memory');
          const rec = store.archiveRestore(id, person(c), ttlArg(a));
          return ok(`Restored memory ${rec.id}: ${rec.content}`);
        }
        return fail('bad-input', 'action must be search, restore or list');
      }),
  };
}

export function memoryTools(memory: Memory): ToolSpec[] {
  return [memoryWriteTool(memory), memorySearchTool(memory), memoryUpdateTool(memory), memoryPinTool(memory), memoryConfigTool(memory), memoryScratchpadTool(memory), memoryEpisodicTool(memory), memoryArchiveTool(memory)];
}
