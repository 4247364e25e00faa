// The memory routes (spec: /api/mem/*), all behind the token gate. The token
// holder is the device owner, so reads show the owner's namespace; flush and
// dedupe act on the whole store (an owner's maintenance action).

import { bodyObject } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import { queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpResponse } from '../net/http/types.ts';
import { parseConfigPatch } from './config.ts';
import { checkEmbeddingConfig, sameEmbedding } from './embedder.ts';
import { EPI_LIMIT_MAX } from './limits.ts';
import type { Memory } from './memory.ts';
import type { MemRecord } from './record.ts';
import { MemoryError } from './vector-store.ts';
import type { EpiQuery } from './episodic.ts';
import { sentence, unchanged } from '../util/sentence.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const WHOLE_NUMBER = /^\d{1,9}$/;
const DECIMAL_NUMBER = /^\d+(\.\d+)?$/;

const OWNER = null;

function view(r: MemRecord, score?: number): Record<string, unknown> {
  return {
    id: r.id,
    content: r.content,
    importance_score: Math.round(r.importance * 1000) / 1000,
    ttl_hours: r.ttlHours,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    source: r.source,
    creator_flag: r.creator,
    permanent_flag: r.permanent,
    pinned: r.pinned,
    metadata: r.metadata,
    ...(score !== undefined ? { score: Math.round(score * 1000) / 1000 } : {}),
  };
}

function fail(e: unknown): HttpResponse {
  if (e instanceof MemoryError) {
    const status = e.code === 'bad-input' ? 400 : e.code === 'not-found' ? 404 : e.code === 'busy' ? 409 : e.code === 'no-card' ? 409 : 503;
    return errorResponse(status, e.code, sentence(e.message));
  }
  throw e;
}

function intParam(q: Map<string, string>, key: string, lo: number, hi: number, d: number): number | string {
  const raw = q.get(key);
  if (raw === undefined || raw === '') return d;
  if (!WHOLE_NUMBER.test(raw)) return `${key} must be a whole number`;
  return Math.min(hi, Math.max(lo, Number(raw)));
}

function hoursParam(q: Map<string, string>, key: string): number | undefined | string {
  const raw = q.get(key);
  if (raw === undefined || raw === '') return undefined;
  if (!DECIMAL_NUMBER.test(raw)) return `${key} must be a number of hours`;
  return Number(raw);
}

/**
 * Fields of a PUT/POST body: JSON object, or form fields. Not formRoute's
 * string fields: a JSON body keeps its types (a null is no change, true is
 * not a number), which the config patch and flush's keep_permanent read.
 */

