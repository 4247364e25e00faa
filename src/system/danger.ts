// The danger zone: Factory Reset, Erase Storage and Format Card. Each needs
// its own exact typed phrase, answers first and runs on the main loop after
// the answer, then restarts the device so nothing in RAM outlives the data.
// Factory reset keeps only the 'keep' namespace (panel model, mount
// orientation, touch calibration, update slug).

import type { Context } from '../core/context.ts';
import { formRoute } from '../core/form-route.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
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

function mismatch(phrase: string): HttpResponse {
  return errorResponse(400, 'confirmation-mismatch', `Type ${phrase} exactly (capital letters) to confirm. Nothing was changed.`);
}

function eraseNvsExceptKeep(ctx: Context): void {
  const { nvs } = ctx.hal;
  // The HAL erases whole namespaces; everything but 'keep' goes.
  const keep = nvs.keys(KEEP_NS).map((k) => [k, nvs.get(KEEP_NS, k)] as const);
  nvs.erase();
  if (keep.length) nvs.setMany(KEEP_NS, keep);
}

function wipeCard(ctx: Context, root: string): number {
  if (!ctx.hal.sd.probe().present) return 0;
  return removeTree(ctx.hal.sd, root);
}

/** Runs work on the main loop after the answer has gone out, then restarts (whether the work succeeded or not). */
function later(ctx: Context, what: string, work: () => void): void {
  ctx.defer(() => {
    try {
      work();
      ctx.log.warn('danger', `${what} done; restarting`);
    } catch (e) {
      ctx.log.error('danger', `${what} failed: ${String(e)}`);
    }
    ctx.hal.system.reboot(what);
  });
}

/**
 * The factory reset (web danger zone and console FACTRESET): after the caller
 * has answered, erases NVS except 'keep' (and the whole card with eraseCard),
 * then restarts.
 */
export function scheduleFactoryReset(ctx: Context, options: { eraseCard: boolean }): void {
  later(ctx, 'factory reset', () => {
    if (options.eraseCard) wipeCard(ctx, '/');
    eraseNvsExceptKeep(ctx);
    // The Bluetooth stack keeps its bonds apart from our settings: a factory reset forgets them too.
    ctx.hal.ble.forgetBonds();
  });
}

export function installDangerZone(ctx: Context): void {
  // A confirmation the body does not carry (no form, bad JSON) is a mismatch like a wrong one.
  const confirmed = { bodyLimit: 1024, json: true, onUnreadable: 'empty' } as const;
  ctx.router.add(
    formRoute({
      ...confirmed,
      path: '/api/factory-reset',
      apply: (f) => {
        if (f.get('confirm') !== PHRASES.factoryReset) return mismatch(PHRASES.factoryReset);
        const eraseCard = f.get('eraseCard') === '1' || f.get('eraseCard') === 'true';
        scheduleFactoryReset(ctx, { eraseCard });
        return jsonResponse({ scheduled: 'factory-reset', eraseCard, restarting: true }, 202);
      },
    }),
  );

  ctx.router.add(
    formRoute({
      ...confirmed,
      path: '/api/storage/erase',
      apply: (f) => {
        if (f.get('confirm') !== PHRASES.eraseStorage) return mismatch(PHRASES.eraseStorage);
        later(ctx, 'erase storage', () => void wipeCard(ctx, DATA_ROOT));
        return jsonResponse({ scheduled: 'erase-storage', restarting: true }, 202);
      },
    }),
  );

  ctx.router.add(
    formRoute({
      ...confirmed,
      path: '/api/card/format',
      apply: (f) => {
        if (f.get('confirm') !== PHRASES.formatCard) return mismatch(PHRASES.formatCard);
        if (!ctx.card.probe() || ctx.card.get().tier === 'none') return errorResponse(409, 'no-card', 'There is no SD card to format.');
        later(ctx, 'format card', () => void wipeCard(ctx, '/'));
        return jsonResponse({ scheduled: 'format-card', restarting: true }, 202);
      },
    }),
  );
}
