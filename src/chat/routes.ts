// The chat subsystem's web routes (token-gated, the human-web-only rail):
//   GET  /api/chat     settings as the page may show them (whether a token is
//                      set, never its value), the poll's state, chats refused
//                      lately (so the owner can add one), replies held back
//   POST /api/chat     tg_token, tg_allow, moderate_in, moderate_out,
//                      screen_fetched; all or nothing
//   GET  /api/people   everyone on the allowlist with role and quotas
//   POST /api/people   action=role (chat, role) or action=quota (chat and any
//                      of vectors, bytes, ttl_hours, pins; 0 = role default)
// Bodies are form-encoded, multipart or a JSON object.

import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import type { Clock } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { Moderation } from './moderation.ts';
import type { PeopleRegistry, QuotaField } from './people.ts';
import { QUOTA_FIELDS } from './people.ts';
import type { ChatQueue } from './queue.ts';
import type { ChatService } from './service.ts';
import type { ChatSettings } from './settings.ts';
import { unchanged } from '../util/sentence.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const INTEGER = /^-?\d{1,12}$/;

export interface ChatRouteDeps {
  settings: ChatSettings;
  people: PeopleRegistry;
  service: ChatService;
  moderation: Moderation;
  queue: ChatQueue;
  clock: Clock;
  log: Log;
}

export function chatView(d: ChatRouteDeps): Record<string, unknown> {
  const { settings, service, moderation, queue } = d;
  const now = d.clock.monoMs();
  return {
    tokenSet: settings.token() !== '',
    bot: settings.botId() ? { id: settings.botId(), username: service.botUsername } : null,
    allowlist: settings.allowlist(),
    owner: settings.ownerChat(),
    moderation: { ...settings.moderation(), provider: moderation.provider() },
    status: {
      state: service.state,
      lastError: service.lastError,
      lastPollAgoMs: service.lastPollMono === null ? null : now - service.lastPollMono,
      handled: service.handled,
      inbox: queue.pendingIn().length,
      sendQueue: queue.pendingOut().length,
    },
    rejected: service.rejected.map((r) => ({ chat: r.chat, name: r.name, count: r.count, agoMs: now - r.atMono })),
    held: service.held.map((h) => ({ chat: h.chat, categories: h.categories, excerpt: h.excerpt, agoMs: now - h.atMono })),
  };
}

export function chatRoutes(d: ChatRouteDeps): Route[] {
  const { settings, people } = d;
  return [
    { method: 'GET', path: '/api/chat', handler: () => jsonResponse(chatView(d)) },
    formRoute({
      path: '/api/chat',
      bodyLimit: 4096,
      json: true,
      apply: (fields) => settings.apply(fields),
      view: () => chatView(d),
      log: { to: d.log, tag: 'chat', line: () => 'chat settings changed on the web page' },
    }),
    { method: 'GET', path: '/api/people', handler: () => jsonResponse({ people: people.list() }) },
    formRoute({
      path: '/api/people',
      bodyLimit: 2048,
      json: true,
      apply: (f) => {
        const chat = (f.get('chat') ?? '').trim();
        const action = f.get('action');
        if (!chat) return errorResponse(400, 'bad-request', 'Name the person (chat, a chat id). Nothing was changed.');
        let r;
        if (action === 'role') r = people.setRole(chat, (f.get('role') ?? '').trim());
        else if (action === 'quota') {
          const fields: Partial<Record<QuotaField, unknown>> = {};
          for (const q of QUOTA_FIELDS) {
            const v = f.get(q)?.trim();
            if (v === undefined || v === '') continue;
            fields[q] = INTEGER.test(v) ? Number(v) : v;
          }
          r = people.setQuota(chat, fields);
        } else return errorResponse(400, 'bad-request', 'action must be role or quota. Nothing was changed.');
        if (!r.ok) return errorResponse(r.code === 'not-allowed' ? 404 : r.code === 'last-admin' ? 409 : 400, r.code, unchanged(r.message));
        return jsonResponse({ person: r.person, people: people.list() });
      },
    }),
  ];
}
