// The danger zone: Factory Reset, Erase Storage and Format Card. Each needs
// its own exact typed phrase, answers first and runs on the main loop after
// the answer, then restarts the device so nothing in RAM outlives the data.
// Factory reset keeps only the 'keep' namespace (panel model, mount
// orientation, touch calibration, update slug). The routes are in
// src/system/routes.ts, FACTRESET in src/system/console.ts.

import type { Kernel } from '../core/kernel.ts';
import { errorResponse } from '../net/http/errors.ts';
import type { HttpResponse } from '../net/http/types.ts';
import { removeTree } from '../storage/index.ts';

/** The NVS namespace that survives a factory reset (the nvs_keep partition on the device). */
export const KEEP_NS = 'keep';
/** Where every subsystem keeps its bulk data on the card. */
export const DATA_ROOT = '/mem';

export const PHRASES = {
  factoryReset: 'FACTORY RESET',
  eraseStorage: 'ERASE STORAGE',
  formatCard: 'FORMAT CARD',
} as const;

export function mismatch(phrase: string): HttpResponse {
  return errorResponse(400, 'confirmation-mismatch', `Type ${phrase} exactly (capital letters) to confirm. Nothing was changed.`);
}

function eraseNvsExceptKeep(k: Kernel): void {
  const { nvs } = k.hal;
  // The HAL erases whole namespaces; everything but 'keep' goes.
  const keep = nvs.keys(KEEP_NS).map((k) => [k, nvs.get(KEEP_NS, k)] as const);
  nvs.erase();
  if (keep.length) nvs.setMany(KEEP_NS, keep);
}

export function wipeCard(k: Kernel, root: string): number {
  if (!k.hal.sd.probe().present) return 0;
  return removeTree(k.hal.sd, root);
}

/** Runs work on the main loop after the answer has gone out, then restarts (whether the work succeeded or not). */
export function later(k: Kernel, what: string, work: () => void): void {
  k.defer(() => {
    try {
      work();
      k.log.warn('danger', `${what} done; restarting`);
    } catch (e) {
      k.log.error('danger', `${what} failed: ${String(e)}`);
    }
    k.hal.system.reboot(what);
  });
}

/**
 * The factory reset (web danger zone and console FACTRESET): after the caller
 * has answered, erases NVS except 'keep' (and the whole card with eraseCard),
 * then restarts.
 */
export function scheduleFactoryReset(k: Kernel, options: { eraseCard: boolean }): void {
  later(k, 'factory reset', () => {
    if (options.eraseCard) wipeCard(k, '/');
    eraseNvsExceptKeep(k);
    // The Bluetooth stack keeps its bonds apart from our settings: a factory reset forgets them too.
    k.hal.ble.forgetBonds();
  });
}
