// The battery model and power (spec: Limits "Battery gate" and
// "Auto-install", the console's Battery group): calibrated level and health
// estimate as the update gate sees them (one source: ctx.power.reading()),
// BATTCAL and BATTRESET (kept across a reboot, erased by a factory reset),
// PROFILE, SLEEPMV with the low-battery deep sleep, SLEEP, DRAIN.
import { describe, expect, it } from 'vitest';
import { mount } from '../../../src/core/subsystem.ts';
import { power } from '../../../src/power/index.ts';
import { device as deviceSubsystem } from '../../../src/device/index.ts';
import type { Updates } from '../../../src/ota/index.ts';
import { timeline as timelineSubsystem } from '../../../src/timeline/index.ts';
import { calibrated, calibrationOf, healthFromFull, levelFromMv, mvFromLevel, DRAIN_MS_PER_PCT } from '../../../src/power/battery.ts';
import { LOW_BATTERY_WAKE_MS } from '../../../src/power/limits.ts';
import type { BatteryReading } from '../../../src/hal/index.ts';
import { flushJobs } from '../../support/clock.ts';
import { deviceKernel, mountOta, mountSystem, mountWifi, pending } from '../../support/kernel.ts';
import { createMemHal, RebootSignal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { makeKey, simImage, UpdateFeed } from '../../support/ota.ts';

const BATTERY: BatteryReading = { present: true, levelPct: 80, healthPct: null, millivolts: 3950, external: false, charging: false };

describe('the battery model', () => {
  it('reads a resting voltage on the Li-ion curve, and back', () => {
    expect(levelFromMv(4200)).toBe(100);
    expect(levelFromMv(4250)).toBe(100);
    expect(levelFromMv(3800)).toBe(40);
    expect(levelFromMv(3810)).toBe(43);
    expect(levelFromMv(3270)).toBe(0);
    expect(levelFromMv(3000)).toBe(0);
    for (const pct of [0, 5, 17, 40, 63, 100]) expect(levelFromMv(mvFromLevel(pct))).toBe(pct);
  });

  it('scales the gauge so a finished charge reads 100 %, and estimates health from what full reads', () => {
    const full = { ...BATTERY, levelPct: 90, millivolts: 4120, external: true };
    const cal = calibrationOf(full, 0);
    expect(cal).toEqual({ fullMv: 4120, fullRaw: 90, health: 88, atMs: 0 });
    expect(calibrated({ ...BATTERY, levelPct: 45 }, cal).levelPct).toBe(50);
    expect(calibrated({ ...BATTERY, levelPct: 36 }, cal).levelPct).toBe(40);
    expect(calibrated({ ...BATTERY, levelPct: 35 }, cal).levelPct).toBe(39);
    expect(calibrated({ ...BATTERY, levelPct: 95 }, cal).levelPct).toBe(100);
    expect(calibrated(BATTERY, cal).healthPct).toBe(88);
    // the gauge's own state of health wins over the estimate
    expect(calibrated({ ...BATTERY, healthPct: 70 }, cal).healthPct).toBe(70);
    // a voltage-only gauge: the curve, its top moved to the calibrated full voltage
    const mvOnly = { ...BATTERY, levelPct: null };
    expect(calibrated({ ...mvOnly, millivolts: 3800 }, null).levelPct).toBe(40);
    expect(calibrated({ ...mvOnly, millivolts: 4000 }, { fullMv: 4000, fullRaw: null, health: 40, atMs: 0 }).levelPct).toBe(100);
    expect(healthFromFull(4150, null)).toBe(100);
    expect(healthFromFull(4050, 95)).toBe(60);
    expect(healthFromFull(null, 72)).toBe(72);
    // no gauge: nothing to calibrate, monitoring is off
    expect(calibrated({ present: false, levelPct: null, healthPct: null, millivolts: null, external: true, charging: false }, cal)).toMatchObject({ present: false, levelPct: null });
  });
});

const key = makeKey();

/**
 * The battery model on a device kernel, with what reads or drives it: the system (device.status, system.health,
 * the timeline, FACTRESET), Wi-Fi, the update engine (its gate reads the battery) and the power subsystem over
 * one Power and one set of device actions, mounted in main.ts's order (power after the updates it asks).
 */
function powerAlone(mem: MemHal) {
  const dk = deviceKernel({ mem });
  // As the boot mounts them: the timeline, the device actions, power (its updates a late need), then the rest.
  const timeline = mount(dk.kernel, timelineSubsystem, {});
  const device = mount(dk.kernel, deviceSubsystem, {});
  const later = pending<Updates>('updates');
  const battery = mount(dk.kernel, power, { actions: device.actions, timeline, updates: later });
  mountSystem(dk.kernel, { power: battery, timeline, device });
  mountWifi(dk);
  const { updates } = mountOta(dk, { power: battery, timeline });
  later.set(updates);
  dk.start();
  return {
    ctx: { ...dk.kernel, ota: updates, timeline },
    power: battery,
    stop: () => {
      battery.stop();
      dk.stop();
    },
  };
}

function device(mem: MemHal = createMemHal({ board: 'ring-tft', version: 'v1.0.0' })) {
  mem.flash.slots[0] = simImage('v1.0.0');
  const d = powerAlone(mem);
  d.ctx.ota.keys = [key.trusted];
  const feed = new UpdateFeed();
  feed.attach(mem.net);
  feed.publish({ version: 'v2.0.0', key, types: ['ring-tft'] });
  const cmd = async (line: string): Promise<string> => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    for (let i = 0; i < 4; i++) await flushJobs();
    return mem.serial.take().replace(/\r/g, '');
  };
  /** The gate's verdict on a dry run (an accepted one runs to its end). */
  const verdict = async (source: 'web' | 'auto'): Promise<string> => {
    const t = d.ctx.ota.apply({ source, dry: true });
    if (!t.ok) return t.reason;
    await t.done;
    return 'pass';
  };
  const gate = () => verdict('web');
  const auto = () => verdict('auto');
  return { mem, d, cmd, gate, auto, set: (r: Partial<BatteryReading>) => void (mem.battery.reading = { ...mem.battery.reading, ...r }) };
}

