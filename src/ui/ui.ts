// The device screen: which screen shows, what it shows, touch and the menu,
// brightness and the screen saver. A tick gathers the current screen's view
// from the device (cheap reads, slow ones cached), rebuilds its display list
// only when the view changed, and lets the renderer draw what differs in
// short chunks. Ticks come from an idle check once a second (poll(), called
// by boot()'s watchdog tick), from events the screen shows, from touches,
// and from a redraw timer at TFTHZ while a finger, an animation or an update
// needs it (schedule()).
//
// Screens: status (time, assistant state, last owner reply, network,
// battery, the LED indicator on boards without a ring), update (install
// progress; takes over while an update installs), signin (the ?c=<code>
// link as a QR, the code refreshed before it expires), wifi (the setup
// network's join QR and passphrase, shown only here; the first screen of an
// unprovisioned device), menu (settings), saver (a dim drifting clock after
// the idle delay), notice (a message from another subsystem), probe (the
// PANELPROBE test card).
//
// API for other subsystems (installUi returns the Ui; main.ts hands it to the
// installs that need it, e.g. the Notifier's BLE link):
//   showNotice({title, body, source?, holdMs?})  a frame-driven screen update:
//       shows the message until tapped, replaced, cleared or holdMs passes;
//       wakes the screen. The Notifier's "show this" frames map onto it.
//   clearNotice()                      back to the screen below.
//   hasNotice()                        a notice is up (shown, or about to be drawn).
//   setPhones(n)                       how many phones the Notifier link has now
//       (the status screen says whether one is connected).
//   showWifiJoin()                     the Wi-Fi join QR (setup network name and
//       passphrase) until tapped; refused (false) while no setup network is up.
//   showSignIn()                       the sign-in QR; refused in Notifier mode.
//   wake()                             counts as activity (ends the saver).
//   screen()                           the screen showing now.

import type { Context } from '../core/context.ts';
import type { Timer, TouchEvent } from '../hal/index.ts';
import type { TurnOutcome, TurnRequest } from '../turn/engine.ts';
import { SETUP_SSID } from '../auth/passphrase.ts';
import { SCAN_LIFETIME_MS } from '../auth/signin.ts';
import { capBytes } from '../util/cap.ts';
import { layoutFor, type Layout } from './layout.ts';
import { encodeQr, wifiJoinString, type QrCode } from './qr.ts';
import { canvasToDisplay, displayPointToCanvas, type Rotation } from './raster.ts';
import { Renderer, type RendererOptions } from './renderer.ts';
import {
  menuCapacity,
  menuScreen,
  noticeScreen,
  probeScreen,
  qrScreen,
  saverScreen,
  statusScreen,
  updateScreen,
  type Frame,
  type Indicator,
  type MenuRow,
  type QrView,
  type StatusView,
  type Target,
  type Tone,
} from './screens.ts';
import { MAX_SAVER_MIN, parsePosture, postureName, UiSettings, UI_NS } from './settings.ts';
import { rgb565, THEME_NAMES, themeFor, type Theme } from './theme.ts';
import { clockText } from './time-text.ts';
import { TouchInput, type Gesture, type TouchSource } from './touch.ts';
import { KEEP_NS } from '../system/danger.ts';
import { sameZone } from '../system/local-time.ts';
import { stringify } from '../util/json.ts';

export type ScreenName = 'status' | 'update' | 'signin' | 'wifi' | 'menu' | 'saver' | 'notice' | 'probe';

/** Sign-in codes on screen are replaced this long before they expire. */
export const SIGNIN_REFRESH_MS = 20_000;
export const MENU_IDLE_MS = 30_000;
export const QR_IDLE_MS = 5 * 60_000;
/** After a touch or an event the screen redraws at TFTHZ for this long. */
const ACTIVE_MS = 2000;
/** Between drawing chunks while a turn runs. */
const PUMP_BUSY_MS = 40;
const BATTERY_EVERY_MS = 10_000;
const OTA_EVERY_MS = 5000;
const NET_EVERY_MS = 1000;
const REPLY_CAP_BYTES = 600;
const BRIGHT_STEPS = [64, 128, 191, 255];
const SAVER_STEPS = [0, 1, 5, 15, 60];

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
}

export interface Notice {
  title: string;
  body: string;
  source?: string;
  holdMs?: number;
}

interface MenuItem extends MenuRow {
  tap(): void;
  hold?(): void;
}

export interface MenuState {
  open: boolean;
  page: number;
  pages: number;
  pressed: string | null;
  rows: Array<MenuRow & { display: { x: number; y: number; w: number; h: number } }>;
}

function scaleRgb(r: number, g: number, b: number, level: number): number {
  return rgb565(Math.round((r * level) / 255), Math.round((g * level) / 255), Math.round((b * level) / 255));
}

function hueRgb(h: number): [number, number, number] {
  const x = (h - Math.floor(h)) * 6;
  const f = x - Math.floor(x);
  const up = Math.round(255 * f);
  const down = 255 - up;
  const table: Array<[number, number, number]> = [
    [255, up, 0],
    [down, 255, 0],
    [0, 255, up],
    [0, down, 255],
    [up, 0, 255],
    [255, 0, down],
  ];
  return table[Math.floor(x) % 6]!;
}

