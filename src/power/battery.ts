// The battery model as pure functions: from the gauge's raw reading and the
// stored calibration to the figures the device acts on (the update gate, the
// status line, the sleep threshold), and the DRAIN simulation's reading.
//
//   level    the gauge's state of charge scaled so that the reading BATTCAL
//            took on a finished charge is 100 %; a gauge that reports only
//            millivolts is read through a single-cell Li-ion resting-voltage
//            curve (LIPO_CURVE), its top moved to the calibrated full voltage
//   health   the gauge's own state of health when it reports one; otherwise
//            the estimate BATTCAL made (healthFromFull); otherwise unknown,
//            which the update gate refuses (need-recalibrate: "charge fully
//            and calibrate")

import type { BatteryReading } from '../hal/index.ts';

/** Resting voltage (mV) against state of charge (%) of a single Li-ion / LiPo cell, high to low. */
export const LIPO_CURVE: ReadonlyArray<readonly [number, number]> = [
  [4200, 100], [4150, 95], [4110, 90], [4080, 85], [4020, 80], [3980, 75], [3950, 70], [3910, 65], [3870, 60],
  [3850, 55], [3840, 50], [3820, 45], [3800, 40], [3790, 35], [3770, 30], [3750, 25], [3730, 20], [3710, 15],
  [3690, 10], [3610, 5], [3270, 0],
];
export const FULL_MV = 4200;

/** The health estimate's scale: a cell resting at HEALTH_FULL_MV after a finished charge is 100 %, at HEALTH_ZERO_MV 0 %. */
export const HEALTH_FULL_MV = 4150;
export const HEALTH_ZERO_MV = 3900;
/** BATTCAL refuses a "full" gauge reading under this (the charge cannot have finished). */
export const CAL_MIN_RAW_PCT = 50;
export const CAL_MIN_MV = 3900;

/** What BATTCAL measured on a finished charge (NVS namespace power). */
export interface Calibration {
  /** Resting millivolts on the finished charge (null: the gauge reports none). */
  fullMv: number | null;
  /** The gauge's own level on the finished charge (null: it reports none). */
  fullRaw: number | null;
  /** The health estimate made then, 0-100. */
  health: number;
  /** Wall-clock ms of the calibration (0: the clock was not synced). */
  atMs: number;
}

const clampPct = (n: number): number => Math.max(0, Math.min(100, Math.round(n)));

/** State of charge for a resting voltage, interpolated on LIPO_CURVE. */
export function levelFromMv(mv: number): number {
  const c = LIPO_CURVE;
  if (mv >= c[0]![0]) return 100;
  for (let i = 1; i < c.length; i++) {
    const [hiMv, hiPct] = c[i - 1]!;
    const [loMv, loPct] = c[i]!;
    if (mv >= loMv) return clampPct(loPct + ((mv - loMv) * (hiPct - loPct)) / (hiMv - loMv));
  }
  return 0;
}

/** The resting voltage of a state of charge (the inverse of levelFromMv; DRAIN uses it). */
export function mvFromLevel(pct: number): number {
  const c = LIPO_CURVE;
  const p = Math.max(0, Math.min(100, pct));
  for (let i = 1; i < c.length; i++) {
    const [hiMv, hiPct] = c[i - 1]!;
    const [loMv, loPct] = c[i]!;
    if (p >= loPct) return Math.round(loMv + ((p - loPct) * (hiMv - loMv)) / (hiPct - loPct));
  }
  return c[c.length - 1]![0];
}

/** BATTCAL's health estimate from what a finished charge reads: the lower of the voltage's and the gauge's verdicts. */
export function healthFromFull(fullMv: number | null, fullRaw: number | null): number {
  const votes: number[] = [];
  if (fullMv !== null) votes.push(clampPct(((fullMv - HEALTH_ZERO_MV) * 100) / (HEALTH_FULL_MV - HEALTH_ZERO_MV)));
  if (fullRaw !== null) votes.push(clampPct(fullRaw));
  return votes.length ? Math.min(...votes) : 0;
}

/** Why a reading cannot be calibrated, or null when it can (a finished charge on external power). */
export function calibrationRefusal(raw: BatteryReading): string | null {
  if (!raw.present) return 'no-battery: this board has no battery gauge (or monitoring is off)';
  if (!raw.external || raw.charging) return 'not-full: connect power and let the charge finish (the charger must report done) before BATTCAL';
  if (raw.levelPct === null && raw.millivolts === null) return 'no-reading: the gauge reports neither a level nor a voltage';
  if (raw.levelPct !== null && raw.levelPct < CAL_MIN_RAW_PCT) return `not-full: the gauge reads ${raw.levelPct}%, which is not a finished charge`;
  if (raw.millivolts !== null && raw.millivolts < CAL_MIN_MV) return `not-full: the cell reads ${raw.millivolts} mV, which is not a finished charge`;
  return null;
}

/** The calibration a finished charge gives. */
export function calibrationOf(raw: BatteryReading, atMs: number): Calibration {
  return { fullMv: raw.millivolts, fullRaw: raw.levelPct, health: healthFromFull(raw.millivolts, raw.levelPct), atMs };
}

/** The figures the device acts on: the raw reading through the calibration. */
export function calibrated(raw: BatteryReading, cal: Calibration | null): BatteryReading {
  if (!raw.present) return { ...raw };
  let level: number | null = null;
  if (raw.levelPct !== null) level = cal?.fullRaw ? clampPct((raw.levelPct * 100) / cal.fullRaw) : clampPct(raw.levelPct);
  else if (raw.millivolts !== null) level = levelFromMv(cal?.fullMv ? (raw.millivolts * FULL_MV) / cal.fullMv : raw.millivolts);
  const health = raw.healthPct ?? cal?.health ?? null;
  return { ...raw, levelPct: level, healthPct: health };
}

/** DRAIN: a simulated discharge from fromPct, one percent per DRAIN_MS_PER_PCT. */
export interface Drain {
  /** monoMs when it started. */
  since: number;
  fromPct: number;
  /** deep: reaching the sleep threshold really sleeps (without it, the device only says it would). */
  deep: boolean;
}

/** One percent of charge per this many ms of (virtual) time while DRAIN runs. */
export const DRAIN_MS_PER_PCT = 6000;

/** The reading while DRAIN runs: unplugged, discharging from where it started, the voltage following the curve. */
export function drained(reading: BatteryReading, drain: Drain, now: number): BatteryReading {
  const pct = Math.max(0, drain.fromPct - Math.floor((now - drain.since) / DRAIN_MS_PER_PCT));
  return { ...reading, present: true, external: false, charging: false, levelPct: pct, millivolts: mvFromLevel(pct) };
}
