// The owner-notice outbox: messages the device wants to send to its owner in
// the chat (spec Events: e.g. "Update available"), queued by any subsystem
// and drained by the chat client when it can deliver them. Persisted in NVS
// so a notice survives a reboot; bounded (oldest dropped first); each notice
// has a de-duplication key, remembered after delivery too, so "once per
// version" holds across reboots.
//
// The chat service (src/chat/service.ts) drains it: pending() (oldest
// first), send, then ack(key); onPost wakes it. A notice goes to the owner's
// chat, or to the chat it names (a sub-agent job's result goes back to the
// chat that asked for it). Without a bot token or an owner chat, notices wait.

import type { Clock } from '../hal/index.ts';
import type { Store } from '../core/store.ts';
import { capBytes } from '../util/cap.ts';
import { isPlainObject, parseJson } from '../util/json.ts';
import { utf8Length } from '../util/utf8.ts';

export interface OwnerNotice {
  /** De-duplication key, e.g. 'ota-available:v2.0.0'. */
  key: string;
  text: string;
  /** The chat to tell (absent: the owner's chat). */
  chat?: string;
  /** Wall-clock ms when queued (check `synced` before showing it). */
  wallMs: number;
  synced: boolean;
}

export const OUTBOX_NS = 'outbox';
const K_STATE = 'q';
/** At most this many undelivered notices; a new one drops the oldest. */
export const OUTBOX_MAX = 5;
export const NOTICE_TEXT_MAX = 600;
export const KEY_MAX = 48;
/** Keys remembered (queued or delivered) for de-duplication. */
export const SEEN_MAX = 16;
/** The persisted state stays under NVS's 4000-byte string limit. */
const STATE_MAX_BYTES = 3900;

interface State {
  queue: OwnerNotice[];
  seen: string[];
}

export class Outbox {
  /** Called after a notice is queued (the chat client's drainer). */
  onPost: ((notice: OwnerNotice) => void) | null = null;
  private state: State;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.state = this.load();
  }

  private load(): State {
    const r = parseJson(this.store.str(K_STATE, ''));
    if (!r.ok || !isPlainObject(r.value)) return { queue: [], seen: [] };
    const v = r.value;
    const queue = Array.isArray(v['queue'])
      ? v['queue'].filter(
          (n): n is OwnerNotice => isPlainObject(n) && typeof n['key'] === 'string' && typeof n['text'] === 'string' && typeof n['wallMs'] === 'number',
        ).map((n) => ({ key: n.key, text: n.text, wallMs: n.wallMs, synced: n.synced === true, ...(typeof n.chat === 'string' ? { chat: n.chat } : {}) }))
      : [];
    const seen = Array.isArray(v['seen']) ? v['seen'].filter((k): k is string => typeof k === 'string') : [];
    return { queue, seen };
  }

  private save(next: State): void {
    let text = JSON.stringify(next);
    while (utf8Length(text) > STATE_MAX_BYTES && next.queue.length) {
      next.queue.shift();
      text = JSON.stringify(next);
    }
    this.store.set(K_STATE, text);
    this.state = next;
  }

  /**
   * Queues a notice unless its key was queued or delivered before (returns
   * false then). Text is cut at 600 bytes on a character boundary. `chat`
   * sends it to that chat instead of the owner's.
   */
  post(key: string, text: string, chat?: string): boolean {
    const k = capBytes(key, KEY_MAX);
    if (!k || this.state.seen.includes(k) || this.state.queue.some((n) => n.key === k)) return false;
    const notice: OwnerNotice = { key: k, text: capBytes(text, NOTICE_TEXT_MAX), wallMs: this.clock.wallMs(), synced: this.clock.synced(), ...(chat ? { chat: capBytes(chat, 32) } : {}) };
    const queue = [...this.state.queue, notice];
    while (queue.length > OUTBOX_MAX) queue.shift();
    const seen = [...this.state.seen, k];
    while (seen.length > SEEN_MAX) seen.shift();
    this.save({ queue, seen });
    this.onPost?.(notice);
    return true;
  }

  /** Undelivered notices, oldest first. */
  pending(): readonly OwnerNotice[] {
    return this.state.queue.map((n) => ({ ...n }));
  }

  /** Delivered: removes it from the queue (its key stays remembered). */
  ack(key: string): void {
    if (!this.state.queue.some((n) => n.key === key)) return;
    this.save({ queue: this.state.queue.filter((n) => n.key !== key), seen: this.state.seen });
  }
}
