// The device screen's dispatcher: which screen shows, when its frame is
// rebuilt and drawn, and where a touch goes. Each screen is a module of its
// own (status, update, signin, wifi, menu, saver, notice, probe: the
// *-screen.ts files, under the contract in src/ui/screen-kit.ts) that turns
// what it shows into a key and a frame; a tick picks the screen, rebuilds
// its frame only when the key changed, and lets the renderer draw what
// differs in short chunks. Ticks come from an idle check once a second
// (poll(), called by boot()'s watchdog tick), from events the screen shows,
// from touches, and from the redraw timer while the screen is active
// (src/ui/redraw.ts).
//
// API for other subsystems (the ui subsystem's face, src/ui/index.ts, provides
// the Ui as the part ui to those that need it, e.g. the Notifier's BLE link):
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

import type { Kernel } from '../core/kernel.ts';
import type { Log } from '../log/log.ts';
import type { TouchEvent } from '../hal/index.ts';
import type { TurnOutcome, TurnRequest } from '../contracts/index.ts';
import { DeviceReads } from './device-reads.ts';
import { Fonts } from './fonts.ts';
import { Gestures } from './gestures.ts';
import type { Layout } from './layout.ts';
import { MenuScreen, type MenuState } from './menu-screen.ts';
import { ScreenSet } from './screen-list.ts';
import { Navigation } from './navigation.ts';
import { NoticeScreen, type Notice } from './notice-screen.ts';
import { Panel } from './panel.ts';
import { ProbeScreen } from './probe-screen.ts';
import type { Rotation } from './raster.ts';
import { Redraw } from './redraw.ts';
import { Renderer } from './renderer.ts';
import type { ScreenDevice, ScreenHost, ScreenName, UiDeps, UiOptions } from './screen-kit.ts';
import type { Frame } from './screens.ts';
import { UiSettings, UI_NS } from './settings.ts';
import { SigninScreen } from './signin-screen.ts';
import { StatusScreen } from './status-screen.ts';
import type { Theme } from './theme.ts';
import { TouchInput, type TouchSource } from './touch.ts';
import { WifiScreen } from './wifi-screen.ts';

export type { MenuState, Notice, ScreenName, UiDeps, UiOptions };

/** Screen update failures logged (then only counted): a broken panel must not flood the log. */
const LOGGED_FAILURES = 5;

export class Ui {
  readonly renderer: Renderer;
  readonly touch: TouchInput;
  readonly settings: UiSettings;
  /** The image's fonts (src/ui/fonts.ts) and their missing-glyph count. */
  readonly fonts: Fonts;
  /** What the screens read of the device (the kernel's HAL and mode, and the services in the options). */
  readonly dev: ScreenDevice;
  private readonly log: Log;
  private readonly panel: Panel;
  private readonly nav: Navigation;
  private readonly redraw: Redraw;
  private readonly reads: DeviceReads;
  private readonly gestures: Gestures;
  private readonly screens: ScreenSet;
  private readonly status: StatusScreen;
  private readonly notices: NoticeScreen;
  private readonly signin: SigninScreen;
  private readonly wifi: WifiScreen;
  private readonly menu: MenuScreen;
  private readonly probe: ProbeScreen;
  private frameNow: Frame | null = null;
  private viewKey = '';
  private screenNow: ScreenName = 'status';
  /** What the screen's inputs looked like at the last idle poll. */
  private polled = '';
  /** Bumped by events the views show (a reply, a notice, ...). */
  private version = 0;
  private failures = 0;
  private ticks = 0;
  private lastBuildMs = 0;

  constructor(
    k: Kernel,
    private readonly deps: UiOptions,
  ) {
    const { hal } = k;
    this.log = k.log;
    this.dev = { hal, mode: k.mode, actions: deps.actions, ota: deps.updates, signin: deps.signin, time: deps.time, sameZone: deps.sameZone };
    this.settings = new UiSettings(k.store(UI_NS), deps.keep);
    this.renderer = new Renderer(hal.display, hal.clock, deps.renderer);
    this.fonts = new Fonts(hal.assets);
    this.panel = new Panel(this.dev, this.settings, this.renderer, deps.round === true, this.fonts);
    this.touch = new TouchInput(hal.clock, hal.display.width, hal.display.height, (g) => deps.voice?.gesture(g.kind, this.screenNow) === true || this.gestures.handle(g));
    this.touch.calibration = this.settings.calibration();
    this.nav = new Navigation(hal.clock, { wake: () => this.wake(), enter: (n) => this.screens.screen(n).enter?.(), leave: (n) => this.screens.screen(n).leave?.() });
    this.redraw = new Redraw(hal.clock, this.renderer, {
      tick: () => this.tick(),
      guard: (work) => this.guard(work),
      active: () => this.touch.isDown() || this.screens.screen(this.screenNow).animating?.() === true,
      hz: () => this.settings.hz(),
      turnBusy: () => this.deps.turns?.busy === true,
    });
    this.reads = new DeviceReads(this.dev, deps.network);
    const host: ScreenHost = { dev: this.dev, deps, reads: this.reads, nav: this.nav, layout: () => this.panel.layout(), theme: () => this.theme(), rotation: () => this.renderer.rotation };
    const controls = { settings: this.settings, brightness: () => this.brightness(), brightnessSource: () => this.brightnessSource(), saverMinutes: () => this.saverMinutes(), setPosture: (r: Rotation) => this.setPosture(r), pressedId: () => this.gestures.pressedId() };
    this.screens = new ScreenSet(host, controls);
    this.notices = this.screens.get('notice', NoticeScreen);
    this.signin = this.screens.get('signin', SigninScreen);
    this.wifi = this.screens.get('wifi', WifiScreen);
    this.probe = this.screens.get('probe', ProbeScreen);
    this.status = this.screens.get('status', StatusScreen);
    this.menu = this.screens.get('menu', MenuScreen);
    this.gestures = new Gestures(this.touch, (n) => this.screens.screen(n), {
      display: hal.display,
      rotation: () => this.renderer.rotation,
      screen: () => this.screenNow,
      frame: () => this.frameNow,
      wake: () => this.wake(),
      acted: () => this.update(),
      held: () => {
        if (this.redraw.running) this.redraw.schedule();
      },
    });
    deps.turns?.onTurn((req, out) => this.turnDone(req, out));
    deps.turns?.onReply?.((req, text) => this.replyGrew(req, text));
  }

