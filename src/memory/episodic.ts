// The episodic log: append-only history rows (id, session, ts, role, kind,
// text, blobPath, tags), one checksummed record each (frames.ts), in one
// file per UTC day on the card (/mem/epi/YYYYMMDD.log).
//
// - Boot scan: newest day first, backwards, into the hot window in RAM, at
//   most 4000 rows and 256 KB. Older rows stay on the card: epiTruncated
//   says so, epiFloor is the oldest hot row's time. Each day file's tail is
//   checked at boot and a torn tail is dropped (write-new, sync, rename).
// - Queries read the hot window; a cold scan reads the card backwards from a
//   cursor ("YYYYMMDD.offset": rows before that offset of that day, and all
//   earlier days), about 128 KB and at most 4 files per call, through 8 KB
//   read windows, and answers searchedTo, olderExists and nextBefore.
// - Without a card at boot the log is a 500-row ring in RAM. When the card
//   goes away mid-run, new rows go to a 256-row demote ring (the hot window
//   from the card still fills RAM); both are written to the card when a card
//   becomes live again.
// - Retention: day files older than 30 days are removed on a tick about
//   every 6 hours (only while the clock is set).

import type { Clock, SdCard, SdFile } from '../hal/index.ts';
import { HalError } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { capBytes } from '../util/cap.ts';
import { randomId, type RandomFill } from '../util/ids.ts';
import { decode, encode, utf8Length } from '../util/utf8.ts';
import { frame, readBackward, readForward } from './frames.ts';
import { wordsMatcher } from './lexicon.ts';
import {
  EPI_BOOT_BYTES,
  EPI_BOOT_ROWS,
  EPI_COLD_BYTES,
  EPI_COLD_FILES,
  EPI_DEMOTE_RING,
  EPI_NO_CARD_RING,
  EPI_RETENTION_DAYS,
  EPI_TEXT_MAX_BYTES,
  EPI_WINDOW,
} from './limits.ts';
import { encodeCursor, parseCursor, Ring, type Pos } from './episodic-ring.ts';
import { dayName, dayOf, parseDayName } from './time.ts';
import { MemoryError } from './store-types.ts';
import { stringify } from '../util/json.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DAY_FILE = /^(\d{8})\.log$/;

export const ROLES = ['creator', 'assistant', 'system', 'tool'] as const;
export const KINDS = ['message', 'tool_output', 'llm_response', 'file', 'image', 'audio', 'transcript', 'log'] as const;
export type EpiRole = (typeof ROLES)[number];
export type EpiKind = (typeof KINDS)[number];

export interface EpisodicRow {
  id: string;
  session: string;
  /** Wall-clock ms. */
  ts: number;
  role: EpiRole;
  kind: EpiKind;
  text: string;
  blobPath: string;
  tags: string[];
}

export interface AppendInput {
  /** Default 'main'. Device timeline rows use 'system'. */
  session?: string;
  role: EpiRole;
  kind: EpiKind;
  text: string;
  blobPath?: string;
  tags?: string[];
  /** When it happened, if earlier than now (rows buffered before the log was open). */
  ts?: number;
}

export interface EpiQuery {
  kind?: string;
  session?: string;
  /** Words the row holds (lexicon.ts wordsMatcher: stems, any order and case), or the text as it is written. */
  text?: string;
  sinceHours?: number;
  beforeHours?: number;
  limit: number;
  /** Only rows of these sessions (a person's own chats); undefined: every row (the owner). */
  sessions?: string[];
}

export interface EpiPage {
  rows: EpisodicRow[];
  /** Time of the oldest row looked at (null: none). */
  searchedTo: number | null;
  /** Rows older than those looked at exist on the card. */
  olderExists: boolean;
  /** Cursor to continue with a cold scan (null: nothing older). */
  nextBefore: string | null;
}

