// The turn running now, for the web page's live view (GET /api/turn/live):
// where it came from, and its reply as it grows while a streamed round
// writes it (the engine's reply listeners), then as it was delivered. Only
// the owner's turns show (admin: the page is the owner's); a member's chat
// turn shows as busy without its text.

import type { Route } from '../core/router.ts';
import { jsonResponse } from '../net/http/errors.ts';
import { capBytes } from '../util/cap.ts';
import type { TurnOutcome, TurnRequest } from '../contracts/index.ts';

/** The most of a reply the live view carries (the page shows the start of a long one). */
const LIVE_REPLY_MAX = 4096;

export interface LiveView {
  busy: boolean;
  origin: string | null;
  chat: string | null;
  /** The reply so far ('' before it grows; the delivered one once the turn ended). */
  reply: string;
  /** growing: it is still being written; done: the turn ended (status); idle: none since boot. */
  phase: 'idle' | 'thinking' | 'growing' | 'done';
  status: TurnOutcome['status'] | null;
  /** Bumped at every change, so a page polling it redraws only when it moved. */
  seq: number;
}

export interface LiveSource {
  onTurn(listener: (req: TurnRequest, out: TurnOutcome | null) => void): void;
  onReply(listener: (req: TurnRequest, text: string | null) => void): void;
}

export class LiveTurn {
  private view: LiveView = { busy: false, origin: null, chat: null, reply: '', phase: 'idle', status: null, seq: 0 };

  constructor(source: LiveSource) {
    source.onTurn((req, out) => {
      const own = req.admin;
      if (!out) this.set({ busy: true, origin: req.origin, chat: own ? req.chat : null, reply: '', phase: 'thinking', status: null });
      else this.set({ busy: false, origin: req.origin, chat: own ? req.chat : null, reply: own ? capBytes(out.reply, LIVE_REPLY_MAX) : '', phase: 'done', status: out.status });
    });
    source.onReply((req, text) => {
      if (!req.admin) return;
      this.set({ ...this.view, reply: text === null ? '' : capBytes(text, LIVE_REPLY_MAX), phase: text === null ? 'thinking' : 'growing' });
    });
  }

  private set(v: Omit<LiveView, 'seq'>): void {
    this.view = { ...v, seq: this.view.seq + 1 };
  }

  now(): LiveView {
    return this.view;
  }

  routes(): Route[] {
    return [{ method: 'GET', path: '/api/turn/live', handler: () => jsonResponse(this.view) }];
  }
}
