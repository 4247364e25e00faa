// The device subsystem's face: the device actions (actions.ts: config, led,
// lights, tts, orch_model, reboot, applied for device.control and the turn)
// and the LED ring's engine (ring-engine.ts), both made in its mount and
// provided as the parts actions and ring. Mounting wires the ring engine to
// the settings it draws with (ledBrightness, attnHoldMs, the power profile)
// and to the led and lights actions, and adds LEDSTATE, LEDTEST, RINGANIM.

import type { Later, Subsystem } from '../core/subsystem.ts';
import { profileOf } from '../contracts/index.ts';
import { DeviceActions } from './actions.ts';
import { ledCommands } from './console.ts';
import { RingEngine } from './ring-engine.ts';
import type { ApplyOptions, ApplyResult } from './actions.ts';

export { DeviceActions } from './actions.ts';

export { DEFAULT_ATTN_HOLD_MS } from './ring-engine.ts';
export type { ApplyOptions, ApplyResult } from './actions.ts';
export { actingRole, actionRefusal } from './action-roles.ts';
export type { AnimId } from './ring-anim.ts';
export { DEFAULT_LED_BRIGHTNESS, type LedState } from './ring.ts';

/** The device makes the device actions and the ring engine over the HAL; it needs only, once it mounts, the speaker for the tts action. */
export interface DeviceOptions {
  /** The sound (src/audio/, mounted later): tts actions are spoken through it from then on. */
  audio?: Later<{ speakAction(text: string, options: ApplyOptions): ApplyResult }>;
}

export interface DeviceFace {
  actions: DeviceActions;
  ring: RingEngine;
}

export const device: Subsystem<DeviceOptions, DeviceFace> = {
  name: 'device',
  needs: [],
  later: ['audio'],
  provides: { actions: (f) => f.actions, ring: (f) => f.ring },
  start(k, o) {
    const actions = new DeviceActions(k.hal, k.store('cfg'), k.store('orch'), k.log);
    const ring = new RingEngine(k.hal.ring, k.clock);
    const num = (key: 'ledBrightness' | 'attnHoldMs'): number | undefined => {
      const v = actions.config(key);
      return typeof v === 'number' ? v : undefined;
    };
    ring.attach({
      ledBrightness: () => num('ledBrightness'),
      attnHoldMs: () => num('attnHoldMs'),
      profile: () => profileOf(actions.config('profile')),
    });
    actions.setLedSink({ led: (s) => ring.setBase(s), refresh: (force) => ring.refresh(force) });
    o.audio?.when((a) => actions.setSpeech((text, options) => a.speakAction(text, options)));
    return { provides: { actions, ring }, commands: ledCommands(k.hal, actions, ring) };
  },
};