const DIR = '/mem/epi';
const SESSION_MAX = 64;
const BLOB_PATH_MAX = 200;
const TAGS_MAX = 8;
const TAG_MAX_BYTES = 32;
const MAX_PAYLOAD = EPI_TEXT_MAX_BYTES + 2048;

/** A row as stored (short keys; empty blobPath and tags left out): rows are small, so keys would be a third of the log. */
function encodeRow(r: EpisodicRow): string {
  const o: Record<string, unknown> = { i: r.id, s: r.session, t: r.ts, r: r.role, k: r.kind, x: r.text };
  if (r.blobPath) o['b'] = r.blobPath;
  if (r.tags.length) o['g'] = r.tags;
  return stringify(o);
}

function rowOf(json: string): EpisodicRow | null {
  try {
    const o = JSON.parse(json) as Record<string, unknown>;
    if (!o || typeof o['i'] !== 'string' || typeof o['x'] !== 'string' || typeof o['t'] !== 'number') return null;
    return {
      id: o['i'],
      session: String(o['s']),
      ts: o['t'],
      role: o['r'] as EpiRole,
      kind: o['k'] as EpiKind,
      text: o['x'],
      blobPath: typeof o['b'] === 'string' ? o['b'] : '',
      tags: Array.isArray(o['g']) ? (o['g'] as string[]) : [],
    };
  } catch {
    return null;
  }
}

export interface EpisodicDeps {
  sd: SdCard;
  cardLive: () => boolean;
  sha: Sha256Api;
  clock: Clock;
  log: Log;
  random: RandomFill;
  /** The boot scan's bounds (default the spec's 4000 rows and 256 KB; tests make them small). */
  bootRows?: number;
  bootBytes?: number;
}

export class EpisodicLog {
  private hot: Ring;
  /** Rows not yet on the card (no card at boot: the whole log; demoted: the demote ring). */
  private pending: Ring | null;
  private onCard = false;
  /** Rows older than the hot window exist on the card. */
  truncated = false;
  /** Cold scans start here: the oldest hot row's position, or the end of the newest file. */
  private floor: Pos | null = null;
  private fh: { day: number; file: SdFile } | null = null;
  private readonly opts;

  constructor(private readonly deps: EpisodicDeps) {
    this.hot = new Ring(EPI_NO_CARD_RING, EPI_BOOT_BYTES);
    this.pending = this.hot;
    this.opts = { sha: deps.sha, window: EPI_WINDOW, maxPayload: MAX_PAYLOAD };
  }

  get degraded(): boolean {
    return !this.onCard;
  }

  /** Oldest time in the hot window (null when empty). */
  get floorTs(): number | null {
    return this.hot.oldest()?.ts ?? null;
  }

  get hotRows(): number {
    return this.hot.count;
  }

  private path(day: number): string {
    return `${DIR}/${dayName(day)}.log`;
  }

  private days(): Array<{ day: number; size: number }> {
    const out: Array<{ day: number; size: number }> = [];
    for (const e of this.deps.sd.list(DIR)) {
      const m = DAY_FILE.exec(e.name);
      const day = m && !e.isDir ? parseDayName(m[1]!) : null;
      if (day !== null) out.push({ day, size: e.size });
    }
    return out.sort((a, b) => b.day - a.day);
  }

  /** Bytes of the day files on the card. */
  cardBytes(): { files: number; bytes: number } {
    if (!this.onCard) return { files: 0, bytes: 0 };
    try {
      const d = this.days();
      return { files: d.length, bytes: d.reduce((n, f) => n + f.size, 0) };
    } catch {
      return { files: 0, bytes: 0 };
    }
  }

  /** At boot and when a card becomes live: write what waited in RAM, then fill the hot window from the card. */
  attach(): void {
    if (!this.deps.cardLive()) return;
    const waiting: string[] = [];
    if (this.pending) for (let i = this.pending.count - 1; i >= 0; i--) waiting.push(this.pending.at(i).json);
    try {
      this.deps.sd.mkdir(DIR);
      this.onCard = true;
      this.pending = null;
      for (const json of waiting) this.writeRow(json, (rowOf(json)?.ts ?? this.deps.clock.wallMs()));
      this.bootScan();
    } catch (e) {
      this.deps.log.warn('mem', `episodic log not usable on the card: ${String(e)}`);
      this.demote();
    }
  }

