// The owner-notice outbox: messages the device wants to send to its owner in
// the chat (spec Events: e.g. "Update available"), queued by any subsystem,
// and the waiting room for device messages while the chat cannot take them
// (no bot token or no owner chat yet, Notifier mode). The chat service
// drains it into its durable send queue (src/chat/queue.ts) as soon as it
// can: pending() (oldest first), then ack(key); onPost wakes it. A notice
// goes to the owner's chat, or to the chat it names (a sub-agent job's
// result goes back to the chat that asked for it).
//
// Persisted in NVS (one blob) so a notice survives a reboot. Bounded: at
// most OUTBOX_MAX notices within STATE_MAX_BYTES, each text at most
// NOTICE_TEXT_MAX bytes. Nothing is lost silently: a cut text says so (and,
// when the poster names it, where the whole text is), and when a new notice
// pushes out the oldest waiting one, the drop is reported to onDrop (the log)
// and counted, and the next delivery starts with a notice saying how many
// were dropped and how they began. De-duplication by key covers the last
// SEEN_MAX keys, queued or delivered; a rule such as "once per version" that
// must hold over months keeps its own record (src/ota/updates.ts).

import type { NoticePoster, PostOptions } from '../contracts/index.ts';
import type { Clock } from '../hal/index.ts';
import type { Store } from '../core/store.ts';
import { capBytes } from '../util/cap.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode, encode, utf8Length } from '../util/utf8.ts';

export interface OwnerNotice {
  /** De-duplication key, e.g. 'ota-available:v2.0.0'. */
  key: string;
  text: string;
  /** The chat to tell (absent: the owner's chat). */
  chat?: string;
  /** Wall-clock ms when queued (check `synced` before showing it). */
  wallMs: number;
  synced: boolean;
  /** Signed with the device's name and firmware (false: the assistant's own words, such as a sub-agent summary). */
  signed: boolean;
}

export type { PostOptions } from '../contracts/index.ts';

export const OUTBOX_NS = 'outbox';
const K_STATE = 'q';
/** At most this many undelivered notices; a new one pushes out the oldest (counted and told). */
export const OUTBOX_MAX = 16;
/** A notice's text in UTF-8 bytes (a longer one is cut with a mark saying so). */
export const NOTICE_TEXT_MAX = 1024;
export const KEY_MAX = 48;
/** Keys remembered (queued or delivered) for de-duplication. */
export const SEEN_MAX = 32;
/** The persisted state (one NVS blob) stays within this; the oldest waiting notices go first. */
export const STATE_MAX_BYTES = 6 * 1024;
/** Dropped notices whose beginnings the drop report quotes. */
const DROPPED_QUOTED = 3;
const DROPPED_EXCERPT_BYTES = 80;
export const DROPPED_KEY = 'outbox-dropped';

interface Dropped {
  /** Dropped since the last report was delivered. */
  n: number;
  /** Dropped ever (keys the reports). */
  total: number;
  first: string[];
}

interface State {
  queue: OwnerNotice[];
  seen: string[];
  dropped: Dropped;
}

function readNotice(n: unknown): OwnerNotice | null {
  if (!isPlainObject(n) || typeof n['key'] !== 'string' || typeof n['text'] !== 'string' || typeof n['wallMs'] !== 'number') return null;
  return { key: n['key'], text: n['text'], wallMs: n['wallMs'], synced: n['synced'] === true, signed: n['signed'] !== false, ...(typeof n['chat'] === 'string' ? { chat: n['chat'] } : {}) };
}

/** Cuts text to NOTICE_TEXT_MAX bytes, saying so (and where the rest is) in the text itself. */
export function cutNotice(text: string, rest?: string): string {
  const bytes = utf8Length(text);
  if (bytes <= NOTICE_TEXT_MAX) return text;
  // The mark's own length depends on the figure in it; a generous guess of its width keeps it simple.
  const mark = (n: number): string => `\n[cut: ${n} more bytes did not fit a waiting notice${rest ? `; ${rest}` : ''}]`;
  const room = Math.max(0, NOTICE_TEXT_MAX - utf8Length(mark(bytes)));
  const kept = capBytes(text, room);
  return capBytes(`${kept}${mark(bytes - utf8Length(kept))}`, NOTICE_TEXT_MAX);
}