export class Ui {
  readonly renderer: Renderer;
  readonly touch: TouchInput;
  readonly settings: UiSettings;
  private layout: Layout;
  private frameNow: Frame | null = null;
  private viewKey = '';
  private screenNow: ScreenName = 'status';
  private chosen: ScreenName | null = null;
  private returnTo: ScreenName | null = null;
  private chosenAt = 0;
  private wifiDismissed = false;
  private notice: (Notice & { until: number | null }) | null = null;
  private probe = false;
  private probeTouch: { x: number; y: number } | null = null;
  private menuPage = 0;
  private pressed: Target | null = null;
  private swallow = false;
  private lastActivity = 0;
  private saverForced = false;
  private reply: { text: string; atWall: number } | null = null;
  private lastError: string | null = null;
  /** Phones on the Notifier link now (Notifier mode). */
  private phones = 0;
  private signin: { code: string; url: string; expiresAt: number; qr: QrCode } | null = null;
  private wifiQr: { text: string; qr: QrCode; serial: number } | null = null;
  private qrSerial = 0;
  private battery: { at: number; text: string | null } = { at: -Infinity, text: null };
  private ota: { at: number; state: ReturnType<Context['ota']['state']> | null } = { at: -Infinity, state: null };
  private net: { at: number; view: ReturnType<NonNullable<UiDeps['network']>['view']> | null } = { at: -Infinity, view: null };
  private cfgPosture: string | undefined;
  private brightnessNow = -1;
  /** The redraw timer (TFTHZ), running only while the screen is active. */
  private fast: Timer | null = null;
  private pumping: Timer | null = null;
  private soonTimer: Timer | null = null;
  private started = false;
  /** The last touch (the redraw timer runs for ACTIVE_MS after it). */
  private lastTouch = -Infinity;
  private hzNow = 0;
  /** What the screen's inputs looked like at the last idle poll. */
  private polled = '';
  /** Bumped by events the views show (a reply, a notice, ...). */
  private version = 0;
  private failures = 0;
  private ticks = 0;
  private lastBuildMs = 0;

  constructor(
    private readonly ctx: Context,
    private readonly deps: UiDeps = {},
  ) {
    const { hal } = ctx;
    this.settings = new UiSettings(ctx.store(UI_NS), ctx.store(KEEP_NS));
    this.renderer = new Renderer(hal.display, hal.clock, deps.renderer);
    const cfg = ctx.actions.config('posture');
    this.cfgPosture = typeof cfg === 'string' ? cfg : undefined;
    this.renderer.setRotation(this.settings.posture());
    const c = this.renderer.canvas();
    this.layout = layoutFor(c.width, c.height, deps.round === true);
    this.touch = new TouchInput(hal.clock, hal.display.width, hal.display.height, (g) => this.gesture(g));
    this.touch.calibration = this.settings.calibration();
    this.lastActivity = hal.clock.monoMs();
    deps.turns?.onTurn((req, out) => this.turnDone(req, out));
  }

  /**
   * Starts the screen: listens to the touch panel and draws the first frame.
   * From then on the owner of the main loop calls poll() about once a second
   * (boot() does it from its once-a-second watchdog tick, so an idle device
   * wakes once a second for both), and the redraw timer runs at TFTHZ only
   * while the screen is active (drawing, animating, touched, just used, or
   * showing update progress).
   */
  start(): void {
    this.ctx.hal.touch.onTouch = (e) => this.handleTouch(e, 'panel');
    this.started = true;
    this.guard(() => this.tick());
    this.schedule();
  }

  stop(): void {
    this.started = false;
    this.fast?.cancel();
    this.fast = null;
    this.pumping?.cancel();
    this.pumping = null;
    this.soonTimer?.cancel();
    this.soonTimer = null;
  }

  /** The idle check (about once a second): a full tick when the inputs changed or drawing is pending. */
  poll(): void {
    if (!this.started) return;
    this.guard(() => {
      const key = this.fingerprint();
      if (key !== this.polled || this.renderer.busy()) {
        this.polled = key;
        this.tick();
      }
      this.schedule();
    });
  }

  /** The screen must never take the main loop down: a failure is logged (the first few) and the next tick tries again. */
  private guard(work: () => void): void {
    try {
      work();
    } catch (e) {
      if (this.failures++ < 5) this.ctx.log.error('ui', `screen update failed: ${String(e)}`);
    }
  }

  /** Everything a screen shows, cheaply read (no view is built). */
  private fingerprint(): string {
    const { hal } = this.ctx;
    const a = this.ctx.actions;
    const screen = this.pickScreen();
    const clock = hal.clock;
    const minute = Math.floor((clock.synced() ? clock.wallMs() : clock.monoMs()) / 60_000);
    const second = screen === 'signin' ? Math.floor(clock.monoMs() / 1000) : 0;
    const led = a.ledState();
    const ota = this.otaView();
    const net = this.netView();
    return [
      screen, minute, second, this.version, this.deps.turns?.busy, this.ctx.ota.installing(), ota.ota, ota.otaPct, ota.otaResult, ota.otaLatest,
      led.mode, led.color.r, led.color.g, led.color.b, led.brightness, a.config('theme'), a.config('brightOvr'), a.config('sleepOvr'),
      a.config('posture'), a.config('devName'), a.config('ledBrightness'), net?.station.state, net?.station.ip, net?.setup.state,
      net?.provisioned, this.batteryText(), this.ctx.time.zone().text, this.settings.hz(),
    ].join('|');
  }

