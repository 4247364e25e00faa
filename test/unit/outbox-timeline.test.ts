// The owner-notice outbox (persisted, bounded, de-duplicated by key across
// reboots) and the device timeline hook (rows buffered for a sink that
// attaches later).
import { describe, expect, it } from 'vitest';
import { Outbox, OUTBOX_MAX } from '../../src/chat/outbox.ts';
import { Store } from '../../src/core/store.ts';
import { Log } from '../../src/log/log.ts';
import { Timeline, type TimelineRow } from '../../src/system/timeline.ts';
import { createMemHal } from '../support/memhal.ts';

describe('outbox', () => {
  it('queues notices oldest first, refuses a repeated key even after delivery and a reboot', () => {
    const mem = createMemHal();
    const box = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    const woken: string[] = [];
    box.onPost = (n) => woken.push(n.key);
    expect(box.post('a', 'first')).toBe(true);
    expect(box.post('b', 'second')).toBe(true);
    expect(box.post('a', 'again')).toBe(false);
    expect(woken).toEqual(['a', 'b']);
    box.ack('a');
    const reloaded = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    expect(reloaded.pending().map((n) => n.text)).toEqual(['second']);
    expect(reloaded.post('a', 'once more')).toBe(false);
  });

  it('is bounded: the oldest undelivered notice goes first; long text is cut on a character boundary', () => {
    const mem = createMemHal();
    const box = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    for (let i = 0; i < OUTBOX_MAX + 2; i++) box.post(`k${i}`, '€'.repeat(400));
    const q = box.pending();
    expect(q.map((n) => n.key)).toEqual(['k2', 'k3', 'k4', 'k5', 'k6']);
    expect(Buffer.byteLength(q[0]!.text)).toBe(600);
    expect((mem.nvs.get('outbox', 'q') as string).length).toBeLessThan(4000);
  });

  it('ignores a corrupt stored queue instead of failing', () => {
    const mem = createMemHal();
    mem.nvs.set('outbox', 'q', '{"queue":[{"key":1}],');
    const box = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    expect(box.pending()).toEqual([]);
    expect(box.post('x', 'y')).toBe(true);
  });
});

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
