// The episodic log's rows in RAM (the hot window and the rings without a
// card) and its cursors: a row's place on the card, "YYYYMMDD.offset".

import { utf8Length } from '../util/utf8.ts';
import { dayName, parseDayName } from './time.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const CURSOR_TEXT = /^(\d{8})\.(\d{1,12})$/;

/** A row's place on the card: its day file and the offset of its record. */
export interface Pos {
  day: number;
  off: number;
}

/**
 * Rows in RAM, newest last: parallel arrays in a circle (4000 small objects
 * would cost more), grown as rows come (doubling up to maxRows), so a log of
 * a few rows does not hold 4000 rows' room (about 220 KB on the simulator).
 */
export class Ring {
  private json: string[] = [];
  private ts: Float64Array;
  private size: Int32Array;
  private day: Int32Array;
  private off: Float64Array;
  private cap: number;
  private head = 0;
  count = 0;
  bytes = 0;

  constructor(
    readonly maxRows: number,
    readonly maxBytes: number,
  ) {
    this.cap = Math.min(maxRows, 64);
    this.ts = new Float64Array(this.cap);
    this.size = new Int32Array(this.cap);
    this.day = new Int32Array(this.cap);
    this.off = new Float64Array(this.cap);
  }

  /** Adds the newest row; returns the positions of rows pushed out (oldest first). */
  push(json: string, ts: number, pos: Pos | null): number {
    const n = utf8Length(json);
    let evicted = 0;
    while (this.count && (this.count >= this.maxRows || this.bytes + n > this.maxBytes)) {
      this.bytes -= this.size[this.head]!;
      this.json[this.head] = '';
      this.head = (this.head + 1) % this.cap;
      this.count--;
      evicted++;
    }
    if (this.count === this.cap) this.grow();
    const at = (this.head + this.count) % this.cap;
    this.json[at] = json;
    this.ts[at] = ts;
    this.size[at] = n;
    this.day[at] = pos ? pos.day : -1;
    this.off[at] = pos ? pos.off : -1;
    this.count++;
    this.bytes += n;
    return evicted;
  }

  /** i = 0 is the newest. */
  at(i: number): { json: string; ts: number; pos: Pos | null } {
    const k = (this.head + this.count - 1 - i) % this.cap;
    const day = this.day[k]!;
    return { json: this.json[k]!, ts: this.ts[k]!, pos: day >= 0 ? { day, off: this.off[k]! } : null };
  }

  oldest(): { ts: number; pos: Pos | null } | null {
    return this.count ? this.at(this.count - 1) : null;
  }

  clear(): void {
    this.json = [];
    this.head = 0;
    this.count = 0;
    this.bytes = 0;
  }

  /** Twice the room (at most maxRows), the rows laid out oldest first from 0. */
  private grow(): void {
    const cap = Math.min(this.maxRows, this.cap * 2);
    const json: string[] = [];
    const ts = new Float64Array(cap);
    const size = new Int32Array(cap);
    const day = new Int32Array(cap);
    const off = new Float64Array(cap);
    for (let i = 0; i < this.count; i++) {
      const k = (this.head + i) % this.cap;
      json.push(this.json[k]!);
      ts[i] = this.ts[k]!;
      size[i] = this.size[k]!;
      day[i] = this.day[k]!;
      off[i] = this.off[k]!;
    }
    this.json = json;
    this.ts = ts;
    this.size = size;
    this.day = day;
    this.off = off;
    this.cap = cap;
    this.head = 0;
  }
}

export function encodeCursor(p: Pos): string {
  return `${dayName(p.day)}.${p.off}`;
}

export function parseCursor(s: string): Pos | null {
  const m = CURSOR_TEXT.exec(s.trim());
  if (!m) return null;
  const day = parseDayName(m[1]!);
  return day === null ? null : { day, off: Number(m[2]) };
}