  /**
   * The timers: pending pixels are drawn by a pump of short chunks that
   * yields to the loop between them (a request never waits long behind a
   * frame); the redraw timer runs at TFTHZ only while a finger is on the
   * screen or was lately, the LED indicator animates, or an update installs.
   */
  private schedule(): void {
    const now = this.ctx.hal.clock.monoMs();
    if (this.renderer.busy() && !this.pumping) {
      this.pumping = this.ctx.hal.clock.setTimeout(() => this.pump(), 0);
    }
    const active = this.touch.isDown() || this.animating() || this.screenNow === 'update' || now - this.lastTouch < ACTIVE_MS;
    const hz = Math.max(1, Math.min(30, this.settings.hz()));
    if (active && this.fast && hz === this.hzNow) return;
    this.fast?.cancel();
    this.fast = null;
    if (!active) return;
    this.hzNow = hz;
    this.fast = this.ctx.hal.clock.setInterval(
      () =>
        this.guard(() => {
          this.tick();
          this.schedule();
        }),
      Math.round(1000 / hz),
    );
  }

  private pump(): void {
    this.pumping = null;
    this.guard(() => this.renderer.tick());
    if (!this.renderer.busy()) return;
    // While a turn runs the screen steps aside: a chunk every PUMP_BUSY_MS rather than back to back.
    const wait = this.renderer.backingOff() ? 50 : this.deps.turns?.busy ? PUMP_BUSY_MS : 0;
    this.pumping = this.ctx.hal.clock.setTimeout(() => this.pump(), wait);
  }

  /** A full tick on the next turn of the loop (after the work at hand): for events the screen shows. */
  private soon(): void {
    if (!this.started || this.soonTimer) return;
    this.soonTimer = this.ctx.hal.clock.setTimeout(() => {
      this.soonTimer = null;
      this.guard(() => this.tick());
      this.schedule();
    }, 0);
  }

  /** The LED indicator is moving (boards without a ring, on the status screen). */
  private animating(): boolean {
    if (this.screenNow !== 'status' || this.ctx.hal.ring.count > 0) return false;
    const mode = this.ctx.actions.ledState().mode;
    return mode === 'pulse' || mode === 'flash' || mode === 'rainbow' || mode === 'spinner';
  }

  // --- the API for other subsystems ------------------------------------------

  showNotice(n: Notice): void {
    const now = this.ctx.hal.clock.monoMs();
    this.notice = { ...n, until: n.holdMs && n.holdMs > 0 ? now + n.holdMs : null };
    this.choose('notice');
  }

  clearNotice(): void {
    this.notice = null;
    if (this.chosen !== 'notice') return;
    this.back();
    // Shown at once, as a notice is (not at the next idle check).
    this.soon();
  }

  hasNotice(): boolean {
    return this.notice !== null;
  }

  setPhones(n: number): void {
    if (n === this.phones) return;
    this.phones = n;
    this.version++;
    this.soon();
  }

  showWifiJoin(): boolean {
    this.net.at = -Infinity;
    if (!this.setupUp() || !this.deps.passphrase) return false;
    this.choose('wifi');
    return true;
  }

  showSignIn(): boolean {
    if (this.ctx.mode !== 1 || !this.deps.network) return false;
    this.signin = null;
    this.choose('signin');
    return true;
  }

  wake(): void {
    this.lastActivity = this.ctx.hal.clock.monoMs();
    this.saverForced = false;
    this.version++;
    this.soon();
  }

  /** SAVER now: the saver until the next touch or activity. */
  startSaver(): void {
    this.saverForced = true;
    this.chosen = null;
    this.returnTo = null;
  }

  /** Milliseconds since the last touch or activity. */
  idleMs(): number {
    return this.ctx.hal.clock.monoMs() - this.lastActivity;
  }

  screen(): ScreenName {
    return this.screenNow;
  }

  // --- console and route helpers -----------------------------------------------

  frame(): Frame | null {
    return this.frameNow;
  }

  layoutNow(): Layout {
    return this.layout;
  }

  setProbe(on: boolean): void {
    this.probe = on;
    this.probeTouch = null;
    this.wake();
  }

  probing(): boolean {
    return this.probe;
  }

  /** Applies a new mount orientation (keep and the posture config key). */
  setPosture(r: Rotation): void {
    this.settings.setPosture(r);
    const name = postureName(r);
    this.ctx.actions.apply({ kind: 'config', values: { posture: name } });
    this.cfgPosture = name;
    this.applyPosture(r);
  }

  setCalibration(c: ReturnType<UiSettings['calibration']>): void {
    this.settings.setCalibration(c);
    this.touch.calibration = c;
  }

  /** TFTHZ: the redraw rate. */
  setHz(hz: number): void {
    this.settings.setHz(hz);
    this.schedule();
  }

  /** A touch from the panel or the console (TAP): display coordinates. */
  handleTouch(e: TouchEvent, source: TouchSource): void {
    this.lastTouch = this.ctx.hal.clock.monoMs();
    this.guard(() => this.touch.handle(e, source));
    // The answer to a touch (a highlight, the next screen) is drawn at once.
    this.guard(() => this.tick());
    if (this.started) this.schedule();
  }

  /** Rebuilds (if needed) and draws everything now: console commands and tests. */
  flush(): boolean {
    this.followSettings();
    this.update();
    this.applyBrightness();
    return this.renderer.flush();
  }

  ticksRun(): number {
    return this.ticks;
  }

