// The assistant's routes: GET /api/lastturn (the last turn as the model sent
// it), GET /api/mem/working (the prompt as last assembled), and the web
// page's Memory > Clear conversation: GET /api/conversation (the
// conversations seen lately) and POST /api/conversation/clear (/clear for
// one of them).

import { formRoute } from '../core/form-route.ts';
import type { Log } from '../log/log.ts';
import type { Route } from '../core/router.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { TurnEngine } from './engine.ts';

/** Chat ids the web page offers to clear: from this many recent message rows. */
const RECENT_MESSAGE_ROWS = 200;
const CHAT_ID_MAX = 64;

/** What the routes read and change of the assistant. */
export interface RoutedAssistant {
  readonly engine: Pick<TurnEngine, 'last' | 'lastPrompt'>;
  clearedAt(chat: string): number;
  clear(chat: string): void;
}

/** The message rows of every chat, newest first (the memory's episodic log). */
export interface RecentMessages {
  query(q: { kind: 'message'; limit: number }): { rows: ReadonlyArray<{ session: string; ts: number }> };
}

export function turnRoutes(a: RoutedAssistant, messages: () => RecentMessages, log: Log): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/lastturn',
      handler: () => {
        const last = a.engine.last();
        if (!last) return errorResponse(404, 'no-turn', 'No turn has run since the device started.');
        let turn: unknown = last.json;
        try {
          turn = JSON.parse(last.json);
        } catch {
          // kept as text: the raw turn is what the model sent
        }
        return jsonResponse({ chat: last.chat, provider: last.provider, model: last.model, at: last.atWall, turn });
      },
    },
    {
      method: 'GET',
      path: '/api/mem/working',
      handler: () => {
        const p = a.engine.lastPrompt();
        if (!p) return jsonResponse({ assembled: false, sections: [] });
        return jsonResponse({
          assembled: true,
          bytes: p.bytes,
          budget: p.budget,
          overBudget: p.overBudget,
          sections: p.sections.map((s) => ({ name: s.name, offeredBytes: s.offered, sentBytes: s.sent, text: s.text })),
        });
      },
    },
    {
      method: 'GET',
      path: '/api/conversation',
      handler: () => {
        const last = new Map<string, number>();
        for (const row of messages().query({ kind: 'message', limit: RECENT_MESSAGE_ROWS }).rows) {
          if (row.session !== 'system' && !last.has(row.session)) last.set(row.session, row.ts);
        }
        const chats = [...last].map(([chat, at]) => ({ chat, lastAt: at, clearedAt: a.clearedAt(chat) || null, cleared: a.clearedAt(chat) >= at }));
        return jsonResponse({ chats });
      },
    },
    formRoute({
      path: '/api/conversation/clear',
      bodyLimit: 1024,
      // An unreadable body names no conversation: apply() answers that.
      onUnreadable: 'empty',
      apply: (fields) => {
        const chat = (fields.get('chat') ?? '').trim();
        if (!chat || chat.length > CHAT_ID_MAX) return errorResponse(400, 'bad-request', 'Name the conversation to clear (chat, a chat id). Nothing was changed.');
        a.clear(chat);
        return jsonResponse({ chat, cleared: true });
      },
      log: { to: log, tag: 'turn', line: (fields) => `conversation ${(fields.get('chat') ?? '').trim()} cleared from the web` },
    }),
  ];
}
