// The result store: what finished jobs returned, kept in RAM for
// results.get (paged by offset), results.list, GET /api/sessions and the
// [FRESH RESULTS] block. Each entry holds the whole result within the 16 KB
// envelope; a fresh result is one its chat has not yet seen in a turn. An
// entry stops being fresh when a turn of its chat that showed it is applied
// (the synthesis turn, or the person's own turn), or when the raw results
// were delivered directly.
//
// Decision: RAM only (the newest 16 entries and 64 KB), so a restart starts
// with an empty store: a job with a project keeps its durable copy in the
// file store (<project>/<name>-<tag>.md), and every result went to the chat.

import { capBytes } from '../util/cap.ts';
import { utf8Length } from '../util/utf8.ts';
import { ENVELOPE_BYTES, RESULTS_BYTES, RESULTS_MAX } from './limits.ts';

export type ResultKind = 'result' | 'partial';

export interface ResultEntry {
  tag: string;
  kind: ResultKind;
  name: string;
  /** UTF-8 bytes of the text. */
  size: number;
  chat: string;
  person: string | null;
  provider: string;
  model: string;
  atWall: number;
  fresh: boolean;
  /** Where the project copy was saved, or why it was not (null: no project). */
  saved: { ok: true; path: string } | { ok: false; reason: string } | null;
  text: string;
}

/** The owner (person null) sees every entry; anyone else their own. */
export function visibleTo(entry: { person: string | null }, person: string | null): boolean {
  return person === null || entry.person === person;
}

export class ResultStore {
  /** Newest last. */
  private entries: ResultEntry[] = [];

  has(tag: string): boolean {
    return this.entries.some((e) => e.tag === tag);
  }

  /** Adds a fresh entry (the text is cut to the envelope); an existing tag is left as it is. */
  add(entry: Omit<ResultEntry, 'size' | 'fresh'>): ResultEntry | null {
    if (this.has(entry.tag)) return null;
    const text = capBytes(entry.text, ENVELOPE_BYTES);
    const e: ResultEntry = { ...entry, text, size: utf8Length(text), fresh: true };
    this.entries.push(e);
    this.evict();
    return e;
  }

  private evict(): void {
    const bytes = (): number => this.entries.reduce((n, e) => n + e.size, 0);
    while (this.entries.length > RESULTS_MAX || (this.entries.length > 1 && bytes() > RESULTS_BYTES)) {
      // Oldest first, but a fresh result waits for its turn unless nothing else is left.
      const i = this.entries.findIndex((e) => !e.fresh);
      this.entries.splice(i >= 0 ? i : 0, 1);
    }
  }

  get(tag: string, person: string | null): ResultEntry | null {
    const e = this.entries.find((x) => x.tag === tag);
    return e && visibleTo(e, person) ? e : null;
  }

  /** Newest first. */
  list(person: string | null): ResultEntry[] {
    return this.entries.filter((e) => visibleTo(e, person)).reverse();
  }

  /** A chat's fresh results, oldest first. */
  fresh(chat: string): ResultEntry[] {
    return this.entries.filter((e) => e.fresh && e.chat === chat);
  }

  freshChats(): string[] {
    return [...new Set(this.entries.filter((e) => e.fresh).map((e) => e.chat))];
  }

  consume(tags: readonly string[]): void {
    for (const e of this.entries) if (tags.includes(e.tag)) e.fresh = false;
    this.evict();
  }
}
