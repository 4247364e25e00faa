// The contract between the dispatcher (src/ui/ui.ts) and the screen modules
// (the *-screen.ts files): what a screen may read and ask for, and what it
// hands back. A screen turns what it shows into a key and a frame; the
// dispatcher draws a new frame only when the key changes, so a key changes
// with everything the frame shows.

import type { Context } from '../core/context.ts';
import type { TurnOutcome, TurnRequest } from '../contracts/index.ts';
import type { Layout } from './layout.ts';
import type { Rotation } from './raster.ts';
import type { RendererOptions } from './renderer.ts';
import type { Frame, Target } from './screens.ts';
import type { Theme } from './theme.ts';
import type { ScreenClock } from './time-text.ts';

/** The QR screens (sign-in, Wi-Fi join) go back after this long without a touch. */
export const QR_IDLE_MS = 5 * 60_000;

export type ScreenName = 'status' | 'update' | 'signin' | 'wifi' | 'menu' | 'saver' | 'notice' | 'probe';

/** What the Ui reads from the rest of the device (narrow, for tests). */
export interface UiDeps {
  /** The turn engine: busy while a turn runs; onTurn for owner replies. */
  turns?: { busy: boolean; onTurn(listener: (req: TurnRequest, out: TurnOutcome | null) => void): void };
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

/** The device services the screens read: named, so the subsystem's dependencies can be declared. */
export type ScreenDevice = Pick<Context, 'hal' | 'mode' | 'actions' | 'ota' | 'signin' | 'time'>;

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
  readonly ctx: ScreenDevice;
  readonly deps: UiDeps;
  readonly reads: Reads;
  readonly nav: Navigator;
  layout(): Layout;
  theme(): Theme;
  rotation(): Rotation;
}
