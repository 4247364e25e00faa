// The settings menu's rows, in the order they show, and what a tap or a hold
// on each does: a tap steps a setting forward, a hold back. A value the
// owner sets here also clears the assistant's override of it (brightOvr,
// sleepOvr): the owner's touch wins.

import type { Notice } from './notice-screen.ts';
import type { Rotation } from './raster.ts';
import type { ScreenHost } from './screen-kit.ts';
import type { MenuRow } from './screens.ts';
import { MAX_SAVER_MIN, postureName, type UiSettings } from './settings.ts';
import { THEME_NAMES } from './theme.ts';

const BRIGHT_STEPS = [64, 128, 191, 255];
const SAVER_STEPS = [0, 1, 5, 15, 60];
/** Refusals stay up long enough to read, then the menu comes back. */
const REFUSAL_HOLD_MS = 8000;

export interface MenuItem extends MenuRow {
  tap(): void;
  hold?(): void;
}

/** What the rows read and change beyond what every screen gets. */
export interface MenuNeeds {
  readonly settings: UiSettings;
  brightness(): number;
  brightnessSource(): string;
  saverMinutes(): { min: number; source: 'sleepOvr' | 'setting' };
  setPosture(r: Rotation): void;
  readonly notices: { show(n: Notice): void };
  readonly signin: { open(): boolean };
  readonly wifi: { open(): boolean; available(): boolean };
}

type Dir = 1 | -1;
type Row = (h: ScreenHost, m: MenuNeeds) => MenuItem | null;

/** The entry `dir` steps from `at`, wrapping at both ends. */
function cycle<T>(list: readonly T[], at: number, dir: Dir): T {
  return list[(at + dir + list.length) % list.length]!;
}

/** The step `dir` away from the first one at or above `value` (a value above them all counts as the last). */
function stepFrom(list: readonly number[], value: number, dir: Dir): number {
  const i = list.findIndex((s) => s >= value);
  return cycle(list, i < 0 ? list.length - 1 : i, dir);
}

const close: Row = (h) => ({ id: 'close', label: 'Close', value: null, tap: () => h.nav.back() });

const brightness: Row = (h, m) => {
  const level = m.brightness();
  const over = m.brightnessSource() === 'brightOvr';
  const step = (dir: Dir): void => {
    m.settings.setBrightness(stepFrom(BRIGHT_STEPS, m.settings.brightness(), dir));
    if (over) h.dev.actions.apply({ kind: 'config', values: { brightOvr: -1 } });
  };
  return { id: 'bright', label: 'Brightness', short: 'Light', value: `${Math.round((level * 100) / 255)}%${over ? '*' : ''}`, tap: () => step(1), hold: () => step(-1) };
};

const theme: Row = (h) => {
  const name = h.theme().name;
  const step = (dir: Dir): void => void h.dev.actions.apply({ kind: 'config', values: { theme: cycle(THEME_NAMES, THEME_NAMES.indexOf(name), dir) } });
  return { id: 'theme', label: 'Theme', value: name, tap: () => step(1), hold: () => step(-1) };
};

const saver: Row = (h, m) => {
  const s = m.saverMinutes();
  const step = (dir: Dir): void => {
    m.settings.setSaverMin(Math.min(MAX_SAVER_MIN, stepFrom(SAVER_STEPS, s.min, dir)));
    if (s.source === 'sleepOvr') h.dev.actions.apply({ kind: 'config', values: { sleepOvr: -1 } });
  };
  const value = `${s.min ? `${s.min} min` : 'off'}${s.source === 'sleepOvr' ? '*' : ''}`;
  return { id: 'saver', label: 'Screen saver', short: 'Saver', value, tap: () => step(1), hold: () => step(-1) };
};

const posture: Row = (h, m) => {
  const rot = h.rotation();
  const step = (dir: Dir): void => m.setPosture(((rot + dir * 90 + 360) % 360) as Rotation);
  return { id: 'posture', label: 'Orientation', short: 'Turn', value: postureName(rot), tap: () => step(1), hold: () => step(-1) };
};

/** The owner's one time zone (the device's, src/system/'s LocalTime): common zones east on a tap, west on a hold, and the custom one set on the web. */
const zone: Row = (h, m) => {
  const { time, sameZone } = h.dev;
  const zones = time.choices();
  const current = zones.findIndex((z) => sameZone(z.zone, time.zone()));
  const step = (dir: Dir): void => {
    const at = current < 0 ? zones.findIndex((z) => z.zone.std.offset === 0) : current;
    const r = time.set(cycle(zones, at, dir).zone.text);
    if (!r.ok) m.notices.show({ title: 'Time zone', body: r.message, source: 'Settings', holdMs: REFUSAL_HOLD_MS });
  };
  return { id: 'clock', label: 'Time zone', short: 'Zone', value: current < 0 ? time.label() : zones[current]!.name, tap: () => step(1), hold: () => step(-1) };
};

const signin: Row = (h, m) => (h.dev.mode === 1 && h.deps.network ? { id: 'signin', label: 'Sign in (QR)', short: 'Sign in', value: null, tap: () => void m.signin.open() } : null);

const wifi: Row = (_h, m) => (m.wifi.available() ? { id: 'wifi', label: 'Wi-Fi setup (QR)', short: 'Wi-Fi QR', value: null, tap: () => void m.wifi.open() } : null);

/** Updates: a tap checks, or installs the version a check found. */
const update: Row = (h, m) => {
  const { ota } = h.dev;
  if (h.dev.mode !== 1) return null;
  const s = ota.state();
  const value = s.ota === 'checking' ? 'checking' : s.otaResult === 'new-version' && s.otaLatest ? `install ${s.otaLatest}` : s.otaResult === 'up-to-date' ? 'up to date' : 'check';
  const tap = (): void => {
    const ticket = s.otaResult === 'new-version' ? ota.apply({ source: 'menu' }) : ota.check();
    if (!ticket.ok) m.notices.show({ title: 'Update', body: ticket.message, source: 'Updates', holdMs: REFUSAL_HOLD_MS });
  };
  return { id: 'update', label: 'Updates', short: 'Update', value, tap };
};

const about: Row = (h, m) => ({ id: 'about', label: 'About', value: h.dev.hal.build.version, tap: () => m.notices.show({ title: 'About', body: aboutText(h), source: 'Settings' }) });

function aboutText(h: ScreenHost): string {
  const { hal } = h.dev;
  const v = h.reads.netView();
  const ip = v?.station.state === 'connected' ? v.station.ip : null;
  return [
    `Firmware ${hal.build.version} (${hal.build.buildId})`,
    `Board ${hal.board.type}, ${hal.display.width}x${hal.display.height}`,
    `Mode ${h.dev.mode === 1 ? 'Orchestrator' : 'Notifier'}`,
    ip ? `Address http://${ip}/` : 'No network address',
  ].join('\n');
}

const ROWS: Row[] = [close, brightness, theme, saver, posture, zone, signin, wifi, update, about];

/** The rows as they show now, Close first. */
export function menuItems(h: ScreenHost, m: MenuNeeds): MenuItem[] {
  const items: MenuItem[] = [];
  for (const row of ROWS) {
    const item = row(h, m);
    if (item) items.push(item);
  }
  return items;
}