describe('the update gate reads the battery model', () => {
  it('an uncalibrated gauge without a health figure refuses need-recalibrate until BATTCAL on a finished charge', async () => {
    const { cmd, gate, set, d } = device();
    set({ levelPct: 85, healthPct: null, millivolts: 4050, external: false });
    expect(await gate()).toBe('need-recalibrate');
    expect(await cmd('BATTCAL')).toBe('ERR not-full: connect power and let the charge finish (the charger must report done) before BATTCAL\n');
    set({ external: true, charging: true });
    expect(await cmd('BATTCAL')).toMatch(/^ERR not-full/);
    set({ charging: false, levelPct: 40 });
    expect(await cmd('BATTCAL')).toBe('ERR not-full: the gauge reads 40%, which is not a finished charge\n');
    set({ levelPct: 95, millivolts: 4130 });
    expect(await cmd('BATTCAL')).toBe('calibrated: full=4130 mV gauge=95% health=92% (estimate)\nlevel=100% health=92% mv=4130 external=1 charging=0\nOK\n');
    // unplugged: the calibrated level and the estimate decide
    set({ external: false, levelPct: 38, millivolts: 3800 });
    expect(d.power.reading()).toMatchObject({ levelPct: 40, healthPct: 92 });
    expect(await gate()).toBe('pass');
    set({ levelPct: 37 });
    expect(d.power.reading().levelPct).toBe(39);
    expect(await gate()).toBe('need-power');
  });

  it('passes at 40 % and 60 %, on external power whatever the figures, and with monitoring disabled; auto needs 50 %', async () => {
    const { gate, auto, set } = device();
    set({ levelPct: 40, healthPct: 60, external: false });
    expect(await gate()).toBe('pass');
    expect(await auto()).toBe('need-power');
    set({ levelPct: 50 });
    expect(await auto()).toBe('pass');
    set({ levelPct: 39 });
    expect(await gate()).toBe('need-power');
    set({ healthPct: 59, levelPct: 90 });
    expect(await gate()).toBe('need-recalibrate');
    expect(await auto()).toBe('need-power');
    set({ levelPct: 3, healthPct: 10, external: true });
    expect(await gate()).toBe('pass');
    expect(await auto()).toBe('pass');
    set({ present: false, levelPct: null, healthPct: null, external: false });
    expect(await gate()).toBe('pass');
  });

  it('device.status (the state snapshot) and system.health show the same figures, with the raw gauge beside them', async () => {
    const { d, set, cmd } = device();
    set({ levelPct: 99, healthPct: null, millivolts: 4160, external: true, charging: false });
    await cmd('BATTCAL');
    set({ levelPct: 66, external: false });
    const snap = d.ctx.status.snapshot() as { battery: Record<string, unknown>; power: Record<string, unknown> };
    // health: the lower of the full voltage's verdict (4160 mV: 100) and the gauge's (99 %)
    expect(snap.battery).toMatchObject({ levelPct: 67, rawLevelPct: 66, healthPct: 99, calibrated: true, drain: 'off' });
    expect(snap.power).toEqual({ profile: 1, profileName: 'balanced', sleepMv: 3300 });
    const caller = { via: 'mcp' as const, admin: true, scheduled: false, unattended: false, person: null };
    const status = JSON.parse((await d.ctx.tools.call('device.status', {}, caller)).output) as { battery: BatteryReading };
    expect(status.battery).toMatchObject({ levelPct: 67, healthPct: 99 });
    const health = JSON.parse((await d.ctx.tools.call('system.health', {}, caller)).output) as { hardware: { battery: BatteryReading } };
    expect(health.hardware.battery).toMatchObject({ levelPct: 67, healthPct: 99 });
  });
});