  lastBuild(): number {
    return this.lastBuildMs;
  }

  menuState(): MenuState {
    const items = this.menuItems();
    const { rows, page, pages } = this.menuPageRows(items);
    const frame = this.screenNow === 'menu' ? this.frameNow : menuScreen(this.layout, this.theme(), { title: 'Settings', rows, pressed: null, footer: '' });
    const targets = frame?.targets ?? [];
    const { width, height } = this.ctx.hal.display;
    return {
      open: this.screenNow === 'menu',
      page,
      pages,
      pressed: this.pressed?.id ?? null,
      rows: rows.map((r) => {
        const t = targets.find((x) => x.id === r.id) ?? { x: 0, y: 0, w: 0, h: 0 };
        return { ...r, display: canvasToDisplay(t, width, height, this.renderer.rotation) };
      }),
    };
  }

  // --- the tick --------------------------------------------------------------

  /** One redraw tick: follow the settings, pick the screen, rebuild if its view changed, draw a bounded amount. */
  tick(): void {
    this.ticks++;
    this.followSettings();
    this.update();
    this.applyBrightness();
    this.renderer.tick();
  }

  private followSettings(): void {
    // A posture set by a device action (config) is the mount: keep it across a factory reset.
    const cfg = this.ctx.actions.config('posture');
    const name = typeof cfg === 'string' ? cfg : undefined;
    if (name !== this.cfgPosture) {
      this.cfgPosture = name;
      const r = parsePosture(name);
      if (r !== null) {
        this.settings.setPosture(r);
        this.applyPosture(r);
      }
    }
  }

  private applyBrightness(): void {
    const level = this.brightness();
    if (level !== this.brightnessNow) {
      this.brightnessNow = level;
      this.ctx.hal.display.setBrightness(level);
    }
  }

  private applyPosture(r: Rotation): void {
    if (r === this.renderer.rotation) return;
    this.renderer.setRotation(r);
    const c = this.renderer.canvas();
    this.layout = layoutFor(c.width, c.height, this.deps.round === true);
    this.viewKey = '';
    this.pressed = null;
  }

  /** The backlight level now: brightOvr, else the menu's setting; the saver dims it. */
  brightness(): number {
    const over = this.ctx.actions.config('brightOvr');
    const base = typeof over === 'number' && over >= 0 ? over : this.settings.brightness();
    return this.screenNow === 'saver' ? Math.min(base, Math.max(4, Math.round(base / 6))) : base;
  }

  brightnessSource(): string {
    const over = this.ctx.actions.config('brightOvr');
    return typeof over === 'number' && over >= 0 ? 'brightOvr' : 'setting';
  }

  /** Minutes of idle before the saver (0 = never): sleepOvr while set, else SAVER. */
  saverMinutes(): { min: number; source: 'sleepOvr' | 'setting' } {
    const over = this.ctx.actions.config('sleepOvr');
    if (typeof over === 'number' && over >= 0) return { min: over, source: 'sleepOvr' };
    return { min: this.settings.saverMin(), source: 'setting' };
  }

  theme(): Theme {
    return themeFor(this.ctx.actions.config('theme')).theme;
  }

  private update(): void {
    const name = this.pickScreen();
    if (name !== this.screenNow) {
      this.screenNow = name;
      this.viewKey = '';
      if (name !== 'menu') this.pressed = null;
    }
    const built = this.build(name);
    if (built.key === this.viewKey && this.frameNow) return;
    const t0 = this.ctx.hal.clock.monoMs();
    const frame = built.make();
    this.lastBuildMs = this.ctx.hal.clock.monoMs() - t0;
    this.viewKey = built.key;
    this.frameNow = frame;
    this.renderer.show(frame.list);
  }

  private pickScreen(): ScreenName {
    const now = this.ctx.hal.clock.monoMs();
    if (this.probe) return 'probe';
    if (this.ctx.ota.installing()) return 'update';
    if (this.notice?.until !== null && this.notice?.until !== undefined && now >= this.notice.until) {
      this.notice = null;
      if (this.chosen === 'notice') this.back();
    }
    if (this.chosen === 'menu' && now - this.chosenAt > MENU_IDLE_MS && now - this.lastActivity > MENU_IDLE_MS) this.back();
    if ((this.chosen === 'signin' || this.chosen === 'wifi') && now - this.lastActivity > QR_IDLE_MS) this.back();
    if (this.chosen === 'wifi' && !this.setupUp()) this.back();
    if (this.chosen === 'signin' && this.ctx.mode !== 1) this.back();
    const saver = this.saverMinutes().min;
    const idle = now - this.lastActivity;
    const base: ScreenName = this.chosen ?? (this.firstRun() ? 'wifi' : 'status');
    if ((this.saverForced || (saver > 0 && idle >= saver * 60_000)) && (base === 'status' || base === 'menu') && !this.touch.isDown()) {
      if (this.chosen === 'menu') this.back();
      return 'saver';
    }
    return base;
  }

  private firstRun(): boolean {
    if (this.wifiDismissed || this.ctx.mode !== 1 || !this.deps.passphrase) return false;
    const v = this.netView();
    return v !== null && !v.provisioned && v.setup.state === 'up';
  }

  private setupUp(): boolean {
    return this.ctx.mode === 1 && this.netView()?.setup.state === 'up';
  }

