// The chat's durable queues, so a reboot neither loses nor repeats a
// message. Inbound: the updates a poll received are stored together with the
// next poll offset in one atomic NVS write (setMany), and only a later poll
// with that offset confirms them to the Bot API; so an update is either
// still unconfirmed at the service (and comes again) or stored here, never
// neither and never both. An entry stays until it is handled: a reboot in
// the middle of a turn runs the turn again, since no reply went out.
// Outbound: a handled entry is removed in the same atomic write that queues
// its reply, and a queued reply is removed once the service accepted it. The
// one window left is a power cut between the service's acceptance and that
// removal, which sends that reply twice; nothing is ever lost.
// Device messages (owner notices, sub-agent results and summaries) carry a
// de-duplication key: the last KEYS_MAX keys are stored in the same atomic
// write that queues a keyed message, so a message queued again after a
// restart (a journaled job polled to its end twice) is recognised and not
// sent twice. A device message that must pass the outbound content check
// first waits whole as a screening entry; the write that removes it queues
// its pieces (or the held-back note), so a restart during the check runs the
// check again and loses nothing.
//
// NVS namespace chatq: 'off' (next offset, as text: update ids may pass 2^31),
// 'bot' (the bot id the offset belongs to), 'i<update id>' inbound,
// 'o<sequence>' outbound and 's<sequence>' screening entries as UTF-8 JSON
// blobs, 'oseq' the sequence, 'keys' the recent message keys (JSON blob).

import type { Nvs } from '../hal/index.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode, encode } from '../util/utf8.ts';

export const QUEUE_NS = 'chatq';
/** Updates held at once; a full inbox stops polling (the service keeps the rest). */
export const INBOX_MAX = 8;
/** Reply pieces waiting to be sent; a full outbox holds back handling the next update. */
export const OUTBOX_MAX = 16;
/**
 * Device messages (notices, sub-agent results) are queued while fewer than
 * this many pieces wait; past it they wait in the owner-notice outbox
 * (bounded, drops reported), so a long outage cannot fill NVS.
 */
export const DEVICE_QUEUE_MAX = 24;
/** A Bot API message holds at most 4096 characters. */
export const MESSAGE_CHARS = 4096;
/**
 * Device-message keys remembered for de-duplication. A repeat can only come
 * from a restart that finishes journaled work again (at most 6 sub-agent
 * jobs, each with a completion and a summary), moments after the first.
 */
export const KEYS_MAX = 32;
const K_KEYS = 'keys';

export interface InFile {
  id: string;
  name: string | null;
  size: number | null;
  mime: string | null;
}

export interface InEntry {
  /** update_id */
  u: number;
  /** chat id */
  c: string;
  /** the sender's name as the chat shows it */
  n: string;
  k: 'text' | 'photo' | 'document' | 'voice' | 'audio' | 'other';
  t: string;
  f?: InFile;
}

export interface OutEntry {
  /** sequence number (send order) */
  s: number;
  c: string;
  t: string;
}

/** A device message waiting for the outbound content check (then queued whole, split into pieces). */
export interface ScreenEntry {
  s: number;
  c: string;
  /** the text as written (unsigned) */
  t: string;
  /** 1: signed with the device's name once it passes */
  g: 0 | 1;
}

function blob(v: unknown): Uint8Array {
  return encode(stringify(v));
}

function readIn(v: unknown): InEntry | null {
  if (!isPlainObject(v) || typeof v['u'] !== 'number' || typeof v['c'] !== 'string' || typeof v['t'] !== 'string' || typeof v['k'] !== 'string') return null;
  const e: InEntry = { u: v['u'], c: v['c'], n: typeof v['n'] === 'string' ? v['n'] : '', k: v['k'] as InEntry['k'], t: v['t'] };
  if (isPlainObject(v['f']) && typeof v['f']['id'] === 'string') {
    const f = v['f'];
    e.f = { id: f['id'] as string, name: typeof f['name'] === 'string' ? f['name'] : null, size: typeof f['size'] === 'number' ? f['size'] : null, mime: typeof f['mime'] === 'string' ? f['mime'] : null };
  }
  return e;
}

