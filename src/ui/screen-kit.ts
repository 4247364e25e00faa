// The contract between the dispatcher (src/ui/ui.ts) and the screen modules
// (the *-screen.ts files): what a screen may read and ask for, and what it
// hands back. A screen turns what it shows into a key and a frame; the
// dispatcher draws a new frame only when the key changes, so a key changes
// with everything the frame shows.

import type { ConfigKey, DeviceAction, TurnOutcome, TurnRequest } from '../contracts/index.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { Mode } from '../core/kernel.ts';
import type { Store } from '../core/store.ts';
import type { LedState } from '../device/index.ts';
import type { Hal } from '../hal/index.ts';
import type { LocalFields, TimeZone } from '../util/tz.ts';
import type { Layout } from './layout.ts';
import type { Rotation } from './raster.ts';
import type { RendererOptions } from './renderer.ts';
import type { Frame, Target } from './screens.ts';
import type { Theme } from './theme.ts';
import type { ScreenClock } from './time-text.ts';

/** The QR screens (sign-in, Wi-Fi join) go back after this long without a touch. */
export const QR_IDLE_MS = 5 * 60_000;

/** A screen's name as it is registered in src/ui/screen-list.ts (status, menu, wifi ...). */
export type ScreenName = string;

/** What the Ui reads from the rest of the device (narrow, for tests). */
export interface UiDeps {
  /** The turn engine: busy while a turn runs; onTurn for owner replies; onReply as a streamed reply grows (null: what grew was void). */
  turns?: {
    busy: boolean;
    onTurn(listener: (req: TurnRequest, out: TurnOutcome | null) => void): void;
    onReply?(listener: (req: TurnRequest, text: string | null) => void): void;
  };
  /** The Wi-Fi provisioning (src/wifi/provisioning.ts); absent: no network screens. */
  network?: {
    view(): { provisioned: boolean; station: { state: string; ip: string | null }; setup: { state: 'up' | 'off' } };
    addresses(): Array<{ label: string; base: string }>;
  };
  /** The setup passphrase (src/auth/passphrase.ts): for the Wi-Fi screen only. */
  passphrase?: { reveal(): string };
  /** The panel is round (boards/<type>/board.json display.round). */
  round?: boolean;
  renderer?: RendererOptions;
  /** Push to talk (src/voice): sees each gesture first; true when it took it. */
  voice?: { gesture(kind: 'press' | 'hold' | 'tap' | 'release' | 'cancel', screen: ScreenName): boolean; state(): 'idle' | 'listening' | 'thinking' | 'speaking' };
}

/** The device actions the screen reads and sets (src/device/'s DeviceActions): the config keys it follows, the LED state it mirrors. */
export interface UiActions {
  config(key: ConfigKey): number | string | boolean | undefined;
  apply(action: DeviceAction): unknown;
  ledState(): LedState;
}

/** A check or an install asked for from the menu: refused with a message the screen shows. */
export type UiTicket = { ok: true } | { ok: false; message: string };

/** Firmware updates as the screen shows and starts them (src/ota/'s Updates). */
export interface UiUpdates {
  /** From the start of a download until the restart: the update screen takes over. */
  installing(): boolean;
  state(): { ota: string; otaResult: string | null; otaLatest: string | null; otaPct: number };
  check(): UiTicket;
  apply(options: { source: 'menu' }): UiTicket;
}

/** The sign-in codes (src/auth/): the sign-in screen mints the code its QR carries. */
export interface UiSignIn {
  mint(lifetimeMs: number): { code: string; expiresAtMono: number };
}

/** The owner's one time zone (src/system/'s LocalTime): the clock's text and the menu's zone row. */
export interface UiTime {
  zone(): TimeZone;
  local(ms: number): LocalFields;
  label(): string;
  /** The zones the menu offers. */
  choices(): ReadonlyArray<{ name: string; zone: TimeZone }>;
  set(text: string): { ok: true } | { ok: false; message: string };
}

/** What the ui subsystem needs (src/ui/index.ts): the device services it reads, then the optional parts in UiDeps. */
export interface UiOptions extends UiDeps {
  actions: UiActions;
  updates: UiUpdates;
  signin: UiSignIn;
  time: UiTime;
  sameZone: ScreenDevice['sameZone'];
  /** The NVS namespace a factory reset keeps (src/system/'s danger zone): the panel model, the mount and the touch calibration. */
  keep: Store;
  /** The frame's checksum (RENDER?, RAWFRAME?, GET /api/ui/frame?describe=1). */
  sha256: Sha256Api;
}

/** The device services the screens read, each declared by what the screen calls. */
export interface ScreenDevice {
  hal: Hal;
  mode: Mode;
  actions: UiActions;
  ota: UiUpdates;
  signin: UiSignIn;
  time: UiTime;
  /** Two zones are one (same offsets, names and rules): which of the menu's zones is the owner's. */
  sameZone: (a: TimeZone, b: TimeZone) => boolean;
}

export type NetView = ReturnType<NonNullable<UiDeps['network']>['view']>;
export type OtaView = ReturnType<ScreenDevice['ota']['state']>;

/** The device readings the screens share, cached (src/ui/device-reads.ts). */
export interface Reads {
  /** The Wi-Fi state (null: no network on this build). */
  netView(): NetView | null;
  /** The next netView() reads the network afresh. */
  forgetNet(): void;
  /** The setup network is up (Orchestrator mode only). */
  setupUp(): boolean;
  otaView(): OtaView;
  /** The battery level as shown ('80%', '80%+' while charging), or null without a battery. */
  batteryText(): string | null;
  clock(): ScreenClock;
}

/** A screen's view as a key, and how to draw it (called only when the key changed). */
export interface Built {
  key: string;
  make(): Frame;
}

export type Press = 'tap' | 'hold';

export interface Screen {
  build(): Built;
  /** A tap or a hold on one of this screen's targets. */
  act?(target: Target, how: Press): void;
  /** A finger went down at a canvas point (before it becomes a tap or a hold). */
  press?(p: { x: number; y: number }): void;
  /** The owner chose this screen (again). */
  enter?(): void;
  /** back() left it. */
  leave?(): void;
  /** The frame changes with time alone (the redraw timer keeps running while it shows). */
  animating?(): boolean;
  /** The owner's choice of it has run out: idle too long since the last activity or the choice, or its reason is gone. */
  lapsed?(idleMs: number, sinceChosenMs: number): boolean;
}

/** The owner's choice of screen and the way back from it (src/ui/navigation.ts). */
export interface Navigator {
  chosen(): ScreenName | null;
  choose(name: ScreenName): void;
  back(): void;
  /** The chosen screen is in use: its idle time starts again. */
  renew(): void;
}

/** What every screen gets from the dispatcher. */
export interface ScreenHost {
  readonly dev: ScreenDevice;
  readonly deps: UiDeps;
  readonly reads: Reads;
  readonly nav: Navigator;
  layout(): Layout;
  theme(): Theme;
  rotation(): Rotation;
}