  private bootScan(): void {
    this.closeFile();
    const files = this.days();
    for (const f of files) this.repairTail(f);
    const rows: Array<{ json: string; ts: number; pos: Pos }> = [];
    const maxRows = this.deps.bootRows ?? EPI_BOOT_ROWS;
    const maxBytes = this.deps.bootBytes ?? EPI_BOOT_BYTES;
    let bytes = 0;
    let full = false;
    for (const f of files) {
      if (full) break;
      readBackward(this.deps.sd, this.path(f.day), f.size, Infinity, this.opts, (p, start) => {
        const json = decode(p);
        const n = utf8Length(json);
        if (rows.length >= maxRows || bytes + n > maxBytes) {
          full = true;
          return false;
        }
        const row = rowOf(json);
        if (row) {
          rows.push({ json, ts: row.ts, pos: { day: f.day, off: start } });
          bytes += n;
        }
        return true;
      });
    }
    this.hot = new Ring(maxRows, maxBytes);
    for (let i = rows.length - 1; i >= 0; i--) this.hot.push(rows[i]!.json, rows[i]!.ts, rows[i]!.pos);
    // full is set only by a row that did not fit, so older rows remain on the card.
    this.truncated = full;
    const oldest = rows[rows.length - 1];
    this.floor = oldest ? oldest.pos : files[0] ? { day: files[0].day, off: files[0].size } : null;
    this.deps.log.info('mem', `episodic: ${rows.length} rows in the hot window${this.truncated ? ' (older rows on the card)' : ''}`);
  }

  /** Checks a day file's last record; a torn or damaged tail is cut off by rewriting the whole prefix. */
  private repairTail(f: { day: number; size: number }): void {
    if (f.size === 0) return;
    const path = this.path(f.day);
    const last = readBackward(this.deps.sd, path, f.size, 1, this.opts, () => false);
    if (!last.damaged) return;
    const good = readForward(this.deps.sd, path, 0, this.opts, () => true);
    const torn = f.size - good.end;
    const tmp = `${path}.tmp`;
    const out = this.deps.sd.open(tmp, 'w');
    try {
      for (let o = 0; o < good.end; o += EPI_WINDOW) out.write(this.deps.sd.read(path, o, Math.min(EPI_WINDOW, good.end - o)));
      out.sync();
    } finally {
      out.close();
    }
    this.deps.sd.rename(tmp, path);
    f.size = good.end;
    this.deps.log.warn('mem', `episodic ${dayName(f.day)}: dropped a torn tail of ${torn} bytes`);
  }

  /** The card went away: new rows wait in the demote ring. */
  demote(): void {
    if (!this.onCard) return;
    this.closeFile();
    this.onCard = false;
    this.pending = new Ring(EPI_DEMOTE_RING, EPI_BOOT_BYTES);
    this.deps.log.warn('mem', 'no SD card: new episodic rows wait in RAM (256)');
  }

  private closeFile(): void {
    if (!this.fh) return;
    try {
      this.fh.file.close();
    } catch {
      // the card may be gone
    }
    this.fh = null;
  }

  /** The file a row of time ts goes to: its UTC day, or while the clock is unset the newest day file's. */
  private dayFor(ts: number): number {
    if (this.deps.clock.synced()) return dayOf(ts);
    if (this.fh) return this.fh.day;
    const newest = this.days()[0];
    return newest ? Math.max(newest.day, dayOf(ts)) : dayOf(ts);
  }