function readOut(v: unknown): OutEntry | null {
  if (!isPlainObject(v) || typeof v['s'] !== 'number' || typeof v['c'] !== 'string' || typeof v['t'] !== 'string') return null;
  return { s: v['s'], c: v['c'], t: v['t'] };
}

function readScreen(v: unknown): ScreenEntry | null {
  const o = readOut(v);
  return o && isPlainObject(v) ? { ...o, g: v['g'] === 1 ? 1 : 0 } : null;
}

/** UTF-16 units of one code point, as the Bot API counts (on XS a string unit is a whole code point). */
function unitsOf(ch: string): number {
  return (ch.codePointAt(0) ?? 0) > 0xffff ? 2 : 1;
}

/**
 * Splits a reply into messages of at most MESSAGE_CHARS characters (UTF-16
 * units, as the Bot API counts), preferring a line break, then a space.
 */
export function splitMessage(text: string, max = MESSAGE_CHARS): string[] {
  const out: string[] = [];
  let piece: string[] = [];
  let units = 0;
  let lastBreak = -1;
  let lastSpace = -1;
  for (const ch of text) {
    if (units + unitsOf(ch) > max) {
      const cut = lastBreak > 0 ? lastBreak : lastSpace > 0 ? lastSpace : piece.length;
      // The break it was cut at goes with the cut.
      out.push(piece.slice(0, cut).join('').trimEnd());
      piece = piece.slice(cut);
      while (piece.length && (piece[0] === '\n' || piece[0] === ' ')) piece.shift();
      units = 0;
      for (const p of piece) units += unitsOf(p);
      lastBreak = -1;
      lastSpace = -1;
    }
    piece.push(ch);
    units += unitsOf(ch);
    if (ch === '\n') lastBreak = piece.length;
    else if (ch === ' ') lastSpace = piece.length;
  }
  if (piece.length) out.push(piece.join(''));
  return out.filter((p) => p.trim() !== '');
}

export class ChatQueue {
  private inbox = new Map<number, InEntry>();
  private outbox: OutEntry[] = [];
  private screening: ScreenEntry[] = [];
  private keys: string[] = [];
  private seq = 0;

  constructor(private readonly nvs: Nvs) {
    for (const key of nvs.keys(QUEUE_NS)) {
      const raw = nvs.get(QUEUE_NS, key);
      if (!(raw instanceof Uint8Array)) continue;
      const parsed = parseJson(decode(raw));
      if (!parsed.ok) continue;
      if (key.startsWith('i')) {
        const e = readIn(parsed.value);
        if (e) this.inbox.set(e.u, e);
      } else if (key.startsWith('o')) {
        const e = readOut(parsed.value);
        if (e) this.outbox.push(e);
      } else if (key.startsWith('s')) {
        const e = readScreen(parsed.value);
        if (e) this.screening.push(e);
      } else if (key === K_KEYS && Array.isArray(parsed.value)) {
        this.keys = parsed.value.filter((k): k is string => typeof k === 'string').slice(-KEYS_MAX);
      }
    }
    this.outbox.sort((a, b) => a.s - b.s);
    this.screening.sort((a, b) => a.s - b.s);
    const stored = nvs.get(QUEUE_NS, 'oseq');
    this.seq = Math.max(typeof stored === 'number' ? stored : 0, ...this.outbox.map((o) => o.s), ...this.screening.map((o) => o.s));
  }

  /** The offset the next poll asks from (0: from the oldest the service holds). */
  offset(botId: string | null): number {
    if (this.nvs.get(QUEUE_NS, 'bot') !== (botId ?? '')) return 0;
    const v = this.nvs.get(QUEUE_NS, 'off');
    const n = typeof v === 'string' ? Number(v) : 0;
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  }

  /** Room for this many more updates. */
  room(): number {
    return Math.max(0, INBOX_MAX - this.inbox.size);
  }
  outRoom(): number {
    return Math.max(0, OUTBOX_MAX - this.outbox.length);
  }
  /** Room for device messages (pieces and screening entries count). */
  deviceRoom(): boolean {
    return this.outbox.length + this.screening.length < DEVICE_QUEUE_MAX;
  }