  /**
   * Starts the screen: listens to the touch panel and draws the first frame.
   * From then on the owner of the main loop calls poll() about once a second
   * (boot() does it from its once-a-second watchdog tick, so an idle device
   * wakes once a second for both), and the redraw timer runs at TFTHZ only
   * while the screen is active.
   */
  start(): void {
    this.dev.hal.touch.onTouch = (e) => this.handleTouch(e, 'panel');
    this.redraw.running = true;
    this.guard(() => this.tick());
    this.redraw.schedule();
  }

  stop(): void {
    this.redraw.stop();
  }

  /** The idle check (about once a second): a full tick when the inputs changed or drawing is pending. */
  poll(): void {
    if (!this.redraw.running) return;
    this.guard(() => {
      const key = this.fingerprint();
      if (key !== this.polled || this.renderer.busy()) {
        this.polled = key;
        this.tick();
      }
      this.redraw.schedule();
    });
  }

  // --- the API for other subsystems ------------------------------------------

  showNotice(n: Notice): void {
    this.notices.show(n);
  }

  clearNotice(): void {
    // Shown at once, as a notice is (not at the next idle check).
    if (this.notices.clear()) this.redraw.soon();
  }

  hasNotice(): boolean {
    return this.notices.has();
  }

  setPhones(n: number): void {
    if (!this.status.setPhones(n)) return;
    this.version++;
    this.redraw.soon();
  }

  showWifiJoin(): boolean {
    return this.wifi.open();
  }

  showSignIn(): boolean {
    return this.signin.open();
  }

  wake(): void {
    this.nav.activity();
    this.version++;
    this.redraw.soon();
  }

  /** SAVER now: the saver until the next touch or activity. */
  startSaver(): void {
    this.nav.forceSaver();
  }

  /** Milliseconds since the last touch or activity. */
  idleMs(): number {
    return this.nav.idleMs();
  }

  screen(): ScreenName {
    return this.screenNow;
  }

  // --- console and route helpers -----------------------------------------------

  frame(): Frame | null {
    return this.frameNow;
  }

  layoutNow(): Layout {
    return this.panel.layout();
  }

  setProbe(on: boolean): void {
    this.probe.set(on);
    this.wake();
  }

  probing(): boolean {
    return this.probe.showing();
  }

  /** Applies a new mount orientation (keep and the posture config key). */
  setPosture(r: Rotation): void {
    if (this.panel.setPosture(r)) this.turned();
  }

  setCalibration(c: ReturnType<UiSettings['calibration']>): void {
    this.settings.setCalibration(c);
    this.touch.calibration = c;
  }

  /** TFTHZ: the redraw rate. */
  setHz(hz: number): void {
    this.settings.setHz(hz);
    this.redraw.schedule();
  }

  /** A touch from the panel or the console (TAP): display coordinates. */
  handleTouch(e: TouchEvent, source: TouchSource): void {
    this.redraw.touched();
    this.guard(() => this.touch.handle(e, source));
    // The answer to a touch (a highlight, the next screen) is drawn at once.
    this.guard(() => this.tick());
    if (this.redraw.running) this.redraw.schedule();
  }

  /** Rebuilds (if needed) and draws everything now: console commands and tests. */
  flush(): boolean {
    this.follow();
    this.update();
    this.panel.applyBrightness(this.screenNow === 'saver');
    return this.renderer.flush();
  }

  ticksRun(): number {
    return this.ticks;
  }

  lastBuild(): number {
    return this.lastBuildMs;
  }

  menuState(): MenuState {
    return this.menu.state(this.screenNow === 'menu', this.frameNow);
  }

