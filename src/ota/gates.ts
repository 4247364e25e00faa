// The conditions an install must meet (spec Limits: Battery gate,
// Auto-install, Update heap floor). Pure functions over HAL readings, so the
// rules are tested without a device.

import type { BatteryReading, HeapFigures } from '../hal/index.ts';

/** Update heap floor: free internal RAM and its largest block. */
export const HEAP_FLOOR_FREE = 24 * 1024;
export const HEAP_FLOOR_BLOCK = 16 * 1024;

export const GATE_LEVEL_PCT = 40;
export const AUTO_LEVEL_PCT = 50;
export const GATE_HEALTH_PCT = 60;

export function heapAllows(heap: HeapFigures): boolean {
  return heap.freeInternal >= HEAP_FLOOR_FREE && heap.largestBlock >= HEAP_FLOOR_BLOCK;
}

/**
 * The manual battery gate: external power, or monitoring disabled (no gauge),
 * passes; else level >= 40 % (need-power) and health >= 60 % (need-recalibrate).
 * An unknown level or health refuses: it cannot be shown to pass.
 */
export function batteryRefusal(b: BatteryReading, minLevel = GATE_LEVEL_PCT): 'need-power' | 'need-recalibrate' | null {
  if (!b.present || b.external) return null;
  if (b.levelPct === null || b.levelPct < minLevel) return 'need-power';
  if (b.healthPct === null || b.healthPct < GATE_HEALTH_PCT) return 'need-recalibrate';
  return null;
}

/** Auto-install: battery 50 % or more (or external power), health 60 % or more on battery. */
export function autoBatteryAllows(b: BatteryReading): boolean {
  return batteryRefusal(b, AUTO_LEVEL_PCT) === null;
}
