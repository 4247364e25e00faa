// Power: the battery model every reader uses (the update gate,
// device.status, the status line and the state snapshot), the calibration
// BATTCAL stores, the power profile (config key profile, PROFILE 0-2), the
// sleep threshold (SLEEPMV) and the monitor that puts the device into deep
// sleep below it, and the DRAIN simulation.
//
//   reading()   the gauge's reading through the calibration (battery.ts), or
//               the DRAIN simulation's while it runs: one source of truth
//   monitor     reads the battery every profile.batteryPollMs; two readings
//               in a row on battery below SLEEPMV (default 3300 mV; 0 turns
//               it off) write a timeline row and deep-sleep for
//               LOW_BATTERY_WAKE_MS, after which the device boots, looks
//               again, and sleeps again if nothing changed. External power
//               never sleeps. Under DRAIN without 'deep' the device only
//               logs that it would sleep.
//
// The calibration and the threshold live in NVS namespace 'power', so a
// factory reset erases them (it keeps only the 'keep' namespace).

import type { Store } from '../core/store.ts';
import type { BatteryReading, Hal, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { calibrated, calibrationOf, calibrationRefusal, drained, levelFromMv, type Calibration, type Drain } from './battery.ts';
import { DEFAULT_SLEEP_MV, FIRST_POLL_MS, LOW_BATTERY_WAKE_MS, LOW_READINGS, SLEEP_DELAY_MS, SLEEP_MV_MAX, SLEEP_MV_MIN } from './limits.ts';
import { profileOf, type PowerProfile } from '../contracts/index.ts';


/** The device actions as power reads and changes them (src/device's DeviceActions). */
export interface PowerSettings {
  config(key: 'profile'): unknown;
  apply(action: { kind: 'config'; values: { profile: number } }): { ok: boolean; note: string };
}

/** Where power writes its row when it decides to sleep (src/system's timeline). */
export interface PowerTimeline {
  row(kind: 'restart', text: string): void;
}

export type CalibrateResult = { ok: true; cal: Calibration; reading: BatteryReading } | { ok: false; reason: string };

export class Power {
  private deps: { actions: PowerSettings; timeline: PowerTimeline } | null = null;
  private store: Store | null = null;
  private drainSim: Drain | null = null;
  private timer: Timer | null = null;
  private low = 0;
  private wouldSleepTold = false;
  /** Set when the device decided to sleep (for status and tests). */
  sleeping: { reason: string; ms: number } | null = null;

  constructor(
    private readonly hal: Hal,
    private readonly log: Log,
  ) {}

  /** Wires the store, the config and the timeline (when the power subsystem is mounted). */
  attach(store: Store, deps: { actions: PowerSettings; timeline: PowerTimeline }): void {
    this.deps = deps;
    this.store = store;
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** What the gauge says, untouched. */
  raw(): BatteryReading {
    return this.hal.battery.read();
  }

  /** The figures the device acts on (calibrated level, health estimate, external power). */
  reading(): BatteryReading {
    return this.readingOf(this.raw(), this.calibration());
  }

  /** A gauge reading through the calibration (and the DRAIN simulation while it runs). */
  private readingOf(raw: BatteryReading, cal: Calibration | null): BatteryReading {
    const r = calibrated(raw, cal);
    return this.drainSim ? drained(r, this.drainSim, this.hal.clock.monoMs()) : r;
  }

  profile(): PowerProfile {
    return profileOf(this.deps?.actions.config('profile'));
  }

  calibration(): Calibration | null {
    const s = this.store;
    if (!s || s.int('calHp', -1) < 0) return null;
    const mv = s.int('calMv', 0);
    const raw = s.int('calRaw', 0);
    return { fullMv: mv > 0 ? mv : null, fullRaw: raw > 0 ? raw : null, health: s.int('calHp', 0), atMs: Number(s.str('calAt', '0')) || 0 };
  }

  /** BATTCAL: on a finished charge, stores what full reads and the health estimate. */
  calibrate(): CalibrateResult {
    if (this.drainSim) return { ok: false, reason: 'drain-on: the DRAIN simulation is running (DRAIN off first)' };
    const raw = this.raw();
    const refusal = calibrationRefusal(raw);
    if (refusal) return { ok: false, reason: refusal };
    const cal = calibrationOf(raw, this.hal.clock.synced() ? this.hal.clock.wallMs() : 0);
    this.store!.setMany([
      ['calMv', cal.fullMv ?? 0],
      ['calRaw', cal.fullRaw ?? 0],
      ['calHp', cal.health],
      ['calAt', String(cal.atMs)],
    ]);
    this.log.info('power', `calibrated on a finished charge: ${cal.fullMv ?? '-'} mV, gauge ${cal.fullRaw ?? '-'}%, health estimate ${cal.health}%`);
    return { ok: true, cal, reading: this.reading() };
  }

  /** BATTRESET: forgets the calibration (the gauge's own figures apply again). */
  resetCalibration(): boolean {
    const had = this.calibration() !== null;
    this.store!.setMany([
      ['calMv', undefined],
      ['calRaw', undefined],
      ['calHp', undefined],
      ['calAt', undefined],
    ]);
    return had;
  }

  sleepMv(): number {
    return this.store?.int('sleepMv', DEFAULT_SLEEP_MV) ?? DEFAULT_SLEEP_MV;
  }

  sleepMvIsDefault(): boolean {
    return this.store?.int('sleepMv', -1) === -1;
  }

  /** SLEEPMV: 0 turns the low-battery sleep off, else SLEEP_MV_MIN-SLEEP_MV_MAX. */
  setSleepMv(mv: number): boolean {
    if (!Number.isInteger(mv) || (mv !== 0 && (mv < SLEEP_MV_MIN || mv > SLEEP_MV_MAX))) return false;
    this.store!.set('sleepMv', mv);
    this.low = 0;
    return true;
  }

  drain(): Drain | null {
    return this.drainSim ? { ...this.drainSim } : null;
  }

  /** DRAIN on [deep]: a simulated discharge from the present level; off restores the gauge. */
  setDrain(on: boolean, deep = false): { ok: true } | { ok: false; reason: string } {
    if (!on) {
      this.drainSim = null;
      this.low = 0;
      this.wouldSleepTold = false;
      return { ok: true };
    }
    const r = this.reading();
    if (!r.present) return { ok: false, reason: 'no-battery: this board has no battery gauge (or monitoring is off)' };
    const from = r.levelPct ?? (r.millivolts !== null ? levelFromMv(r.millivolts) : 100);
    this.drainSim = { since: this.hal.clock.monoMs(), fromPct: from, deep };
    this.low = 0;
    this.wouldSleepTold = false;
    this.poll();
    return { ok: true };
  }

  /** Deep sleep after SLEEP_DELAY_MS (so a reply goes out first); ms 0: until woken from outside. */
  sleepSoon(reason: string, ms: number): void {
    this.sleeping = { reason, ms };
    this.deps?.timeline.row('restart', `going to deep sleep: ${reason}`);
    this.log.warn('power', `deep sleep${ms ? ` for ${Math.round(ms / 60_000)} min` : ' until woken'}: ${reason}`);
    this.hal.clock.setTimeout(() => this.hal.system.deepSleep(ms), SLEEP_DELAY_MS);
  }

  /** Starts the monitor (the first look soon after boot). */
  start(): void {
    this.schedule(FIRST_POLL_MS);
  }

  private schedule(ms: number): void {
    this.timer?.cancel();
    this.timer = this.hal.clock.setTimeout(() => {
      this.poll();
      if (!this.sleeping) this.schedule(this.profile().batteryPollMs);
    }, ms);
  }

  /** One look at the battery: counts low readings and sleeps on the second. */
  poll(): void {
    if (this.sleeping) return;
    const limit = this.sleepMv();
    const r = this.reading();
    const low = limit > 0 && r.present && !r.external && r.millivolts !== null && r.millivolts < limit;
    this.low = low ? this.low + 1 : 0;
    if (this.low < LOW_READINGS) return;
    const why = `the battery reads ${r.millivolts} mV, below SLEEPMV ${limit} mV, on battery`;
    if (this.drainSim && !this.drainSim.deep) {
      if (!this.wouldSleepTold) this.log.warn('power', `would deep-sleep now (DRAIN without deep): ${why}`);
      this.wouldSleepTold = true;
      return;
    }
    this.sleepSoon(why, LOW_BATTERY_WAKE_MS);
  }

  /** For the state snapshot and device.status. */
  summary(): Record<string, unknown> {
    // One gauge read for both figures: on the device it is an I2C transfer.
    const raw = this.raw();
    const cal = this.calibration();
    const r = this.readingOf(raw, cal);
    const p = this.profile();
    return {
      battery: { ...r, rawLevelPct: raw.levelPct, rawHealthPct: raw.healthPct, calibrated: cal !== null, calHealthPct: cal?.health ?? null, drain: this.drainSim ? (this.drainSim.deep ? 'deep' : 'on') : 'off' },
      power: { profile: p.id, profileName: p.name, sleepMv: this.sleepMv() },
    };
  }
}