  /** The backlight level now: brightOvr, else the menu's setting; the saver dims it. */
  brightness(): number {
    return this.panel.brightness(this.screenNow === 'saver');
  }

  brightnessSource(): string {
    return this.panel.brightnessSource();
  }

  /** Minutes of idle before the saver (0 = never): sleepOvr while set, else SAVER. */
  saverMinutes(): { min: number; source: 'sleepOvr' | 'setting' } {
    return this.panel.saverMinutes();
  }

  theme(): Theme {
    return this.panel.theme();
  }

  // --- the tick --------------------------------------------------------------

  /** One redraw tick: follow the settings, pick the screen, rebuild if its view changed, draw a bounded amount. */
  tick(): void {
    this.ticks++;
    this.follow();
    this.update();
    this.panel.applyBrightness(this.screenNow === 'saver');
    this.renderer.tick();
  }

  /** The screen must never take the main loop down: a failure is logged (the first few) and the next tick tries again. */
  private guard(work: () => void): void {
    try {
      work();
    } catch (e) {
      if (this.failures++ < LOGGED_FAILURES) this.log.error('ui', `screen update failed: ${String(e)}`);
    }
  }

  /** Everything a screen shows, cheaply read (no view is built). */
  private fingerprint(): string {
    const { hal } = this.dev;
    const a = this.dev.actions;
    const screen = this.pickScreen();
    const clock = hal.clock;
    const minute = Math.floor((clock.synced() ? clock.wallMs() : clock.monoMs()) / 60_000);
    const second = screen === 'signin' ? Math.floor(clock.monoMs() / 1000) : 0;
    const led = a.ledState();
    const ota = this.reads.otaView();
    const net = this.reads.netView();
    return [
      screen, minute, second, this.version, this.deps.turns?.busy, this.dev.ota.installing(), ota.ota, ota.otaPct, ota.otaResult, ota.otaLatest,
      led.mode, led.color.r, led.color.g, led.color.b, led.brightness, a.config('theme'), a.config('brightOvr'), a.config('sleepOvr'),
      a.config('posture'), a.config('devName'), a.config('ledBrightness'), net?.station.state, net?.station.ip, net?.setup.state,
      net?.provisioned, this.reads.batteryText(), this.dev.time.zone().text, this.settings.hz(),
    ].join('|');
  }

  private follow(): void {
    if (this.panel.follow()) this.turned();
  }

  /** The orientation changed: every frame and target is stale. */
  private turned(): void {
    this.viewKey = '';
    this.gestures.forget();
  }

  private update(): void {
    const name = this.pickScreen();
    if (name !== this.screenNow) {
      this.screenNow = name;
      this.viewKey = '';
      if (name !== 'menu') this.gestures.forget();
    }
    const built = this.screens.screen(name).build();
    if (built.key === this.viewKey && this.frameNow) return;
    const t0 = this.dev.hal.clock.monoMs();
    const frame = built.make();
    this.lastBuildMs = this.dev.hal.clock.monoMs() - t0;
    this.viewKey = built.key;
    this.frameNow = frame;
    this.renderer.show(frame.list);
  }

  /**
   * Which screen shows, first match wins: the panel probe, an installing
   * update, the screen the owner chose (until it lapses), else the base
   * screen (the first-run Wi-Fi QR, or status); the saver covers status and
   * the menu once it is due, never under a finger.
   */
  private pickScreen(): ScreenName {
    if (this.probe.showing()) return 'probe';
    if (this.dev.ota.installing()) return 'update';
    this.notices.expire(this.dev.hal.clock.monoMs());
    const chosen = this.nav.chosen();
    if (chosen && this.screens.screen(chosen).lapsed?.(this.nav.idleMs(), this.nav.sinceChosenMs())) this.nav.back();
    const base: ScreenName = this.nav.chosen() ?? (this.wifi.firstRun() ? 'wifi' : 'status');
    if (this.nav.saverDue(this.saverMinutes().min) && (base === 'status' || base === 'menu') && !this.touch.isDown()) {
      if (this.nav.chosen() === 'menu') this.nav.back();
      return 'saver';
    }
    return base;
  }

  /** Redraws of a growing reply are at most this often (each is a text layout and a flush of the reply box). */
  private static readonly GROW_REDRAW_MS = 250;
  private grewDrawnAt = -Infinity;

  /** A streamed reply grew: the home screen shows it as it comes (the turn's end draws the last of it). */
  private replyGrew(req: TurnRequest, text: string | null): void {
    if (!this.status.noteGrowing(req, text)) return;
    const now = this.dev.hal.clock.monoMs();
    if (text !== null && now - this.grewDrawnAt < Ui.GROW_REDRAW_MS) return;
    this.grewDrawnAt = now;
    this.version++;
    this.redraw.soon();
  }

  private turnDone(req: TurnRequest, out: TurnOutcome | null): void {
    // A turn started: "Thinking..." shows on the next turn of the loop (while the turn waits on its
    // provider), not at the next check.
    this.version++;
    this.redraw.soon();
    if (!this.status.noteTurn(req, out)) return;
    this.version++;
    this.wake();
  }
}
