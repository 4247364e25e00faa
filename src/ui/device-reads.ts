// The device readings the screens share, each read at most as often as it
// can change on screen: the idle check looks at them once a second, and a
// battery read is an I2C transfer on the device.

import type { NetView, OtaView, Reads, ScreenDevice, UiDeps } from './screen-kit.ts';
import { screenClock, type ScreenClock } from './time-text.ts';

const BATTERY_EVERY_MS = 10_000;
const OTA_EVERY_MS = 5000;
const NET_EVERY_MS = 1000;

export class DeviceReads implements Reads {
  private battery: { at: number; text: string | null } = { at: -Infinity, text: null };
  private ota: { at: number; state: OtaView | null } = { at: -Infinity, state: null };
  private net: { at: number; view: NetView | null } = { at: -Infinity, view: null };

  constructor(
    private readonly dev: ScreenDevice,
    private readonly network: UiDeps['network'],
  ) {}

  netView(): NetView | null {
    if (!this.network) return null;
    const now = this.dev.hal.clock.monoMs();
    if (now - this.net.at >= NET_EVERY_MS) this.net = { at: now, view: this.network.view() };
    return this.net.view;
  }

  /** The owner asked for a screen that depends on the network: no stale view. */
  forgetNet(): void {
    this.net.at = -Infinity;
  }

  setupUp(): boolean {
    return this.dev.mode === 1 && this.netView()?.setup.state === 'up';
  }

  /** The update state; read afresh every time while an update installs (the progress bar). */
  otaView(): OtaView {
    const now = this.dev.hal.clock.monoMs();
    if (!this.ota.state || this.dev.ota.installing() || now - this.ota.at >= OTA_EVERY_MS) this.ota = { at: now, state: this.dev.ota.state() };
    return this.ota.state!;
  }

  batteryText(): string | null {
    const now = this.dev.hal.clock.monoMs();
    if (now - this.battery.at >= BATTERY_EVERY_MS) {
      const b = this.dev.hal.battery.read();
      this.battery = { at: now, text: b.present && b.levelPct !== null ? `${b.levelPct}%${b.charging ? '+' : ''}` : null };
    }
    return this.battery.text;
  }

  clock(): ScreenClock {
    return screenClock(this.dev.hal.clock, this.dev.time);
  }
}
