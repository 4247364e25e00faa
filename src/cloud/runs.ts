// The requests the relay has handed to this device, by the relay's request
// id (protocol v2, docs/cloud-relay.md "Reconnects"), so that a tunnel
// reconnect loses none and runs none twice. A request whose connection goes
// while its handler runs keeps running; its answer goes to the stream of the
// relay's replay of the same id on the next connection, or is kept for it.
// An answer is kept (when it is whole, not streamed, and small enough) until
// the relay says it has it (DONE) or KEEP_MS pass: the relay gives up on a
// request after 30 s, so it never asks later than that.

import type { HttpResponse } from '../net/http/types.ts';

/** How long an answer waits for its DONE (twice the relay's request deadline). */
export const KEEP_MS = 60_000;
/** Answers kept at once, in bytes of their bodies (the oldest lose theirs first). */
export const KEEP_BYTES = 128 * 1024;
/** Requests remembered at once. */
export const MAX_RUNS = 64;
/** The longest request id accepted from the relay. */
export const MAX_RID = 64;

export interface Run {
  rid: string;
  method: string;
  /** Its handler has answered. */
  done: boolean;
  /** The stream, on the current connection, waiting for the answer (null: none). */
  stream: number | null;
  /** The answer kept for a replay (a whole body; null when streamed, too large, or not yet). */
  answer: (HttpResponse & { body: Uint8Array }) | null;
  /** Monotonic ms when the handler answered. */
  doneAt: number;
}

/** Methods that may run again with no harm (RFC 9110, 9.2.2) when their answer was not kept. */
export function idempotent(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

export class Runs {
  private runs = new Map<string, Run>();
  private kept = 0;

  constructor(private readonly now: () => number) {}

  get(rid: string): Run | undefined {
    return this.runs.get(rid);
  }

  get size(): number {
    return this.runs.size;
  }

  /** Handlers still running with no stream to answer on (their connection went). */
  orphans(): number {
    let n = 0;
    for (const r of this.runs.values()) if (!r.done && r.stream === null) n++;
    return n;
  }

  start(rid: string, method: string, stream: number): Run {
    this.prune();
    const run: Run = { rid, method, done: false, stream, answer: null, doneAt: 0 };
    this.runs.set(rid, run);
    return run;
  }

  /** The handler answered; the answer is kept when it fits. */
  answered(run: Run, answer: (HttpResponse & { body: Uint8Array }) | null): void {
    run.done = true;
    run.doneAt = this.now();
    if (answer && answer.body.length <= KEEP_BYTES / 2) {
      run.answer = answer;
      this.kept += answer.body.length;
    }
    this.prune();
  }

  /** The relay has the whole answer (DONE), or a replay took a kept one: nothing more is owed. */
  forget(rid: string): void {
    const r = this.runs.get(rid);
    if (!r) return;
    if (r.answer) this.kept -= r.answer.body.length;
    this.runs.delete(rid);
  }

  /** The connection went: no stream waits any more. */
  detachAll(): void {
    for (const r of this.runs.values()) r.stream = null;
  }

  private prune(): void {
    const now = this.now();
    for (const r of [...this.runs.values()]) if (r.done && now - r.doneAt >= KEEP_MS) this.forget(r.rid);
    // Oldest answered first; a running request is never forgotten (its answer is owed).
    for (const r of [...this.runs.values()]) {
      if (this.runs.size <= MAX_RUNS && this.kept <= KEEP_BYTES) break;
      if (!r.done) continue;
      if (this.runs.size > MAX_RUNS) this.forget(r.rid);
      else if (r.answer) {
        this.kept -= r.answer.body.length;
        r.answer = null;
      }
    }
  }
}