describe('calibration is kept', () => {
  it('across a reboot; BATTRESET forgets it; a factory reset erases it', async () => {
    const first = device();
    first.set({ levelPct: 90, healthPct: null, millivolts: 4100, external: true });
    expect(await first.cmd('BATTCAL')).toMatch(/^calibrated: full=4100 mV gauge=90% health=80%/);
    first.d.stop();
    const again = device(rebootMemHal(first.mem));
    again.set({ levelPct: 45, healthPct: null, millivolts: 3840, external: false });
    expect(again.d.power.reading()).toMatchObject({ levelPct: 50, healthPct: 80 });
    expect(await again.cmd('BATTRESET')).toBe('calibration erased\nlevel=45% health=?% mv=3840 external=0 charging=0\nOK\n');
    expect(await again.cmd('BATTRESET')).toMatch(/^no calibration was stored\n/);
    again.set({ levelPct: 90, millivolts: 4100, external: true });
    await again.cmd('BATTCAL');
    expect(again.mem.nvs.keys('power')).toContain('calHp');
    expect(await again.cmd('FACTRESET')).toMatch(/^factory reset/);
    await expect(again.mem.clock.advance(1)).rejects.toBeInstanceOf(RebootSignal);
    expect(again.mem.nvs.keys('power')).toEqual([]);
  });
});