  /**
   * Stores received updates (those worth handling) and the next offset in one
   * atomic write. Updates already held are not stored twice.
   */
  accept(botId: string | null, entries: readonly InEntry[], nextOffset: number): void {
    const fresh = entries.filter((e) => !this.inbox.has(e.u));
    this.nvs.setMany(QUEUE_NS, [...fresh.map((e) => [`i${e.u}`, blob(e)] as const), ['off', String(nextOffset)], ['bot', botId ?? '']]);
    for (const e of fresh) this.inbox.set(e.u, e);
  }

  /** Inbound entries in arrival order. */
  pendingIn(): InEntry[] {
    return [...this.inbox.values()].sort((a, b) => a.u - b.u);
  }
  holds(updateId: number): boolean {
    return this.inbox.has(updateId);
  }

  /** Handled: the entry leaves and its reply pieces are queued, in one atomic write. */
  finish(updateId: number, replies: ReadonlyArray<{ chat: string; text: string }>): OutEntry[] {
    return this.write([`i${updateId}`], replies, null);
  }

  /**
   * One atomic write: removes entries (inbound or screening; absent ones are
   * skipped), queues the replies' pieces, and records a message key.
   */
  private write(remove: readonly string[], replies: ReadonlyArray<{ chat: string; text: string }>, key: string | null, screen: ScreenEntry | null = null): OutEntry[] {
    const pieces: OutEntry[] = [];
    let seq = this.seq;
    for (const r of replies) for (const t of splitMessage(r.text)) pieces.push({ s: ++seq, c: r.chat, t });
    const held = screen ? { ...screen, s: ++seq } : null;
    const gone = remove.filter((k) => (k.startsWith('i') ? this.inbox.has(Number(k.slice(1))) : this.screening.some((e) => `s${e.s}` === k)));
    const keys = key ? [...this.keys, key].slice(-KEYS_MAX) : null;
    this.nvs.setMany(QUEUE_NS, [
      ...gone.map((k) => [k, undefined] as const),
      ...pieces.map((p) => [`o${p.s}`, blob(p)] as const),
      ...(held ? [[`s${held.s}`, blob(held)] as const] : []),
      ...(keys ? [[K_KEYS, blob(keys)] as const] : []),
      ['oseq', seq],
    ]);
    for (const k of gone) {
      if (k.startsWith('i')) this.inbox.delete(Number(k.slice(1)));
      else this.screening = this.screening.filter((e) => `s${e.s}` !== k);
    }
    this.seq = seq;
    if (keys) this.keys = keys;
    if (held) this.screening.push(held);
    this.outbox.push(...pieces);
    return pieces;
  }

  /** Queues messages that answer no update (tool sends, notices). */
  send(replies: ReadonlyArray<{ chat: string; text: string }>): OutEntry[] {
    return this.write([], replies, null);
  }

  /** Whether a device message with this key was queued lately. */
  hasKey(key: string): boolean {
    return this.keys.includes(key);
  }

  /** Queues a keyed device message; null when the key was queued before (nothing written). */
  sendKeyed(chat: string, text: string, key: string): OutEntry[] | null {
    if (this.hasKey(key)) return null;
    return this.write([], [{ chat, text }], key);
  }

  /** Keeps a keyed device message whole until the content check passes it; null when the key was queued before. */
  screenLater(chat: string, text: string, signed: boolean, key: string): ScreenEntry | null {
    if (this.hasKey(key)) return null;
    this.write([], [], key, { s: 0, c: chat, t: text, g: signed ? 1 : 0 });
    return this.screening[this.screening.length - 1] ?? null;
  }

  /** Messages waiting for the content check, oldest first. */
  pendingScreen(): readonly ScreenEntry[] {
    return this.screening;
  }

  /** Checked: the screening entry leaves and what goes out instead is queued, in one atomic write. */
  screened(seq: number, replies: ReadonlyArray<{ chat: string; text: string }>): OutEntry[] {
    return this.write([`s${seq}`], replies, null);
  }

  pendingOut(): readonly OutEntry[] {
    return this.outbox;
  }

  /** Sent (or refused for good): the piece leaves the queue. */
  sent(seq: number): void {
    this.nvs.delete(QUEUE_NS, `o${seq}`);
    this.outbox = this.outbox.filter((o) => o.s !== seq);
  }
}