export class Outbox implements NoticePoster {
  /** Called after a notice is queued (the chat client's drainer). */
  onPost: ((notice: OwnerNotice) => void) | null = null;
  /** Called for each waiting notice pushed out by newer ones (the chat logs it). */
  onDrop: ((notice: OwnerNotice) => void) | null = null;
  private state: State;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.state = this.load();
  }

  private load(): State {
    const empty: State = { queue: [], seen: [], dropped: { n: 0, total: 0, first: [] } };
    const raw = this.store.blob(K_STATE);
    // Earlier firmware kept the state as a string.
    const r = parseJson(raw ? decode(raw) : this.store.str(K_STATE, ''));
    if (!r.ok || !isPlainObject(r.value)) return empty;
    const v = r.value;
    const queue = Array.isArray(v['queue']) ? v['queue'].map(readNotice).filter((n): n is OwnerNotice => n !== null) : [];
    const seen = Array.isArray(v['seen']) ? v['seen'].filter((k): k is string => typeof k === 'string') : [];
    const d = isPlainObject(v['dropped']) ? v['dropped'] : {};
    const dropped: Dropped = {
      n: typeof d['n'] === 'number' ? d['n'] : 0,
      total: typeof d['total'] === 'number' ? d['total'] : 0,
      first: Array.isArray(d['first']) ? d['first'].filter((x): x is string => typeof x === 'string').slice(0, DROPPED_QUOTED) : [],
    };
    return { queue, seen, dropped };
  }

  private save(next: State): void {
    let bytes = encode(stringify(next));
    while (bytes.length > STATE_MAX_BYTES && next.queue.length > 1) {
      this.drop(next);
      bytes = encode(stringify(next));
    }
    this.store.set(K_STATE, bytes);
    this.state = next;
  }

  private drop(next: State): void {
    const gone = next.queue.shift();
    if (!gone) return;
    next.dropped = {
      n: next.dropped.n + 1,
      total: next.dropped.total + 1,
      first: next.dropped.first.length < DROPPED_QUOTED ? [...next.dropped.first, capBytes(gone.text.split('\n')[0] ?? '', DROPPED_EXCERPT_BYTES)] : next.dropped.first,
    };
    this.onDrop?.(gone);
  }

  /**
   * Queues a notice unless its key was queued or delivered lately (returns
   * false then). Text past NOTICE_TEXT_MAX bytes is cut on a character
   * boundary with a mark saying so.
   */
  post(key: string, text: string, options: PostOptions = {}): boolean {
    const k = capBytes(key, KEY_MAX);
    if (!k || this.state.seen.includes(k) || this.state.queue.some((n) => n.key === k)) return false;
    const notice: OwnerNotice = {
      key: k,
      text: cutNotice(text, options.rest),
      wallMs: this.clock.wallMs(),
      synced: this.clock.synced(),
      signed: options.signed !== false,
      ...(options.chat ? { chat: capBytes(options.chat, 32) } : {}),
    };
    const next: State = { queue: [...this.state.queue, notice], seen: [...this.state.seen, k].slice(-SEEN_MAX), dropped: { ...this.state.dropped } };
    while (next.queue.length > OUTBOX_MAX) this.drop(next);
    this.save(next);
    this.onPost?.(notice);
    return true;
  }

  /** Undelivered notices, oldest first; after drops, a report of them comes first. */
  pending(): readonly OwnerNotice[] {
    const { dropped } = this.state;
    const queue = this.state.queue.map((n) => ({ ...n }));
    if (!dropped.n) return queue;
    const quoted = dropped.first.map((t) => `"${t}"`).join('; ');
    const report: OwnerNotice = {
      key: `${DROPPED_KEY}:${dropped.total}`,
      text: `${dropped.n} earlier notice(s) could not be kept while they waited for the chat (at most ${OUTBOX_MAX} wait). They began: ${quoted}${dropped.n > dropped.first.length ? '; ...' : ''}. The device log lists them.`,
      wallMs: this.clock.wallMs(),
      synced: this.clock.synced(),
      signed: true,
    };
    return [report, ...queue];
  }

  /** Delivered: removes it from the queue (its key stays remembered). */
  ack(key: string): void {
    const { dropped } = this.state;
    if (dropped.n && key === `${DROPPED_KEY}:${dropped.total}`) {
      this.save({ ...this.state, dropped: { n: 0, total: dropped.total, first: [] } });
      return;
    }
    if (!this.state.queue.some((n) => n.key === key)) return;
    this.save({ ...this.state, queue: this.state.queue.filter((n) => n.key !== key) });
  }
}
