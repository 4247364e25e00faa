// GET and POST /api/sessions (the spec leaves the shapes open; decided here
// and in docs/decisions.md). The web page is the owner's view: every job
// and result.
//   GET   {capacity: {queued, queueDepth, inFlight, window, slots, journal,
//          spawnCapacity, heapDeferrals}, pending: [...], running: [...],
//          recent: [...], results: [{tag, kind, name, size, fresh, ...}],
//          messages: [{chat, text, at}], synthesis: {turns, direct, due}}
//   POST  action=spawn&task=...[&provider&model&name&project&skill&attach=a/b.md,c/d.md]
//           -> 202 {queued: tag, position}; 409 queue-full (the owner's chat is
//           told as well); 400 bad input
//         action=terminate&id=<tag> -> 200 {terminated: tag}; 404; 409 already ended
//   (form fields or a JSON object). Web spawns report to the owner's chat.

import { bodyObject } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { Fabric } from './fabric.ts';
import { IN_FLIGHT, JOURNAL_SLOTS, QUEUE_DEPTH } from './limits.ts';
import type { ResultStore } from './results.ts';
import type { Synthesis } from './synthesis.ts';
import { spawnSpec } from './tools.ts';
import { sentence } from '../util/sentence.ts';


export function sessionRoutes(d: { fabric: Fabric; results: ResultStore; synthesis: Synthesis; slotsInUse(): number }): Route[] {
  const { fabric, results, synthesis } = d;
  const job = (j: ReturnType<Fabric['running']>[number]) => ({
    tag: j.tag,
    name: j.name,
    state: j.state,
    provider: j.provider,
    model: j.model,
    providerJobId: j.jobId,
    chat: j.chat,
    project: j.project || null,
    startedAt: j.startedWall,
    endedAt: j.endedWall,
    polls: j.polls,
    error: j.error,
  });
  return [
    {
      method: 'GET',
      path: '/api/sessions',
      handler: () =>
        jsonResponse({
          capacity: {
            queued: fabric.queued(),
            queueDepth: QUEUE_DEPTH,
            inFlight: fabric.inFlight(),
            window: IN_FLIGHT,
            journal: d.slotsInUse(),
            slots: JOURNAL_SLOTS,
            spawnCapacity: fabric.capacity(),
            heapDeferrals: fabric.deferrals,
          },
          pending: fabric.pending(null).map((p, i) => ({ tag: p.tag, name: p.name, position: i + 1, provider: p.provider || null, model: p.model || null, chat: p.chat, project: p.project || null })),
          running: fabric.running(null).map(job),
          recent: fabric.recent(null).map(job),
          results: results.list(null).map((e) => ({ tag: e.tag, kind: e.kind, name: e.name, size: e.size, fresh: e.fresh, chat: e.chat, provider: e.provider, model: e.model, at: e.atWall, saved: e.saved })),
          messages: fabric.messages().map((m) => ({ chat: m.chat, text: m.text, at: m.atWall })),
          synthesis: { turns: synthesis.turns, direct: synthesis.directs, due: synthesis.pendingChats() },
        }),
    },
    {
      method: 'POST',
      path: '/api/sessions',
      bodyLimit: 8 * 1024,
      handler: (req) => {
        const f = bodyObject(req);
        if (typeof f === 'string') return errorResponse(400, 'bad-request', `${f}. Nothing was changed.`);
        const action = typeof f['action'] === 'string' ? f['action'] : '';
        if (action === 'spawn') {
          const s = spawnSpec(f);
          if (!s.ok) return errorResponse(400, 'bad-request', `${sentence(s.error)} Nothing was queued.`);
          const r = fabric.enqueue(s.spec, { chat: 'web', person: null, admin: true });
          // A full queue: the fabric tells the owner's chat too (the spec's queue-full message).
          if (!r.ok) return r.reason === 'queue-full' ? errorResponse(409, 'queue-full', r.message) : errorResponse(400, 'bad-request', r.message);
          return jsonResponse({ queued: r.tag, position: r.position }, 202);
        }
        if (action === 'terminate') {
          const id = typeof f['id'] === 'string' ? f['id'].trim() : '';
          if (!id) return errorResponse(400, 'bad-request', 'Name the job to stop (id, its tag). Nothing was changed.');
          const r = fabric.terminate(id, null);
          if (r === 'terminated') return jsonResponse({ terminated: id });
          if (r === 'ended') return errorResponse(409, 'ended', `Job ${id} has already ended.`);
          return errorResponse(404, 'not-found', `No job ${id}.`);
        }
        return errorResponse(400, 'bad-request', 'action must be spawn or terminate. Nothing was changed.');
      },
    },
  ];
}
