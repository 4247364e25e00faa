// Fault injection (test builds): the named faults a reliability test can
// switch on and off (console FAULT <cap> <on|off>, FAULT?). This module only
// keeps which faults are on; src/faults/hal.ts wraps the HAL services in
// boot() so that every subsystem meets a fault exactly as it would meet the
// real failure, through the HAL, with no special case anywhere else.
//
// Faults live in RAM: a reboot (or power cut) clears every one, so a fault a
// test forgot can never outlive a power cycle of the device.

export type FaultCap = 'sd-write' | 'sd-absent' | 'outbound' | 'heap-low' | 'clock-unsynced' | 'wifi-down';

export interface FaultSpec {
  cap: FaultCap;
  /** Other names accepted by FAULT (e.g. the wording). */
  aliases: readonly string[];
  /** What the device sees while the fault is on (FAULT? and HELP). */
  what: string;
}

/** Free internal heap and largest block reported while heap-low is on: below every floor (the lowest is the update engine's 24 KB / 16 KB). */
export const FAULT_HEAP_FREE = 16 * 1024;
export const FAULT_HEAP_BLOCK = 8 * 1024;

export const FAULTS: readonly FaultSpec[] = [
  { cap: 'sd-write', aliases: ['sdwrite'], what: 'the SD card refuses writes (EIO on open for writing, write, sync, mkdir, rename, remove); reads work' },
  { cap: 'sd-absent', aliases: ['sdabsent', 'sd'], what: 'the SD card is gone: probe reports no card, every other call ENOCARD' },
  { cap: 'outbound', aliases: ['provider', 'net'], what: 'every outbound connection fails (ECONN): provider transport failure, update checks, remote embeddings' },
  { cap: 'heap-low', aliases: ['heap'], what: `free internal heap reads ${FAULT_HEAP_FREE / 1024} KB (largest block ${FAULT_HEAP_BLOCK / 1024} KB): below every heap floor` },
  { cap: 'clock-unsynced', aliases: ['clock'], what: 'the wall clock is unsynced: synced() false and the time reads as the RTC of a fresh boot (1970 plus uptime)' },
  { cap: 'wifi-down', aliases: ['wifi'], what: 'the station link is down (disconnected; joins fail; scans find nothing) and outbound connections fail; the local HTTP listener stays' },
];

/** The fault named by a cap or one of its aliases (any case), or null. */
export function findFault(name: string): FaultSpec | null {
  const n = name.toLowerCase();
  return FAULTS.find((f) => f.cap === n || f.aliases.indexOf(n) >= 0) ?? null;
}

export class Faults {
  private on = new Set<FaultCap>();
  private listeners: Array<(cap: FaultCap, on: boolean) => void> = [];

  /**
   * @param enabled false in release builds: nothing can be switched on, so the
   *   wrapped HAL (which boot() applies only in test builds anyway) stays inert.
   */
  constructor(readonly enabled: boolean) {}

  isOn(cap: FaultCap): boolean {
    return this.on.has(cap);
  }

  /** Switches one fault; listeners hear only real changes. Returns whether it changed. */
  set(cap: FaultCap, on: boolean): boolean {
    if (!this.enabled) throw new Error('fault injection exists only in test builds');
    if (this.on.has(cap) === on) return false;
    if (on) this.on.add(cap);
    else this.on.delete(cap);
    for (const l of this.listeners) l(cap, on);
    return true;
  }

  /** The faults that are on, in table order. */
  active(): FaultCap[] {
    return FAULTS.filter((f) => this.on.has(f.cap)).map((f) => f.cap);
  }

  /** The HAL wrapper and the fault console hear every change (to raise the hardware events a real failure would). */
  onChange(listener: (cap: FaultCap, on: boolean) => void): void {
    this.listeners.push(listener);
  }
}