  private netView(): ReturnType<NonNullable<UiDeps['network']>['view']> | null {
    if (!this.deps.network) return null;
    const now = this.ctx.hal.clock.monoMs();
    if (now - this.net.at >= NET_EVERY_MS) this.net = { at: now, view: this.deps.network.view() };
    return this.net.view;
  }

  private choose(name: ScreenName): void {
    if (this.chosen !== name) this.returnTo = this.chosen === 'menu' ? 'menu' : null;
    this.chosen = name;
    this.chosenAt = this.ctx.hal.clock.monoMs();
    if (name === 'menu') this.menuPage = 0;
    this.wake();
  }

  private back(): void {
    if (this.chosen === 'notice') this.notice = null;
    this.chosen = this.returnTo;
    this.returnTo = null;
    this.chosenAt = this.ctx.hal.clock.monoMs();
  }

  // --- views -------------------------------------------------------------------

  private build(name: ScreenName): { key: string; make: () => Frame } {
    const l = this.layout;
    const t = this.theme();
    switch (name) {
      case 'status': {
        const v = this.statusView();
        return { key: `status|${t.name}|${stringify(v)}`, make: () => statusScreen(l, t, v) };
      }
      case 'update': {
        const s = this.ctx.ota.state();
        const detail = s.ota === 'verifying' ? 'Checking it' : s.ota === 'restarting' ? 'Restarting' : 'Do not unplug';
        const v = { title: 'Updating', version: s.otaLatest ? `to ${s.otaLatest}` : 'new firmware', pct: s.otaPct, detail };
        return { key: `update|${t.name}|${stringify(v)}`, make: () => updateScreen(l, t, v) };
      }
      case 'signin': {
        const v = this.signinView();
        if (!v) return { key: 'signin-none', make: () => noticeScreen(l, t, { title: 'Sign in', body: 'The device has no network address yet.', footer: 'Tap to close' }) };
        return { key: `signin|${t.name}|${v.key}`, make: () => qrScreen(l, t, v.view, 'signin') };
      }
      case 'wifi': {
        const v = this.wifiView();
        if (!v) return { key: 'wifi-none', make: () => noticeScreen(l, t, { title: 'Wi-Fi setup', body: 'The setup network is not up.', footer: 'Tap to close' }) };
        return { key: `wifi|${t.name}|${v.key}`, make: () => qrScreen(l, t, v.view, 'wifi') };
      }
      case 'menu': {
        const { rows, pages } = this.menuPageRows(this.menuItems());
        const footer = pages > 1 ? '' : `${this.ctx.hal.build.version} - ${this.ctx.hal.board.type}`;
        const v = { title: 'Settings', rows: rows.map((r) => ({ id: r.id, label: r.label, ...(r.short ? { short: r.short } : {}), value: r.value })), pressed: this.pressed?.id ?? null, footer };
        return { key: `menu|${t.name}|${stringify(v)}`, make: () => menuScreen(l, t, v) };
      }
      case 'saver': {
        const v = this.saverView();
        return { key: `saver|${t.name}|${stringify(v)}`, make: () => saverScreen(l, t, v) };
      }
      case 'notice': {
        const n = this.notice ?? { title: 'Notice', body: '', source: '' };
        const v = { title: n.title, body: n.body, footer: n.source ? `${n.source} - tap to close` : 'Tap to close' };
        return { key: `notice|${t.name}|${stringify(v)}`, make: () => noticeScreen(l, t, v) };
      }
      case 'probe': {
        const { hal } = this.ctx;
        const info = [
          `${hal.board.display.controller} ${hal.display.width}x${hal.display.height}`,
          `canvas ${l.width}x${l.height} ${postureName(this.renderer.rotation)}`,
          this.probeTouch ? `touch ${this.probeTouch.x},${this.probeTouch.y}` : 'touch: none yet',
        ];
        const v = { info, touch: this.probeTouch };
        return { key: `probe|${stringify(v)}`, make: () => probeScreen(l, v) };
      }
    }
  }

  /** The clock in the owner's time zone (ctx.time), daylight saving included. */
  private clock(): { time: string | null; date: string | null; minute: number; zone: string } {
    const { clock } = this.ctx.hal;
    const local = this.ctx.time.local(clock.wallMs());
    if (!clock.synced()) return { time: null, date: null, minute: Math.floor(clock.monoMs() / 60_000), zone: local.label };
    const c = clockText(local);
    return { time: c.time, date: c.date, minute: c.minuteOfDay, zone: local.label };
  }

  private statusView(): StatusView {
    const { hal } = this.ctx;
    const now = hal.clock.monoMs();
    const c = this.clock();
    const name = this.ctx.actions.config('devName');
    let state = 'Ready';
    let tone: Tone = 'ok';
    let net = 'no Wi-Fi';
    const v = this.netView();
    const ota = this.otaView();
    if (this.ctx.mode === 0) {
      net = this.phones > 0 ? 'Phone connected' : 'Bluetooth';
      state = 'Notifier mode';
      tone = 'dim';
    } else if (v) {
      if (v.station.state === 'connected' && v.station.ip) net = v.station.ip;
      else if (v.setup.state === 'up') net = 'Wi-Fi setup';
      if (this.deps.turns?.busy) {
        state = 'Thinking...';
        tone = 'busy';
      } else if (!v.provisioned) {
        state = 'Set up Wi-Fi';
        tone = 'warn';
      } else if (v.station.state !== 'connected') {
        state = 'Offline';
        tone = 'warn';
      } else if (this.lastError) {
        state = 'Last turn failed';
        tone = 'err';
      } else if (ota.otaResult === 'new-version' && ota.otaLatest) {
        state = `Update ${ota.otaLatest}`;
        tone = 'warn';
      }
    }
    const hint = hal.touch.present ? 'Tap the screen for settings.' : this.ctx.mode === 1 ? 'Ask me from the web page or the chat.' : this.phones > 0 ? 'Phone connected.' : 'Waiting for the phone.';
    return {
      name: typeof name === 'string' && name ? name : 'Desk assistant',
      time: c.time,
      date: c.date,
      zone: c.zone,
      net,
      battery: this.batteryText(),
      state,
      tone,
      reply: this.reply ? this.reply.text : hint,
      replyDim: !this.reply,
      indicator: hal.ring.count === 0 ? this.indicator(now) : null,
    };
  }