describe('profiles, sleep and the drain simulation', () => {
  it('PROFILE sets the config key profile and says what it changes', async () => {
    const { cmd, mem, d } = device();
    expect(await cmd('PROFILE')).toBe('profile=1 balanced: ring 20 fps, brightness at most 255, battery read every 15 s, screen dims after 120 s\nOK\n');
    expect(await cmd('PROFILE 2')).toBe('profile=2 saver: ring 10 fps, brightness at most 64, battery read every 60 s, screen dims after 30 s\nOK\n');
    expect(mem.nvs.get('cfg', 'profile')).toBe(2);
    expect(d.power.profile().name).toBe('saver');
    expect(await cmd('PROFILE 3')).toMatch(/^ERR usage: PROFILE <0 or 1 or 2>/);
    expect(mem.nvs.get('cfg', 'profile')).toBe(2);
  });

  it('sleeps below SLEEPMV on battery after two low readings, wakes to look again; never on external power; SLEEPMV 0 is off', async () => {
    const { cmd, mem, set, d } = device();
    expect(await cmd('SLEEPMV')).toMatch(/^sleepMv=3300 \(default\)\n/);
    expect(await cmd('SLEEPMV 2000')).toMatch(/^ERR usage: SLEEPMV \[mv\]/);
    expect(await cmd('SLEEPMV 3400')).toMatch(/^sleepMv=3400\n/);
    set({ millivolts: 3350, levelPct: 2, external: true });
    await mem.clock.advance(60_000);
    expect(mem.system.sleeps).toEqual([]);
    set({ external: false });
    await mem.clock.advance(15_000 + 2_000);
    expect(mem.system.sleeps).toEqual([]); // one low reading is not enough
    await mem.clock.advance(15_000);
    expect(mem.system.sleeps).toEqual([LOW_BATTERY_WAKE_MS]);
    expect(d.ctx.timeline.recent().map((r) => r.text)).toContain('going to deep sleep: the battery reads 3350 mV, below SLEEPMV 3400 mV, on battery');
    const off = device();
    await off.cmd('SLEEPMV 0');
    off.set({ millivolts: 3100, levelPct: 0, external: false });
    await off.mem.clock.advance(120_000);
    expect(off.mem.system.sleeps).toEqual([]);
  });

  it('SLEEP answers, then sleeps until woken; refused while an update installs', async () => {
    const { cmd, mem } = device();
    expect(await cmd('SLEEP')).toBe('sleeping until woken\nOK\n');
    expect(mem.system.sleeps).toEqual([]);
    await mem.clock.advance(300);
    expect(mem.system.sleeps).toEqual([0]);
    expect(await cmd('SLEEP now')).toBe('ERR usage: SLEEP (no arguments)\n');
  });

  it('DRAIN discharges on battery; without deep it only logs at SLEEPMV, with deep it sleeps; the gate follows', async () => {
    const { cmd, mem, gate, set, d } = device();
    set({ levelPct: 60, healthPct: 90, external: true });
    expect(await gate()).toBe('pass');
    expect(await cmd('DRAIN sideways')).toMatch(/^ERR usage: DRAIN on or off \[deep\]/);
    expect(await cmd('DRAIN on')).toBe('drain=on from 60%: at SLEEPMV 3300 mV the device only logs that it would sleep\nlevel=60% health=90% mv=3870 external=0 charging=0\nOK\n');
    await mem.clock.advance(21 * DRAIN_MS_PER_PCT);
    expect(d.power.reading()).toMatchObject({ levelPct: 39, external: false });
    expect(await gate()).toBe('need-power');
    await mem.clock.advance(60 * DRAIN_MS_PER_PCT);
    expect(d.power.reading().levelPct).toBe(0);
    expect(mem.system.sleeps).toEqual([]);
    expect(mem.system.logs.some((l) => l.includes('would deep-sleep now (DRAIN without deep)'))).toBe(true);
    expect(await cmd('BATTCAL')).toMatch(/^ERR drain-on/);
    expect(await cmd('DRAIN off')).toMatch(/^drain=off\nlevel=60% /);
    expect(await gate()).toBe('pass');
    expect(await cmd('DRAIN on deep')).toMatch(/^drain=deep from 60%: at SLEEPMV 3300 mV the device deep-sleeps\n/);
    await mem.clock.advance(60 * DRAIN_MS_PER_PCT); // 0 %: 3270 mV, under 3300
    expect(mem.system.sleeps).toEqual([]);
    await mem.clock.advance(30_000); // two readings 15 s apart
    expect(mem.system.sleeps).toEqual([LOW_BATTERY_WAKE_MS]);
  });
});