  private writeRow(json: string, ts: number): Pos {
    const day = this.dayFor(ts);
    if (!this.fh || this.fh.day !== day) {
      this.closeFile();
      this.fh = { day, file: this.deps.sd.open(this.path(day), 'a') };
    }
    const off = this.fh.file.size;
    try {
      this.fh.file.write(frame(this.deps.sha, encode(json)));
      this.fh.file.sync();
    } catch (e) {
      this.closeFile();
      throw e;
    }
    return { day, off };
  }

  /** Validates and appends one row; card trouble never loses it (it waits in RAM). Bad input throws and appends nothing. */
  append(input: AppendInput): EpisodicRow {
    const row = this.validate(input);
    const json = encodeRow(row);
    let pos: Pos | null = null;
    if (this.onCard) {
      try {
        pos = this.writeRow(json, row.ts);
      } catch (e) {
        this.deps.log.warn('mem', `episodic append failed (${e instanceof HalError ? e.code : String(e)}); kept in RAM`);
        this.demote();
      }
    }
    if (!pos && this.pending && this.pending !== this.hot) this.pending.push(json, row.ts, null);
    const evicted = this.hot.push(json, row.ts, pos);
    if (evicted) {
      const oldest = this.hot.oldest();
      if (oldest?.pos) this.floor = oldest.pos;
      if (this.onCard || oldest?.pos) this.truncated = true;
    }
    if (pos && !this.floor) this.floor = pos;
    return row;
  }

  private validate(input: AppendInput): EpisodicRow {
    if (!input || typeof input !== 'object') throw new MemoryError('bad-input', 'row must be an object');
    if (!(ROLES as readonly string[]).includes(input.role)) throw new MemoryError('bad-input', `role must be one of ${ROLES.join(', ')}`);
    if (!(KINDS as readonly string[]).includes(input.kind)) throw new MemoryError('bad-input', `kind must be one of ${KINDS.join(', ')}`);
    if (typeof input.text !== 'string') throw new MemoryError('bad-input', 'text must be a string');
    const session = input.session ?? 'main';
    if (typeof session !== 'string' || !session || utf8Length(session) > SESSION_MAX) throw new MemoryError('bad-input', `session must be 1-${SESSION_MAX} bytes`);
    const blobPath = input.blobPath ?? '';
    if (typeof blobPath !== 'string' || utf8Length(blobPath) > BLOB_PATH_MAX) throw new MemoryError('bad-input', `blobPath must be at most ${BLOB_PATH_MAX} bytes`);
    const tags = input.tags ?? [];
    if (!Array.isArray(tags) || tags.length > TAGS_MAX || tags.some((t) => typeof t !== 'string' || !t || utf8Length(t) > TAG_MAX_BYTES))
      throw new MemoryError('bad-input', `tags must be at most ${TAGS_MAX} strings of 1-${TAG_MAX_BYTES} bytes`);
    return {
      id: randomId(this.deps.random, 'e', 6),
      session,
      ts: typeof input.ts === 'number' && Number.isFinite(input.ts) && input.ts <= this.deps.clock.wallMs() ? input.ts : this.deps.clock.wallMs(),
      role: input.role,
      kind: input.kind,
      text: capBytes(input.text, EPI_TEXT_MAX_BYTES),
      blobPath,
      tags: [...tags],
    };
  }

  private matcher(q: EpiQuery): (row: EpisodicRow) => boolean {
    const now = this.deps.clock.wallMs();
    const since = q.sinceHours !== undefined ? now - q.sinceHours * 3600_000 : -Infinity;
    const before = q.beforeHours !== undefined ? now - q.beforeHours * 3600_000 : Infinity;
    const text = q.text ? wordsMatcher(q.text) : null;
    return (r) =>
      (!q.kind || r.kind === q.kind) &&
      (!q.session || r.session === q.session) &&
      (!q.sessions || q.sessions.includes(r.session)) &&
      r.ts >= since &&
      r.ts <= before &&
      (!text || text(r.text));
  }

