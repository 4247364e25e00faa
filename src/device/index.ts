// The device's LED ring subsystem: wires the ring engine (ctx.ring) to the
// settings it draws with (ledBrightness, attnHoldMs, the power profile) and
// to the led and lights actions, and registers LEDSTATE, LEDTEST, RINGANIM.

import type { Context } from '../core/context.ts';
import { profileOf } from '../power/index.ts';
import { installLedConsole } from './console.ts';

export function installRing(ctx: Context): void {
  const num = (key: 'ledBrightness' | 'attnHoldMs'): number | undefined => {
    const v = ctx.actions.config(key);
    return typeof v === 'number' ? v : undefined;
  };
  ctx.ring.attach({
    ledBrightness: () => num('ledBrightness'),
    attnHoldMs: () => num('attnHoldMs'),
    profile: () => profileOf(ctx.actions.config('profile')),
  });
  ctx.actions.setLedSink({ led: (s) => ctx.ring.setBase(s), refresh: (force) => ctx.ring.refresh(force) });
  installLedConsole(ctx);
}
