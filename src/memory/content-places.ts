// Where each row's content lies: on the card (the store's snapshot or journal,
// at an offset: the JSON a search reads back for the rows it returns) or in
// RAM (no card). A few hundred texts read or written lately are kept warm, so
// a store that loses its card keeps the memories it was using.

import { grown } from './columns.ts';
import { decodeCold, type RecordCold } from './record-bin.ts';

/** Where a row's content JSON lies on the card: the snapshot (1) or the journal (2), at an offset. */
export interface TextWhere {
  file: 1 | 2;
  off: number;
  len: number;
}

/** Reads content JSON from the card (null when it cannot). */
export interface TextSource {
  read(file: 1 | 2, off: number, len: number): Uint8Array | null;
}

/** Texts kept in RAM for rows whose content is on the card: what a store keeps when the card goes. */
const WARM_MAX = 400;

const NO_CONTENT: RecordCold = { content: '', source: 'self', metadata: null };

export class ContentPlaces {
  private file: Uint8Array;
  private off: Uint32Array;
  private len: Uint32Array;
  /** Content and rare fields of the rows whose content is in RAM (file 0), by id. */
  private ram = new Map<string, RecordCold>();
  /** Texts of rows on the card, kept for the case the card goes (the most recently read or written). */
  private warm = new Map<string, RecordCold>();
  /** Where content on the card is read from (the store's files). */
  source: TextSource | null = null;

  constructor(capacity: number) {
    this.file = new Uint8Array(capacity);
    this.off = new Uint32Array(capacity);
    this.len = new Uint32Array(capacity);
  }

  grow(cap: number): void {
    this.file = grown(this.file, cap);
    this.off = grown(this.off, cap);
    this.len = grown(this.len, cap);
  }

  /** Where row's content lies on the card, or null (in RAM). */
  whereOf(row: number): TextWhere | null {
    const f = this.file[row]!;
    return f === 1 || f === 2 ? { file: f, off: this.off[row]!, len: this.len[row]! } : null;
  }

  /** The row's content and rare fields: from RAM, or read from the card (and kept warm). */
  cold(row: number, id: string): RecordCold {
    const kept = this.ram.get(id) ?? this.warm.get(id);
    if (kept) return kept;
    const w = this.whereOf(row);
    const bytes = w && this.source ? this.source.read(w.file, w.off, w.len) : null;
    const c = bytes ? decodeCold(bytes) : null;
    if (!c) return NO_CONTENT;
    this.keepWarm(id, c);
    return c;
  }

  /** Whether the content of this id can be had without the card. */
  inRam(id: string): boolean {
    return this.ram.has(id) || this.warm.has(id);
  }

  /** Row's content lies at where on the card (cold, when given, kept warm), or in RAM (where null). */
  place(row: number, id: string, cold: RecordCold | null, where: TextWhere | null): void {
    this.ram.delete(id);
    if (where) {
      this.setWhere(row, where);
      if (cold) this.keepWarm(id, cold);
      else this.warm.delete(id);
    } else {
      this.file[row] = 0;
      this.warm.delete(id);
      if (cold) this.ram.set(id, cold);
    }
  }

  /** The row's content now lies here on the card (after a compaction moved it). */
  relocate(row: number, id: string, where: TextWhere): void {
    const kept = this.ram.get(id);
    this.setWhere(row, where);
    if (kept) {
      this.ram.delete(id);
      this.keepWarm(id, kept);
    }
  }

  /** Every row's content kept in RAM from now on (the card is gone): rows whose content cannot be had are returned. */
  toRam(rows: number, idOf: (row: number) => string): number[] {
    const lost: number[] = [];
    for (let r = 0; r < rows; r++) {
      if (this.file[r] === 0) continue;
      const id = idOf(r);
      const w = this.warm.get(id);
      if (!w) {
        lost.push(r);
        continue;
      }
      this.ram.set(id, w);
      this.warm.delete(id);
      this.file[r] = 0;
    }
    return lost;
  }

  /** Row (of this id) leaves: the last row moves into its place. */
  remove(row: number, last: number, id: string): void {
    this.ram.delete(id);
    this.warm.delete(id);
    if (row === last) return;
    this.file[row] = this.file[last]!;
    this.off[row] = this.off[last]!;
    this.len[row] = this.len[last]!;
  }

  clear(): void {
    this.ram.clear();
    this.warm.clear();
  }

  private setWhere(row: number, where: TextWhere): void {
    this.file[row] = where.file;
    this.off[row] = where.off;
    this.len[row] = where.len;
  }

  private keepWarm(id: string, c: RecordCold): void {
    this.warm.delete(id);
    this.warm.set(id, c);
    if (this.warm.size > WARM_MAX) this.warm.delete(this.warm.keys().next().value as string);
  }
}