  /** The update state, read at most every OTA_EVERY_MS unless an update is installing. */
  private otaView(): ReturnType<Context['ota']['state']> {
    const now = this.ctx.hal.clock.monoMs();
    if (!this.ota.state || this.ctx.ota.installing() || now - this.ota.at >= OTA_EVERY_MS) this.ota = { at: now, state: this.ctx.ota.state() };
    return this.ota.state!;
  }

  /** The battery level as shown (read every BATTERY_EVERY_MS). */
  private batteryText(): string | null {
    const now = this.ctx.hal.clock.monoMs();
    if (now - this.battery.at >= BATTERY_EVERY_MS) {
      const b = this.ctx.hal.battery.read();
      this.battery = { at: now, text: b.present && b.levelPct !== null ? `${b.levelPct}%${b.charging ? '+' : ''}` : null };
    }
    return this.battery.text;
  }

  /** The LED state on screen for boards without a ring (steady modes one dot, the spinner eight). */
  private indicator(now: number): Indicator | null {
    const s = this.ctx.actions.ledState();
    if (s.mode === 'off') return null;
    const setting = this.ctx.actions.config('ledBrightness');
    const level = Math.max(48, s.brightness ?? (typeof setting === 'number' ? setting : 128));
    const { r, g, b } = s.color;
    switch (s.mode) {
      case 'solid':
        return { dots: [scaleRgb(r, g, b, level)] };
      case 'pulse': {
        const phase = (now % 2000) / 2000;
        const f = 0.25 + 0.75 * (phase < 0.5 ? phase * 2 : 2 - phase * 2);
        return { dots: [scaleRgb(r, g, b, Math.round(level * f))] };
      }
      case 'flash':
        return { dots: [now % 1000 < 500 ? scaleRgb(r, g, b, level) : rgb565(24, 24, 24)] };
      case 'rainbow': {
        const [hr, hg, hb] = hueRgb((now % 3000) / 3000);
        return { dots: [scaleRgb(hr, hg, hb, level)] };
      }
      case 'spinner': {
        const head = Math.floor(now / 125) % 8;
        const dots: number[] = [];
        for (let i = 0; i < 8; i++) {
          const age = (head - i + 8) % 8;
          dots.push(age < 3 ? scaleRgb(r, g, b, Math.round(level / (1 + age * 2))) : rgb565(24, 24, 24));
        }
        return { dots };
      }
    }
  }

  private signinBase(): string | null {
    const list = this.deps.network?.addresses() ?? [];
    const pick = list.find((a) => a.label === 'home network') ?? list.find((a) => a.label === 'setup network') ?? list[0];
    return pick ? pick.base : null;
  }

  private signinView(): { key: string; view: QrView } | null {
    const now = this.ctx.hal.clock.monoMs();
    const base = this.signinBase();
    if (!base) return null;
    const s = this.signin;
    if (!s || s.expiresAt - now <= SIGNIN_REFRESH_MS || !s.url.startsWith(base + '/')) {
      const code = this.ctx.signin.mint(SCAN_LIFETIME_MS);
      const url = `${base}/?c=${code.code}`;
      this.signin = { code: code.code, url, expiresAt: code.expiresAtMono, qr: encodeQr(url) };
    }
    const cur = this.signin!;
    const left = Math.max(0, Math.ceil((cur.expiresAt - SIGNIN_REFRESH_MS - now) / 1000));
    // The code is a credential (it buys the token): like the passphrase it stays on the panel,
    // so no exported frame hands one out (the tunnel refuses to mint codes for the same reason).
    const view: QrView = {
      title: 'Sign in',
      qr: cur.qr,
      label: `${base}/?c=[hidden]`,
      secret: true,
      lines: [
        { text: 'Scan with your phone, or open' },
        { text: cur.url, tone: 'busy', secret: true },
        { text: `Code ${cur.code}`, secret: true },
        { text: `New code in ${left} s`, tone: 'dim' },
        { text: 'Tap to close', tone: 'dim' },
      ],
      short: { text: cur.code, secret: true },
    };
    return { key: `${cur.url}|${left}`, view };
  }