  /** The hot window (and rows waiting for the card), newest first. */
  query(q: EpiQuery): EpiPage {
    const match = this.matcher(q);
    const rows: EpisodicRow[] = [];
    const seen = new Set<string>();
    let last: Pos | null = null;
    let full = false;
    const walk = (ring: Ring): void => {
      for (let i = 0; i < ring.count && !full; i++) {
        const e = ring.at(i);
        // cheap string tests before parsing (JSON.stringify writes these fields plainly)
        if (q.kind && !e.json.includes(`"k":"${q.kind}"`)) continue;
        const row = rowOf(e.json);
        if (!row || seen.has(row.id)) continue;
        seen.add(row.id);
        if (!match(row)) continue;
        rows.push(row);
        last = e.pos;
        if (rows.length >= q.limit) full = true;
      }
    };
    if (this.pending && this.pending !== this.hot) walk(this.pending);
    walk(this.hot);
    rows.sort((a, b) => b.ts - a.ts);
    const lastPos = last as Pos | null;
    if (full && lastPos) return { rows, searchedTo: rows[rows.length - 1]!.ts, olderExists: true, nextBefore: encodeCursor(lastPos) };
    const older = this.onCard && this.truncated && this.floor !== null;
    return { rows, searchedTo: this.floorTs, olderExists: older || full, nextBefore: older ? encodeCursor(this.floor!) : null };
  }

  /** The cursor a cold scan starts from when none is given: just below the hot window. */
  floorCursor(): string | null {
    return this.onCard && this.floor ? encodeCursor(this.floor) : null;
  }

  /** Reads the card backwards from cursor (default: below the hot window), ~128 KB and at most 4 files. */
  coldScan(q: EpiQuery, cursor: string | null): EpiPage {
    if (!this.onCard) throw new MemoryError('no-card', 'a cold scan needs an SD card');
    const from = cursor !== null ? parseCursor(cursor) : this.floor;
    if (cursor !== null && !from) throw new MemoryError('bad-input', 'before must be a cursor like 20261122.40960 (from nextBefore)');
    if (!from) return { rows: [], searchedTo: null, olderExists: false, nextBefore: null };
    const match = this.matcher(q);
    const rows: EpisodicRow[] = [];
    let searchedTo: number | null = null;
    let budget = EPI_COLD_BYTES;
    let visited = 0;
    let next: Pos | null = null;
    const files = this.days().filter((f) => f.day <= from.day);
    for (let i = 0; i < files.length; i++) {
      const f = files[i]!;
      const end = f.day === from.day ? Math.min(from.off, f.size) : f.size;
      if (visited >= EPI_COLD_FILES || budget <= 0 || rows.length >= q.limit) {
        next = { day: f.day, off: end };
        break;
      }
      visited++;
      const r = readBackward(this.deps.sd, this.path(f.day), end, budget, this.opts, (p) => {
        const row = rowOf(decode(p));
        if (!row) return true;
        searchedTo = row.ts;
        if (match(row)) rows.push(row);
        return rows.length < q.limit;
      });
      budget -= r.bytesRead;
      if (r.stop > 0 && !r.damaged) {
        next = { day: f.day, off: r.stop };
        break;
      }
    }
    return { rows, searchedTo, olderExists: next !== null, nextBefore: next ? encodeCursor(next) : null };
  }

  /** Removes day files past retention (30 days); only with a set clock. Returns how many. */
  prune(): number {
    if (!this.onCard || !this.deps.clock.synced()) return 0;
    const oldest = dayOf(this.deps.clock.wallMs()) - EPI_RETENTION_DAYS;
    let n = 0;
    try {
      for (const f of this.days()) {
        if (f.day >= oldest) continue;
        if (this.fh?.day === f.day) this.closeFile();
        this.deps.sd.remove(this.path(f.day));
        n++;
      }
    } catch (e) {
      this.deps.log.warn('mem', `episodic retention failed: ${String(e)}`);
    }
    if (this.floor && this.floor.day < oldest) this.floor = null;
    return n;
  }
}
