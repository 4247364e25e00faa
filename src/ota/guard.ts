// The boot guard (spec: Install and rollback). An install arms it (otaPend =
// the new version, otaBoots = -1, otaPrev = the slot it ran from), flips the
// boot slot (otaBoots = 0) and restarts. From then on every start of the new
// image counts one boot attempt; a start that finds three attempts already
// made, none of which lived through the healthy window, returns to the
// previous slot (lastOta 'rollback vX'). A healthy run confirms the image
// (lastOta 'ok vX'). A reset between arming and the flip leaves the old
// image running with otaBoots -1: lastOta 'aborted-preflip'.
//
// Reconciling with the bootloader's own rollback (ESP-IDF: an image that
// boots 'new' runs 'pending-verify', and a pending-verify image found at the
// next boot is aborted): the guard runs first thing at boot and, once it has
// counted the attempt in NVS, marks the image valid in otadata, so the
// bootloader's one-strike rule never fires for an image whose guard ran and
// the three-attempt rule of the spec decides. An image that dies before its
// guard runs (it cannot even start its script) stays pending-verify, and the
// bootloader returns to the other slot at the next boot: the old image's
// guard then reports 'rollback vX' too. docs/decisions.md has the reasoning.

import type { Store } from '../core/store.ts';
import type { Hal } from '../hal/index.ts';
import type { Log } from '../log/log.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const INSTALLING_LINE = /^(?:installing|dry-run) (v\S+)$/;

export const OTA_NS = 'ota';
export const K_PEND = 'otaPend';
export const K_BOOTS = 'otaBoots';
export const K_PREV = 'otaPrev';
export const K_LAST = 'lastOta';

/** Boot attempts of a new image without a healthy run before it is rolled back. */
export const MAX_FAILED_BOOTS = 3;
/** A run this long confirms the new image ... */
export const HEALTHY_MS = 120_000;
/** ... or this long when Wi-Fi never came up during it. */
export const HEALTHY_NO_WIFI_MS = 600_000;

/** otaBoots while armed and not yet flipped. */
const ARMED = -1;

/** What the guard found at boot. */
export type BootVerdict =
  | { kind: 'normal' }
  /** This is a new image inside its healthy window; `boots` attempts so far, this one included. */
  | { kind: 'confirming'; version: string; boots: number }
  /** This is the previous image, back after the new one failed. */
  | { kind: 'rolled-back'; version: string }
  /** A reset came between arming and the flip: the old image runs on. */
  | { kind: 'aborted-preflip'; version: string }
  /** A reset ended an install before it armed (during the download or the checks). */
  | { kind: 'interrupted'; version: string }
  /** This new image used up its attempts: the guard selected the previous slot and restarts. */
  | { kind: 'rolling-back'; version: string };

/** The persisted half of the guard: its three values and lastOta. */
export class GuardStore {
  /** lastOta as last read or written (the status line reads it often). */
  private last: string | null | undefined;

  constructor(readonly store: Store) {}

  pending(): { version: string; boots: number; prev: 0 | 1 } | null {
    const version = this.store.strOrNull(K_PEND);
    if (version === null) return null;
    const prev = this.store.int(K_PREV, 0) === 1 ? 1 : 0;
    return { version, boots: this.store.int(K_BOOTS, ARMED), prev };
  }

  lastOta(): string | null {
    if (this.last === undefined) this.last = this.store.strOrNull(K_LAST);
    return this.last;
  }

  setLastOta(value: string): void {
    this.store.set(K_LAST, value);
    this.last = value;
  }

  /** Stores the guard values before the flip (one atomic NVS batch). */
  arm(version: string, prev: 0 | 1): void {
    this.store.setMany([
      [K_PEND, version],
      [K_BOOTS, ARMED],
      [K_PREV, prev],
    ]);
  }

  /** The boot slot now points at the new image. */
  flipped(): void {
    this.store.set(K_BOOTS, 0);
  }

  /** Forget the guard values; lastOta, when given, in the same batch. */
  clear(lastOta?: string): void {
    this.store.setMany([
      [K_PEND, undefined],
      [K_BOOTS, undefined],
      [K_PREV, undefined],
      ...(lastOta !== undefined ? ([[K_LAST, lastOta]] as const) : []),
    ]);
    if (lastOta !== undefined) this.last = lastOta;
  }

  setBoots(n: number): void {
    this.store.set(K_BOOTS, n);
  }
}

function markValidIfPending(hal: Hal, log: Log): void {
  if (hal.flash.slotState(hal.flash.runningSlot()) !== 'pending-verify') return;
  try {
    hal.flash.markValid();
  } catch (e) {
    log.error('ota', `could not mark the running image valid: ${String(e)}`);
  }
}

/**
 * Runs first thing at boot. May select the previous slot and restart (a
 * rollback); otherwise returns what it found for the update engine.
 */
export function runBootGuard(hal: Hal, store: Store, log: Log): BootVerdict {
  const guard = new GuardStore(store);
  const pend = guard.pending();
  const running = hal.flash.runningSlot();
  if (pend === null) {
    markValidIfPending(hal, log);
    const last = guard.lastOta() ?? '';
    const m = INSTALLING_LINE.exec(last);
    if (m) {
      // The install never armed: the old image is intact; the download was cut.
      guard.setLastOta(`failed ${m[1]}`);
      log.warn('ota', `the install of ${m[1]} was interrupted by a reset (${hal.system.resetReason()}); running ${hal.build.version}`);
      return { kind: 'interrupted', version: m[1]! };
    }
    return { kind: 'normal' };
  }
  if (running === pend.prev) {
    if (pend.boots < 0) {
      guard.clear('aborted-preflip');
      markValidIfPending(hal, log);
      log.warn('ota', `the install of ${pend.version} stopped between arming and the flip; running ${hal.build.version}`);
      return { kind: 'aborted-preflip', version: pend.version };
    }
    guard.clear(`rollback ${pend.version}`);
    markValidIfPending(hal, log);
    log.warn('ota', `${pend.version} failed to boot: rolled back to ${hal.build.version}`);
    return { kind: 'rolled-back', version: pend.version };
  }
  const boots = Math.max(0, pend.boots);
  if (boots >= MAX_FAILED_BOOTS) {
    log.error('ota', `${pend.version}: ${boots} boot attempts without a healthy run: returning to slot ${pend.prev}`);
    guard.setLastOta(`rollback ${pend.version}`);
    try {
      hal.flash.setBootSlot(pend.prev);
    } catch (e) {
      // Nothing to return to: keep this image rather than loop forever.
      log.error('ota', `rollback impossible (${String(e)}): keeping ${pend.version}`);
      guard.clear(`rollback-failed ${pend.version}`);
      markValidIfPending(hal, log);
      return { kind: 'normal' };
    }
    hal.system.reboot('ota-rollback');
    return { kind: 'rolling-back', version: pend.version };
  }
  guard.setBoots(boots + 1);
  markValidIfPending(hal, log);
  log.info('ota', `${pend.version}: boot attempt ${boots + 1} of ${MAX_FAILED_BOOTS}, confirming`);
  return { kind: 'confirming', version: pend.version, boots: boots + 1 };
}