  private wifiView(): { key: string; view: QrView } | null {
    const pass = this.deps.passphrase?.reveal();
    if (!pass || !this.setupUp()) return null;
    const text = wifiJoinString(SETUP_SSID, pass);
    if (!this.wifiQr || this.wifiQr.text !== text) this.wifiQr = { text, qr: encodeQr(text), serial: ++this.qrSerial };
    const view: QrView = {
      title: 'Join Wi-Fi',
      qr: this.wifiQr.qr,
      label: `WIFI:T:WPA;S:${SETUP_SSID};P:[hidden];;`,
      secret: true,
      lines: [
        { text: `Network: ${SETUP_SSID}` },
        { text: `Password: ${pass}`, secret: true },
        { text: 'Then open http://192.168.4.1', tone: 'dim' },
        { text: 'Tap to close', tone: 'dim' },
      ],
      short: { text: pass, secret: true },
    };
    // The key never carries the passphrase itself: the serial changes with the symbol.
    return { key: String(this.wifiQr.serial), view };
  }

  private saverView(): { time: string | null; date: string | null; driftX: number; driftY: number } {
    const c = this.clock();
    // Moves once a minute along a fixed pseudo-random walk, so no pixel stays lit for long.
    const k = (c.minute * 2654435761) >>> 0;
    return { time: c.time, date: c.date, driftX: (k & 0xff) / 255, driftY: ((k >>> 8) & 0xff) / 255 };
  }

  private turnDone(req: TurnRequest, out: TurnOutcome | null): void {
    // A turn started: "Thinking..." shows on the next turn of the loop (while the turn waits on its
    // provider), not at the next check.
    this.version++;
    this.soon();
    // The screen is the owner's: replies of admin turns (the owner and admins) only.
    if (!out || !req.admin) return;
    if (out.status === 'error') {
      this.lastError = out.error ?? 'error';
      return;
    }
    this.lastError = null;
    const text = (out.reply || out.ask || '').trim();
    if (!text) return;
    this.reply = { text: capBytes(text, REPLY_CAP_BYTES), atWall: this.ctx.hal.clock.wallMs() };
    this.version++;
    this.wake();
  }

  // --- the menu ------------------------------------------------------------------

  private menuItems(): MenuItem[] {
    const ctx = this.ctx;
    const items: MenuItem[] = [{ id: 'close', label: 'Close', value: null, tap: () => this.back() }];
    const bright = this.brightness();
    const overBright = this.brightnessSource() === 'brightOvr';
    const stepBright = (dir: 1 | -1): void => {
      const cur = this.settings.brightness();
      const i = BRIGHT_STEPS.findIndex((s) => s >= cur);
      const at = i < 0 ? BRIGHT_STEPS.length - 1 : i;
      const next = BRIGHT_STEPS[(at + dir + BRIGHT_STEPS.length) % BRIGHT_STEPS.length]!;
      this.settings.setBrightness(next);
      // The owner's touch wins over an assistant's override.
      if (overBright) ctx.actions.apply({ kind: 'config', values: { brightOvr: -1 } });
    };
    items.push({ id: 'bright', label: 'Brightness', short: 'Light', value: `${Math.round((bright * 100) / 255)}%${overBright ? '*' : ''}`, tap: () => stepBright(1), hold: () => stepBright(-1) });
    const theme = this.theme().name;
    const stepTheme = (dir: 1 | -1): void => {
      const i = THEME_NAMES.indexOf(theme);
      ctx.actions.apply({ kind: 'config', values: { theme: THEME_NAMES[(i + dir + THEME_NAMES.length) % THEME_NAMES.length]! } });
    };
    items.push({ id: 'theme', label: 'Theme', value: theme, tap: () => stepTheme(1), hold: () => stepTheme(-1) });
    const saver = this.saverMinutes();
    const stepSaver = (dir: 1 | -1): void => {
      const i = SAVER_STEPS.findIndex((s) => s >= saver.min);
      const at = i < 0 ? SAVER_STEPS.length - 1 : i;
      this.settings.setSaverMin(Math.min(MAX_SAVER_MIN, SAVER_STEPS[(at + dir + SAVER_STEPS.length) % SAVER_STEPS.length]!));
      if (saver.source === 'sleepOvr') ctx.actions.apply({ kind: 'config', values: { sleepOvr: -1 } });
    };
    items.push({ id: 'saver', label: 'Screen saver', short: 'Saver', value: `${saver.min ? `${saver.min} min` : 'off'}${saver.source === 'sleepOvr' ? '*' : ''}`, tap: () => stepSaver(1), hold: () => stepSaver(-1) });
    const rot = this.renderer.rotation;
    const stepPosture = (dir: 1 | -1): void => this.setPosture((((rot + dir * 90 + 360) % 360) as Rotation));
    items.push({ id: 'posture', label: 'Orientation', short: 'Turn', value: postureName(rot), tap: () => stepPosture(1), hold: () => stepPosture(-1) });
    // The owner's one time zone (ctx.time): common zones east on a tap, west on a hold, and the custom one set on the web.
    const zones = ctx.time.choices();
    const current = zones.findIndex((z) => sameZone(z.zone, ctx.time.zone()));
    const stepZone = (dir: 1 | -1): void => {
      const at = current < 0 ? zones.findIndex((z) => z.zone.std.offset === 0) : current;
      const r = ctx.time.set(zones[(at + dir + zones.length) % zones.length]!.zone.text);
      if (!r.ok) this.showNotice({ title: 'Time zone', body: r.message, source: 'Settings', holdMs: 8000 });
    };
    items.push({ id: 'clock', label: 'Time zone', short: 'Zone', value: current < 0 ? ctx.time.label() : zones[current]!.name, tap: () => stepZone(1), hold: () => stepZone(-1) });
    if (ctx.mode === 1 && this.deps.network) items.push({ id: 'signin', label: 'Sign in (QR)', short: 'Sign in', value: null, tap: () => void this.showSignIn() });
    if (this.setupUp() && this.deps.passphrase) items.push({ id: 'wifi', label: 'Wi-Fi setup (QR)', short: 'Wi-Fi QR', value: null, tap: () => void this.showWifiJoin() });
    if (ctx.mode === 1) {
      const s = ctx.ota.state();
      const value = s.ota === 'checking' ? 'checking' : s.otaResult === 'new-version' && s.otaLatest ? `install ${s.otaLatest}` : s.otaResult === 'up-to-date' ? 'up to date' : 'check';
      items.push({
        id: 'update',
        label: 'Updates',
        short: 'Update',
        value,
        tap: () => {
          if (s.otaResult === 'new-version') {
            const ticket = ctx.ota.apply({ source: 'menu' });
            if (!ticket.ok) this.showNotice({ title: 'Update', body: ticket.message, source: 'Updates', holdMs: 8000 });
          } else {
            const ticket = ctx.ota.check();
            if (!ticket.ok) this.showNotice({ title: 'Update', body: ticket.message, source: 'Updates', holdMs: 8000 });
          }
        },
      });
    }
    items.push({ id: 'about', label: 'About', value: ctx.hal.build.version, tap: () => this.showNotice({ title: 'About', body: this.aboutText(), source: 'Settings' }) });
    return items;
  }

