// The device timeline hook (rows buffered for a sink that attaches later);
// it shared test/unit/outbox-timeline.test.ts with the outbox (now
// test/unit/outbox/outbox.test.ts).
import { describe, expect, it } from 'vitest';
import { Log } from '../../../src/log/log.ts';
import { Timeline, type TimelineRow } from '../../../src/timeline/timeline.ts';
import { createMemHal } from '../../support/memhal.ts';

describe('timeline', () => {
  it('logs each row, keeps the last 16, and replays them to a sink that attaches later', () => {
    const mem = createMemHal();
    const t = new Timeline(mem.clock, new Log(mem.clock, mem.system));
    for (let i = 0; i < 20; i++) t.row('restart', `r${i}`);
    const got: TimelineRow[] = [];
    t.attach((r) => got.push(r));
    t.row('update', 'u');
    expect(got.map((r) => r.text)).toEqual([...Array.from({ length: 16 }, (_, i) => `r${i + 4}`), 'u']);
    expect(mem.system.logs.some((l) => l.includes('timeline: update: u'))).toBe(true);
  });
});