export function memoryRoutes(memory: Memory): Route[] {
  const store = memory.store;
  return [
    { method: 'GET', path: '/api/mem/stats', handler: () => jsonResponse(memory.stats()) },
    {
      method: 'GET',
      path: '/api/mem/vector',
      handler: async (req) => {
        const q = queryParams(req);
        const limit = intParam(q, 'limit', 1, 100, 20);
        const offset = intParam(q, 'offset', 0, 1e9, 0);
        if (typeof limit === 'string' || typeof offset === 'string') return errorResponse(400, 'bad-request', `${typeof limit === 'string' ? limit : offset}.`);
        const query = (q.get('query') ?? '').trim();
        try {
          if (query) {
            const hits = await memory.search(query, OWNER, Math.min(100, offset + limit));
            return jsonResponse({ query, total: hits.length, items: hits.slice(offset).map((h) => view(h.rec, h.score)) });
          }
          const page = store.browse(OWNER, limit, offset);
          return jsonResponse({ total: page.total, offset, items: page.items.map((x) => view(x)) });
        } catch (e) {
          return fail(e);
        }
      },
    },
    {
      method: 'POST',
      path: '/api/mem/vector/flush',
      handler: (req) => {
        const f = bodyObject(req);
        if (typeof f === 'string') return errorResponse(400, 'bad-request', f);
        const raw = f['keep_permanent'] ?? queryParams(req).get('keep_permanent');
        // Keeping permanent memories is the default: forgetting them must be asked for.
        const keep = !(raw === false || raw === 0 || raw === '0' || raw === 'false');
        try {
          const removed = store.flush(keep);
          return jsonResponse({ removed, kept: store.index.count, keep_permanent: keep });
        } catch (e) {
          return fail(e);
        }
      },
    },
    {
      method: 'POST',
      path: '/api/mem/vector/dedupe',
      handler: () => {
        try {
          return jsonResponse({ removed: store.dedupe(), vectors: store.index.count });
        } catch (e) {
          return fail(e);
        }
      },
    },
    {
      method: 'GET',
      path: '/api/mem/blob',
      handler: (req) => {
        const q = queryParams(req);
        const limit = intParam(q, 'limit', 1, EPI_LIMIT_MAX, 20);
        if (typeof limit === 'string') return errorResponse(400, 'bad-request', `${limit}.`);
        const kind = q.get('kind') || undefined;
        const page = memory.episodic.query({ limit, ...(kind ? { kind } : {}) });
        return jsonResponse({ kind: kind ?? null, rows: page.rows, olderExists: page.olderExists });
      },
    },
    {
      method: 'PUT',
      path: '/api/mem/config',
      bodyLimit: 4096,
      handler: (req) => {
        const f = bodyObject(req);
        if (typeof f === 'string') return errorResponse(400, 'bad-request', f);
        const p = parseConfigPatch(f);
        if (!p.ok) return errorResponse(400, 'bad-setting', unchanged(p.error));
        return jsonResponse(memory.config.set(p.patch));
      },
    },
    { method: 'GET', path: '/api/mem/config', handler: () => jsonResponse({ ...memory.config.get(), embedding: store.emb }) },
    {
      method: 'GET',
      path: '/api/mem/embedding',
      handler: () => jsonResponse({ current: store.emb, choices: memory.embeddingChoices(), memories: store.index.count, reembed: store.reembedding ? { ...store.reembedding } : null }),
    },
    {
      // A change re-embeds every memory: without confirm it is refused (409) with what would happen.
      method: 'POST',
      path: '/api/mem/embedding',
      bodyLimit: 1024,
      handler: async (req) => {
        const f = bodyObject(req);
        if (typeof f === 'string') return errorResponse(400, 'bad-request', f);
        const c = { provider: String(f['provider'] ?? ''), model: String(f['model'] ?? ''), dims: Number(f['dims']) };
        const problem = checkEmbeddingConfig(c, memory.offlineModels());
        if (problem) return errorResponse(400, 'bad-setting', unchanged(problem));
        if (sameEmbedding(c, store.emb)) return jsonResponse({ changed: false, embedding: store.emb });
        const confirm = f['confirm'] === true || f['confirm'] === '1' || f['confirm'] === 'true';
        if (!confirm) return errorResponse(409, 'confirm', `Changing the embedding re-embeds all ${store.index.count} memories and the archive in the background; memory answers "busy" until that is done. Send confirm=1 to go ahead.`);
        try {
          const r = await memory.setEmbedding(c);
          return jsonResponse({ changed: r.changed, reembedding: r.reembedded, embedding: store.emb });
        } catch (e) {
          return fail(e);
        }
      },
    },
    {
      method: 'GET',
      path: '/api/mem/episodic',
      handler: (req) => {
        const q = queryParams(req);
        const limit = intParam(q, 'limit', 1, EPI_LIMIT_MAX, 50);
        const since = hoursParam(q, 'since_hours');
        const before = hoursParam(q, 'before_hours');
        for (const v of [limit, since, before]) if (typeof v === 'string') return errorResponse(400, 'bad-request', `${v}.`);
        const query: EpiQuery = {
          limit: limit as number,
          ...(q.get('kind') ? { kind: q.get('kind')! } : {}),
          ...(q.get('session') ? { session: q.get('session')! } : {}),
          ...(q.get('text') ? { text: q.get('text')! } : {}),
          ...(since !== undefined ? { sinceHours: since as number } : {}),
          ...(before !== undefined ? { beforeHours: before as number } : {}),
        };
        const cursor = q.get('before') || null;
        const cold = q.get('cold') === '1' || q.get('cold') === 'true' || cursor !== null;
        try {
          const page = cold ? memory.episodic.coldScan(query, cursor) : memory.episodic.query(query);
          return jsonResponse({ cold, ...page });
        } catch (e) {
          return fail(e);
        }
      },
    },
  ];
}