  private aboutText(): string {
    const { hal } = this.ctx;
    const v = this.netView();
    const ip = v?.station.state === 'connected' ? v.station.ip : null;
    return [
      `Firmware ${hal.build.version} (${hal.build.buildId})`,
      `Board ${hal.board.type}, ${hal.display.width}x${hal.display.height}`,
      `Mode ${this.ctx.mode === 1 ? 'Orchestrator' : 'Notifier'}`,
      ip ? `Address http://${ip}/` : 'No network address',
    ].join('\n');
  }

  private menuPageRows(items: MenuItem[]): { rows: MenuItem[]; page: number; pages: number } {
    // Close sits in the title bar, on every page.
    const [close, ...rest] = items;
    const cap = menuCapacity(this.layout);
    if (rest.length <= cap) return { rows: items, page: 0, pages: 1 };
    const per = cap - 1;
    const pages = Math.ceil(rest.length / per);
    const page = Math.min(this.menuPage, pages - 1);
    const rows = [close!, ...rest.slice(page * per, page * per + per)];
    rows.push({ id: 'more', label: 'More...', short: 'More', value: `${page + 1}/${pages}`, tap: () => (this.menuPage = (page + 1) % pages), hold: () => (this.menuPage = (page - 1 + pages) % pages) });
    return { rows, page, pages };
  }

  // --- touch -----------------------------------------------------------------------

  private hit(x: number, y: number): Target | null {
    const { width, height } = this.ctx.hal.display;
    const p = displayPointToCanvas(x, y, width, height, this.renderer.rotation);
    const targets = this.frameNow?.targets ?? [];
    for (let i = targets.length - 1; i >= 0; i--) {
      const t = targets[i]!;
      if (p.x >= t.x && p.x < t.x + t.w && p.y >= t.y && p.y < t.y + t.h) return t;
    }
    return null;
  }

  private gesture(g: Gesture): void {
    switch (g.kind) {
      case 'press': {
        const asleep = this.screenNow === 'saver';
        this.wake();
        if (asleep) {
          // The touch that wakes the screen does nothing else.
          this.touch.noteIsolated('wake');
          this.swallow = true;
          return;
        }
        if (this.screenNow === 'update') {
          this.touch.noteIsolated('busy');
          this.swallow = true;
          return;
        }
        this.pressed = this.hit(g.x, g.y);
        if (this.screenNow === 'probe') {
          const { width, height } = this.ctx.hal.display;
          this.probeTouch = displayPointToCanvas(g.x, g.y, width, height, this.renderer.rotation);
        }
        return;
      }
      case 'cancel':
        this.pressed = null;
        return;
      case 'release':
        this.pressed = null;
        this.swallow = false;
        this.wake();
        return;
      case 'hold':
        if (this.swallow || !this.pressed) return;
        this.act(this.pressed, 'hold');
        if (this.started) this.schedule();
        return;
      case 'tap': {
        if (this.swallow || !this.pressed) return;
        const at = this.hit(g.x, g.y);
        if (at && at.id === this.pressed.id) this.act(at, 'tap');
      }
    }
  }

  private act(target: Target, how: 'tap' | 'hold'): void {
    switch (this.screenNow) {
      case 'status':
        if (how === 'hold' && this.ctx.mode === 1 && this.deps.network) this.showSignIn();
        else this.choose('menu');
        break;
      case 'menu': {
        const item = this.menuPageRows(this.menuItems()).rows.find((r) => r.id === target.id);
        if (!item) break;
        if (how === 'tap') item.tap();
        else item.hold?.();
        this.chosenAt = this.ctx.hal.clock.monoMs();
        break;
      }
      case 'wifi':
        // The first-run Wi-Fi screen is the base screen: a tap puts it away until the next boot.
        if (how === 'tap' && this.chosen !== 'wifi') this.wifiDismissed = true;
        else if (how === 'tap') this.back();
        break;
      case 'signin':
      case 'notice':
        if (how === 'tap') this.back();
        break;
      default:
        break;
    }
    this.update();
  }
}
