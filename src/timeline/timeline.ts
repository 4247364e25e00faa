// The device timeline (spec Events: "Device timeline rows": restarts with
// their reset reason, firmware updates with notes, mode switches, storage
// changes). There is no episodic log yet: rows go to the firmware log now,
// and are kept in a small RAM ring that a sink can drain later.
//
// For the episodic-log engineer: call attach(sink) once the log is open; the
// sink receives the rows buffered since boot, then every new row, and should
// write each as an episodic row in session 'system', kind 'log'.

import type { TimelineKind, TimelineRow, TimelineSink } from '../contracts/index.ts';
import type { Clock } from '../hal/index.ts';
import type { Log } from '../log/log.ts';

export type { TimelineKind, TimelineRow } from '../contracts/index.ts';

/** Rows kept for a sink that attaches later. */
export const TIMELINE_RING = 16;

export class Timeline implements TimelineSink {
  private rows: TimelineRow[] = [];
  private sink: ((row: TimelineRow) => void) | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly log: Log,
  ) {}

  row(kind: TimelineKind, text: string): void {
    const row: TimelineRow = { kind, text, wallMs: this.clock.wallMs(), synced: this.clock.synced(), monoMs: this.clock.monoMs() };
    this.log.info('timeline', `${kind}: ${text}`);
    this.rows.push(row);
    if (this.rows.length > TIMELINE_RING) this.rows.shift();
    this.sink?.(row);
  }

  /** The rows kept since boot (at most 16), oldest first. */
  recent(): readonly TimelineRow[] {
    return this.rows.map((r) => ({ ...r }));
  }

  /** Sends the kept rows to sink, then every new one. */
  attach(sink: (row: TimelineRow) => void): void {
    this.sink = sink;
    for (const r of this.rows) sink({ ...r });
  }
}
