// The battery gauge: the reading comes from device.json (battery.set changes
// it, and tells the firmware with a battery.reading event); boards without a
// gauge read as absent on external power.

import type { BatteryReading } from '../../../src/hal/index.ts';
import type { BoardDescriptor } from '../../../boards/index.ts';
import type { BatteryState, DeviceFolder } from './device.ts';
import type { Json, Service, Session } from './service.ts';

const KEYS = ['present', 'levelPct', 'healthPct', 'millivolts', 'external', 'charging'] as const;

export class BatteryGauge implements Service {
  private session: Session | null = null;

  constructor(
    private readonly descriptor: () => BoardDescriptor,
    private readonly device: DeviceFolder,
  ) {}

  reading(): BatteryReading {
    const s = this.device.config.battery;
    if (!this.descriptor().battery || !s.present) {
      return { present: false, levelPct: null, healthPct: null, millivolts: null, external: true, charging: false };
    }
    return { present: true, levelPct: s.levelPct, healthPct: s.healthPct, millivolts: s.millivolts, external: s.external, charging: s.charging };
  }

  set(change: Json): BatteryState {
    const next = { ...this.device.config.battery };
    for (const [k, v] of Object.entries(change)) {
      if (k === 'op' || k === 'id') continue;
      if (!(KEYS as readonly string[]).includes(k)) throw new TypeError(`battery has no field '${k}' (${KEYS.join(', ')})`);
      if (k === 'present' || k === 'external' || k === 'charging') {
        if (typeof v !== 'boolean') throw new TypeError(`${k} must be true or false`);
      } else if (v !== null && (typeof v !== 'number' || !Number.isFinite(v))) throw new TypeError(`${k} must be a number or null`);
      (next as Record<string, unknown>)[k] = v;
    }
    this.device.update((c) => (c.battery = next));
    this.session?.emit('battery.reading', { reading: this.reading() });
    return next;
  }

  start(session: Session): void {
    this.session = session;
  }

  stop(): void {
    this.session = null;
  }

  readonly ops = {
    'battery.read': () => ({ json: { reading: this.reading() } }),
  };
}
