// The device-action applier as the turn engine will use it: reboot after a
// delay (never in an unattended turn), the ring following ledBrightness, and
// a failed NVS write that changes nothing.
import { describe, expect, it } from 'vitest';
import { REBOOT_DELAY_MS } from '../../../src/device/actions.ts';
import { validateAction } from '../../../src/contracts/device-actions.ts';
import { mountDevice } from '../../support/kernel.ts';
import { RebootSignal, createMemHal } from '../../support/memhal.ts';

function action(raw: unknown) {
  const v = validateAction(raw);
  if (!v.ok) throw new Error(v.reason);
  return v.action;
}

describe('the device-action applier', () => {
  it('reboots REBOOT_DELAY_MS after an attended reboot action, never in an unattended one', async () => {
    const mem = createMemHal();
    const ctx = mountDevice(mem);
    expect(ctx.actions.apply(action({ reboot: true }), { unattended: true })).toEqual({ ok: false, reason: 'unattended', note: 'reboot: refused in an unattended turn' });
    await mem.clock.advance(REBOOT_DELAY_MS * 2);
    expect(mem.system.reboots).toEqual([]);
    expect(ctx.actions.apply(action({ reboot: true }))).toEqual({ ok: true, note: 'reboot: restarting in 2 s' });
    await mem.clock.advance(REBOOT_DELAY_MS - 1);
    expect(mem.system.reboots).toEqual([]);
    await expect(mem.clock.advance(1)).rejects.toBeInstanceOf(RebootSignal);
    expect(mem.system.reboots).toEqual(['device action']);
  });

  it('shows the ring at the ledBrightness setting until an action sets a brightness', () => {
    const mem = createMemHal({ board: 'ring-tft' });
    const ctx = mountDevice(mem);
    ctx.actions.apply(action({ led: { mode: 'solid', color: { r: 200, g: 100, b: 0 } } }));
    expect([...mem.ring.last()!.slice(0, 3)]).toEqual([100, 50, 0]); // default brightness 128
    ctx.actions.apply(action({ config: { ledBrightness: 255 } }));
    expect([...mem.ring.last()!.slice(0, 3)]).toEqual([200, 100, 0]);
    ctx.actions.apply(action({ led: { mode: 'solid', brightness: 0 } }));
    expect([...mem.ring.last()!.slice(0, 3)]).toEqual([0, 0, 0]);
    const frames = mem.ring.frames.length;
    ctx.actions.apply(action({ config: { ledBrightness: 10 } }));
    expect(mem.ring.frames.length).toBe(frames); // the action's own brightness wins
  });

  it('changes nothing when NVS refuses the write', () => {
    const mem = createMemHal();
    const ctx = mountDevice(mem);
    ctx.actions.apply(action({ config: { sfxVol: 20 } }));
    const setMany = mem.nvs.setMany.bind(mem.nvs);
    mem.nvs.setMany = () => {
      throw new Error('NVS partition full');
    };
    expect(ctx.actions.apply(action({ config: { sfxVol: 70, theme: 'dark' } }))).toEqual({ ok: false, reason: 'storage', note: 'config: nothing saved (NVS partition full)' });
    mem.nvs.setMany = setMany;
    expect(ctx.actions.config('sfxVol')).toBe(20);
    expect(ctx.actions.config('theme')).toBeUndefined();
  });
});
