// The in-memory HAL's own guarantees that other tests rely on.
import { describe, expect, it } from 'vitest';
import { HalError } from '../../../src/hal/index.ts';
import { VirtualClock } from '../../support/clock.ts';
import { createMemHal, rebootMemHal } from '../../support/memhal.ts';

describe('virtual clock', () => {
  it('fires due timers in due order, ties in scheduling order, and only when advanced', async () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    clock.setTimeout(() => seen.push('b@20'), 20);
    clock.setTimeout(() => seen.push('a@10'), 10);
    clock.setTimeout(() => seen.push('c@20'), 20);
    const never = clock.setTimeout(() => seen.push('cancelled'), 15);
    never.cancel();
    expect(seen).toEqual([]);
    await clock.advance(19);
    expect(seen).toEqual(['a@10']);
    await clock.advance(1);
    expect(seen).toEqual(['a@10', 'b@20', 'c@20']);
    expect(clock.monoMs()).toBe(20);
  });

  it('runs promise jobs queued by a timer before the next timer', async () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    clock.setTimeout(() => {
      void Promise.resolve().then(() => seen.push('job'));
      seen.push('t1');
    }, 5);
    clock.setTimeout(() => seen.push('t2'), 5);
    await clock.advance(5);
    expect(seen).toEqual(['t1', 'job', 't2']);
  });

  it('repeats intervals and sees the time each fires at', async () => {
    const clock = new VirtualClock();
    const at: number[] = [];
    const t = clock.setInterval(() => at.push(clock.monoMs()), 100);
    await clock.advance(350);
    t.cancel();
    await clock.advance(500);
    expect(at).toEqual([100, 200, 300]);
  });

  it('keeps an unsynced wall clock until set', () => {
    const clock = new VirtualClock({ wallMs: 0, synced: false });
    expect(clock.synced()).toBe(false);
    clock.setWall(Date.UTC(2026, 0, 1));
    expect(clock.synced()).toBe(true);
    expect(clock.wallMs()).toBe(Date.UTC(2026, 0, 1));
  });
});

describe('in-memory storage', () => {
  it('enforces NVS key and value limits', () => {
    const { nvs } = createMemHal();
    nvs.set('sys', 'fifteen_chars__', 'x');
    expect(() => nvs.set('sys', 'sixteen_chars___', 'x')).toThrow(HalError);
    expect(() => nvs.set('sys', 'big', 'x'.repeat(4001))).toThrow(/4000/);
    expect(() => nvs.set('sys', 'n', 1.5)).toThrow(/32-bit/);
    nvs.setMany('sys', [['a', 1], ['fifteen_chars__', undefined]]);
    expect(nvs.keys('sys')).toEqual(['a']);
  });

  it('loses unsynced card writes at a power cut and keeps synced ones', () => {
    const mem = createMemHal();
    mem.sd.mkdir('/mem');
    const f = mem.hal.sd.open('/mem/log', 'a');
    f.write(new Uint8Array([1, 2, 3]));
    f.sync();
    f.write(new Uint8Array([4, 5]));
    const after = rebootMemHal(mem, 'power-on');
    expect([...after.hal.sd.read('/mem/log', 0, 10)]).toEqual([1, 2, 3]);
  });

  it('answers ENOCARD once the card is pulled', () => {
    const mem = createMemHal();
    mem.sd.pull();
    expect(mem.hal.sd.probe().present).toBe(false);
    expect(() => mem.hal.sd.list('/')).toThrow(expect.objectContaining({ code: 'ENOCARD' }));
  });

  it('refuses to write the running flash slot', () => {
    const { flash } = createMemHal();
    expect(() => flash.beginWrite(0)).toThrow(expect.objectContaining({ code: 'EBUSY' }));
    const w = flash.beginWrite(1);
    w.write(new Uint8Array([9, 9]));
    w.end();
    flash.setBootSlot(1);
    expect(flash.slotState(1)).toBe('new');
  });
});
