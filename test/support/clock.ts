// A virtual clock for unit tests: time moves only when a test advances it,
// and advancing fires the due timers in due order, draining promise jobs
// after each one (as the device's event loop does).

import type { Clock, Timer } from '../../src/hal/index.ts';

interface Entry {
  id: number;
  due: number;
  every: number;
  fn: () => void;
  live: boolean;
}

/** Drain every queued promise job (and those they queue) before going on. */
export function flushJobs(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class VirtualClock implements Clock {
  private mono = 0;
  private wallOffset: number;
  private isSynced: boolean;
  private seq = 0;
  private entries: Entry[] = [];

  constructor(options: { wallMs?: number; synced?: boolean } = {}) {
    this.wallOffset = options.wallMs ?? Date.UTC(2026, 10, 22, 9, 0, 0);
    this.isSynced = options.synced ?? true;
  }

  monoMs(): number {
    return this.mono;
  }
  wallMs(): number {
    return this.wallOffset + this.mono;
  }
  synced(): boolean {
    return this.isSynced;
  }
  /** Sets the wall clock (as SNTP would) without moving monotonic time. */
  setWall(ms: number, synced = true): void {
    this.wallOffset = ms - this.mono;
    this.isSynced = synced;
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.add(fn, ms, 0);
  }
  setInterval(fn: () => void, ms: number): Timer {
    return this.add(fn, ms, Math.max(1, ms));
  }

  private add(fn: () => void, ms: number, every: number): Timer {
    const entry: Entry = { id: ++this.seq, due: this.mono + Math.max(0, ms), every, fn, live: true };
    this.entries.push(entry);
    return {
      cancel: () => {
        entry.live = false;
      },
    };
  }

  /** Timers still scheduled. */
  pending(): number {
    return this.entries.filter((e) => e.live).length;
  }

  /** When the next live timer is due, or null. */
  nextDue(): number | null {
    let best: number | null = null;
    for (const e of this.entries) if (e.live && (best === null || e.due < best)) best = e.due;
    return best;
  }

  /**
   * Moves time forward by ms, firing every timer that falls due on the way in
   * order (ties in scheduling order), with promise jobs drained after each.
   */
  async advance(ms: number): Promise<void> {
    const end = this.mono + ms;
    await flushJobs();
    for (;;) {
      this.entries = this.entries.filter((e) => e.live);
      let next: Entry | null = null;
      for (const e of this.entries) {
        if (e.due <= end && (!next || e.due < next.due || (e.due === next.due && e.id < next.id))) next = e;
      }
      if (!next) break;
      this.mono = Math.max(this.mono, next.due);
      if (next.every) next.due += next.every;
      else next.live = false;
      next.fn();
      await flushJobs();
    }
    this.mono = end;
    await flushJobs();
  }

  /** Advance in steps until predicate holds or limitMs passes; returns whether it held. */
  async until(predicate: () => boolean, limitMs: number, stepMs = 10): Promise<boolean> {
    let waited = 0;
    while (!predicate()) {
      if (waited >= limitMs) return false;
      await this.advance(stepMs);
      waited += stepMs;
    }
    return true;
  }
}
