// The owner-notice outbox (persisted, bounded, de-duplicated by key across
// reboots). The device timeline hook it shared a file with is in
// test/unit/timeline/timeline.test.ts.
import { describe, expect, it } from 'vitest';
import { NOTICE_TEXT_MAX, Outbox, OUTBOX_MAX, STATE_MAX_BYTES } from '../../../src/outbox/outbox.ts';
import { Store } from '../../../src/core/store.ts';
import { createMemHal } from '../../support/memhal.ts';

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

  it('is bounded, but drops nothing silently: a dropped notice is reported and counted, and the next delivery starts with a report of the drops', () => {
    const mem = createMemHal();
    const box = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    const dropped: string[] = [];
    box.onDrop = (n) => dropped.push(n.key);
    for (let i = 0; i < OUTBOX_MAX + 2; i++) box.post(`k${i}`, `notice number ${i}\nmore lines`);
    expect(dropped).toEqual(['k0', 'k1']);
    const q = box.pending();
    expect(q).toHaveLength(OUTBOX_MAX + 1);
    expect(q.slice(1).map((n) => n.key)).toEqual(Array.from({ length: OUTBOX_MAX }, (_, i) => `k${i + 2}`));
    expect(q[0]).toMatchObject({ key: 'outbox-dropped:2', signed: true });
    expect(q[0]!.text).toBe(`2 earlier notice(s) could not be kept while they waited for the chat (at most ${OUTBOX_MAX} wait). They began: "notice number 0"; "notice number 1". The device log lists them.`);
    // The report survives a reboot, and goes once it is delivered.
    const reloaded = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    expect(reloaded.pending()[0]!.key).toBe('outbox-dropped:2');
    reloaded.ack('outbox-dropped:2');
    expect(reloaded.pending().map((n) => n.key)[0]).toBe('k2');
    // A later drop is a new report (a new key, so the chat's de-duplication does not swallow it).
    reloaded.post('k-next', 'one more');
    expect(reloaded.pending()[0]!.key).toBe('outbox-dropped:3');
  });

  it('cuts a long text on a character boundary and says so, naming where the whole text is; the stored state stays within its bound', () => {
    const mem = createMemHal();
    const box = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    box.post('long', '€'.repeat(2000), { rest: 'GET /api/sessions has it' });
    const [n] = box.pending();
    expect(Buffer.byteLength(n!.text)).toBeLessThanOrEqual(NOTICE_TEXT_MAX);
    expect(n!.text).toMatch(/^€+\n\[cut: \d+ more bytes did not fit a waiting notice; GET \/api\/sessions has it\]$/);
    const kept = n!.text.split('\n')[0]!;
    expect(Number(/cut: (\d+)/.exec(n!.text)![1])).toBe(6000 - Buffer.byteLength(kept));
    // Short texts are not touched; many long ones keep the state within STATE_MAX_BYTES (older ones dropped, reported).
    expect(box.post('short', 'short one')).toBe(true);
    expect(box.pending().at(-1)!.text).toBe('short one');
    for (let i = 0; i < OUTBOX_MAX; i++) box.post(`big${i}`, 'é'.repeat(1000));
    expect((mem.nvs.get('outbox', 'q') as Uint8Array).length).toBeLessThanOrEqual(STATE_MAX_BYTES);
    expect(box.pending()[0]!.key).toMatch(/^outbox-dropped:\d+$/);
  });

  it('reads the state earlier firmware stored as a string', () => {
    const mem = createMemHal();
    mem.nvs.set('outbox', 'q', JSON.stringify({ queue: [{ key: 'ota-available:v2.0.0', text: 'Firmware v2.0.0 is available.', wallMs: 0, synced: false }], seen: ['ota-available:v2.0.0'] }));
    const box = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    expect(box.pending()).toMatchObject([{ key: 'ota-available:v2.0.0', signed: true }]);
    expect(box.post('ota-available:v2.0.0', 'again')).toBe(false);
  });

  it('ignores a corrupt stored queue instead of failing', () => {
    const mem = createMemHal();
    mem.nvs.set('outbox', 'q', '{"queue":[{"key":1}],');
    const box = new Outbox(new Store(mem.nvs, 'outbox'), mem.clock);
    expect(box.pending()).toEqual([]);
    expect(box.post('x', 'y')).toBe(true);
  });
});
