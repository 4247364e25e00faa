// The update engine: the spec's update state fields, the check schedule
// (about 2 minutes after boot, then daily), on-demand checks, the one apply
// entry point every path calls (web, menu, chat /update, console, auto), the
// hourly auto-install evaluation, and the healthy window that confirms a new
// image. The check, the install and the boot guard live in their own files.

import type { Kernel } from '../core/kernel.ts';
import type { HttpClient } from '../net/http/client.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { P256Api } from '../../modules/p256/p256.ts';
import type { BatteryReading, Timer } from '../hal/index.ts';
import { parseUrl } from '../net/url.ts';
import { capBytes } from '../util/cap.ts';
import { compareVersions, parseVersion } from '../util/version.ts';
import { runCheck, type CheckOutcome } from './check.ts';
import { resolveDeviceType, TYPE_NS } from './device-type.ts';
import { autoBatteryAllows, batteryRefusal, heapAllows } from './gates.ts';
import { GuardStore, HEALTHY_MS, HEALTHY_NO_WIFI_MS, OTA_NS, type BootVerdict } from './guard.ts';
import { runInstall, type HoldStage } from './install.ts';
import { TRUSTED_KEYS, type TrustedKey } from './keys.ts';
import type { ApplyOptions, ApplyRefusal, InstallOutcome, OtaEngineState, OtaError, OtaResult, OtaState } from './types.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const QUERY_OR_FRAGMENT = /[?#]/;
const TRAILING_SLASHES = /\/+$/;
const WHITESPACE_RUNS = /\s+/;

/** The default update base; the device reads <base>/latest/manifest.json (OTAURL sets it). */
export const DEFAULT_UPDATE_BASE = 'https://updates.desk-assistant.invalid/releases';
export const K_BASE = 'otaBase';
export const K_AUTO = 'autoUpd';
/** The newest version the update-available notice announced (once per version, across reboots). */
export const K_ANNOUNCED = 'otaAnnounced';

export const FIRST_CHECK_MS = 2 * 60_000;
export const CHECK_EVERY_MS = 24 * 60 * 60_000;
export const AUTO_EVERY_MS = 60 * 60_000;
/** How often the healthy window looks at Wi-Fi and the time. */
const HEALTH_POLL_MS = 5_000;
/** The answer to the request that started an install goes out before the restart. */
export const RESTART_DELAY_MS = 500;

export const FORCE_OFFER = 'Install anyway (I am charging)';

const REFUSAL_TEXT: Record<ApplyRefusal, string> = {
  notifier: 'Updates are not available in Notifier mode.',
  busy: 'An update check or install is already running.',
  confirming: 'The running firmware is still being confirmed after its update; try again in a few minutes.',
  'low-heap': 'Not enough free memory to install an update right now.',
  'up-to-date': 'The firmware is up to date.',
  'need-power': 'The battery is below 40%: connect power to install the update.',
  'need-recalibrate': 'The battery health estimate is below 60%: charge fully and calibrate the battery to install the update.',
};

export type ApplyTicket =
  | { ok: true; done: Promise<InstallOutcome> }
  | { ok: false; reason: ApplyRefusal; message: string; /** The force re-submit label, for battery refusals. */ offer: string | null };

export type CheckTicket = { ok: true; done: Promise<CheckOutcome> } | { ok: false; reason: 'notifier' | 'busy'; message: string };

/** What the update engine needs of other subsystems, passed when the ota subsystem is mounted. */
export interface UpdatesDeps {
  /** The battery model the install gate reads (src/power). */
  power: { reading(): BatteryReading };
  /** Outbound HTTPS under the device's TLS policy. */
  client: HttpClient;
  sha256: Sha256Api;
  /** The P-256 hotspot the signature check runs on (modules/p256). */
  p256: P256Api;
  /** Owner notices waiting for the chat client (src/chat's outbox). */
  outbox: { post(key: string, text: string): boolean };
  /** Device timeline rows (src/system). */
  timeline: { row(kind: 'update', text: string): void };
  /** The ring's update progress (src/device's ring engine). */
  ring: { progress(pct: number | null): void };
}

export class Updates {
  private ctx!: Kernel;
  private deps!: UpdatesDeps;
  private guard!: GuardStore;
  private engine: OtaEngineState = 'idle';
  private result: OtaResult = 'pending';
  private latest: string | null = null;
  private notes: string | null = null;
  private pct = 0;
  private err: OtaError | null = null;
  private job: Promise<unknown> | null = null;
  private confirmingVersion: string | null = null;
  private timers: Timer[] = [];
  private busyProbes: Array<() => boolean> = [];
  private holds = new Set<HoldStage>();
  /** Keys tried (tests swap them). */
  keys: readonly TrustedKey[] = TRUSTED_KEYS;

  constructor(private readonly verdict: BootVerdict) {}

  /** Wires the engine to the device and starts its timers (src/ota/index.ts). */
  attach(ctx: Kernel, deps: UpdatesDeps): void {
    this.ctx = ctx;
    this.deps = deps;
    this.guard = new GuardStore(ctx.store(OTA_NS));
    const { hal } = ctx;
    const v = this.verdict;
    if (v.kind === 'rolled-back') this.deps.timeline.row('update', `firmware ${v.version} failed to start: rolled back to ${hal.build.version}`);
    if (v.kind === 'aborted-preflip') this.deps.timeline.row('update', `the update to ${v.version} was cut off before it switched slots; ${hal.build.version} runs on`);
    if (v.kind === 'interrupted') {
      this.err = 'interrupted';
      this.deps.timeline.row('update', `the download of ${v.version} was interrupted; ${hal.build.version} runs on`);
    }
    if (v.kind === 'confirming') this.startConfirming(v.version);
    if (ctx.mode === 1) {
      this.timers.push(
        hal.clock.setTimeout(() => {
          this.scheduledCheck();
          this.timers.push(hal.clock.setInterval(() => this.scheduledCheck(), CHECK_EVERY_MS));
        }, FIRST_CHECK_MS),
      );
      this.timers.push(hal.clock.setInterval(() => this.autoTick(), AUTO_EVERY_MS));
    }
  }

  stop(): void {
    for (const t of this.timers.splice(0)) t.cancel();
  }

  // --- state ---------------------------------------------------------------

  /** True from the start of a download until the restart (voice capture is refused meanwhile). */
  installing(): boolean {
    return this.engine === 'downloading' || this.engine === 'verifying' || this.engine === 'restarting';
  }

  state(): OtaState {
    return {
      ota: this.engine,
      otaResult: this.result,
      otaLatest: this.latest,
      otaNotes: this.notes,
      otaPct: this.pct,
      otaErr: this.err,
      otaSlot: this.ctx.hal.flash.runningSlot() === 1 ? 'ota_1' : 'ota_0',
      lastOta: this.guard.lastOta(),
      autoUpd: this.autoEnabled(),
    };
  }

  base(): string {
    return this.ctx.store(OTA_NS).str(K_BASE, DEFAULT_UPDATE_BASE);
  }

  /** OTAURL: an absolute http(s) URL, or 'default'. Bad input changes nothing. */
  setBase(url: string): boolean {
    const store = this.ctx.store(OTA_NS);
    if (url === 'default') {
      store.delete(K_BASE);
      return true;
    }
    const p = parseUrl(url);
    if (!p.ok || url.length > 512 || QUERY_OR_FRAGMENT.test(url)) return false;
    store.set(K_BASE, url.replace(TRAILING_SLASHES, ''));
    return true;
  }

  autoEnabled(): boolean {
    return this.ctx.store(OTA_NS).bool(K_AUTO, false);
  }

  setAuto(on: boolean): void {
    this.ctx.store(OTA_NS).set(K_AUTO, on);
  }

  /** Other subsystems say when the device is busy (a turn, a call): auto-install waits for idle. */
  addBusyProbe(probe: () => boolean): void {
    this.busyProbes.push(probe);
  }

  /** Test builds: stop the next installs at a stage (OTASIM hold). */
  setHold(stage: HoldStage, on: boolean): void {
    if (on) this.holds.add(stage);
    else this.holds.delete(stage);
  }

  private setEngine(s: OtaEngineState): void {
    this.engine = s;
  }

  private idleEngine(): OtaEngineState {
    return this.confirmingVersion ? 'confirming' : 'idle';
  }

  // --- check ---------------------------------------------------------------

  /** POST /api/ota/check, OTACHECK: 202 with the verdict to come in otaResult, or refused. */
  check(): CheckTicket {
    if (this.ctx.mode !== 1) return { ok: false, reason: 'notifier', message: REFUSAL_TEXT.notifier };
    if (this.job) return { ok: false, reason: 'busy', message: REFUSAL_TEXT.busy };
    const done = this.runCheckJob();
    this.job = done.finally(() => (this.job = null));
    return { ok: true, done };
  }

  private scheduledCheck(): void {
    if (!this.job) this.check();
  }

  private async runCheckJob(): Promise<CheckOutcome> {
    this.setEngine('checking');
    this.result = 'pending';
    try {
      const outcome = await this.fetchVerdict();
      this.settle(outcome);
      return outcome;
    } finally {
      this.setEngine(this.idleEngine());
    }
  }

  private fetchVerdict(): Promise<CheckOutcome> {
    const { hal } = this.ctx;
    return runCheck({
      client: this.deps.client,
      base: this.base(),
      board: hal.board,
      type: resolveDeviceType(this.ctx.store(TYPE_NS), hal.board),
      running: hal.build.version,
      slotSize: hal.flash.slotSize(),
      keys: this.keys,
      sha256: this.deps.sha256,
      p256: this.deps.p256,
    });
  }

  private settle(o: CheckOutcome): void {
    this.result = o.result;
    this.err = o.error;
    if (o.latest !== null) {
      this.latest = o.latest;
      this.notes = o.notes;
    }
    const log = o.result === 'failed' || o.result === 'unreachable' ? 'warn' : 'info';
    this.ctx.log[log]('ota', `check: ${o.result}${o.error ? ` (otaErr=${o.error})` : ''}: ${o.detail}`);
    if (o.result === 'new-version' && this.ctx.mode === 1 && o.latest) this.notify(o.latest, o.notes ?? '');
  }

  /**
   * The update-available chat notice, once per version: the newest version
   * announced is kept in the ota namespace, and only a newer one is announced
   * (an older one the feed falls back to, or the same one after a reboot, is
   * not). The outbox's own key memory is short; this record is not.
   */
  private notify(version: string, notes: string): void {
    const store = this.ctx.store(OTA_NS);
    const found = parseVersion(version);
    const last = parseVersion(store.strOrNull(K_ANNOUNCED));
    if (!found || (last && compareVersions(found, last) <= 0)) return;
    const excerpt = capBytes(replaceEvery(notes, WHITESPACE_RUNS, ' ').trim(), 300);
    const text = `Firmware ${version} is available (running ${this.ctx.hal.build.version}).${excerpt ? ` ${excerpt}` : ''} Reply /update to install it.`;
    if (this.deps.outbox.post(`ota-available:${version}`, text)) this.ctx.log.info('ota', `owner notice queued for ${version}`);
    store.set(K_ANNOUNCED, version);
  }

  // --- apply ---------------------------------------------------------------

  /**
   * The one install entry point (web, menu, chat /update, console, auto).
   * Refusals are immediate (HTTP 409); an accepted install runs in the
   * background (HTTP 202): it re-reads the manifest, installs and restarts.
   */
  apply(opts: ApplyOptions): ApplyTicket {
    const refuse = (reason: ApplyRefusal): ApplyTicket => ({
      ok: false,
      reason,
      message: REFUSAL_TEXT[reason],
      offer: reason === 'need-power' || reason === 'need-recalibrate' ? FORCE_OFFER : null,
    });
    const { hal } = this.ctx;
    if (this.ctx.mode !== 1) return refuse('notifier');
    if (this.job) return refuse('busy');
    if (this.confirmingVersion) return refuse('confirming');
    if (!heapAllows(hal.system.heap())) return refuse('low-heap');
    const force = opts.force === true;
    if (!force && this.result === 'up-to-date') return refuse('up-to-date');
    if (!force) {
      // The battery model's calibrated level and health estimate (src/power): the gate's one source.
      const reading = this.deps.power.reading();
      const battery = opts.source === 'auto' ? (autoBatteryAllows(reading) ? null : 'need-power') : batteryRefusal(reading);
      if (battery) return refuse(battery);
    }
    const done = this.runApplyJob(opts);
    this.job = done.finally(() => (this.job = null));
    return { ok: true, done };
  }

  private async runApplyJob(opts: ApplyOptions): Promise<InstallOutcome> {
    const { hal, log } = this.ctx;
    const dry = opts.dry === true;
    this.setEngine('checking');
    let outcome: InstallOutcome;
    try {
      const checked = await this.fetchVerdict();
      this.settle(checked);
      const c = checked.candidate;
      if (!c) {
        if (checked.error === 'sig') {
          this.guard.setLastOta('sig-fail');
          return { kind: 'failed', lastOta: 'sig-fail', error: 'sig', detail: checked.detail };
        }
        if (checked.result === 'up-to-date') return { kind: 'up-to-date', version: checked.latest };
        return { kind: 'failed', lastOta: this.guard.lastOta() ?? '', error: checked.error, detail: checked.detail };
      }
      // Auto moves only forward; a manual same or older install needs force from the web (or the test console).
      const sideways = opts.force === true && (opts.source === 'web' || opts.source === 'console');
      if (!c.newer && !sideways) return { kind: 'up-to-date', version: c.manifest.version };
      outcome = await runInstall(
        {
          hal,
          client: this.deps.client,
          sha256: this.deps.sha256,
          p256: this.deps.p256,
          keys: this.keys,
          guard: this.guard,
          log,
          onPhase: (p) => this.setEngine(p),
          onProgress: (pct) => {
            this.pct = pct;
            this.deps.ring.progress(pct);
          },
          hold: (stage) => this.hold(stage),
        },
        c,
        dry,
      );
      if (outcome.kind === 'failed') this.err = outcome.error;
      if (outcome.kind === 'restarting') {
        this.deps.timeline.row('update', `installing firmware ${c.manifest.version} (from ${hal.build.version})${c.manifest.notes ? `: ${capBytes(c.manifest.notes, 300)}` : ''}`);
        this.setEngine('restarting');
        log.info('ota', `restarting into ${c.manifest.version}`);
        hal.clock.setTimeout(() => hal.system.reboot('ota'), RESTART_DELAY_MS);
        return outcome;
      }
      return outcome;
    } finally {
      if (this.engine !== 'restarting') {
        this.setEngine(this.idleEngine());
        this.deps.ring.progress(null);
        this.pct = 0;
      }
    }
  }

  private hold(stage: HoldStage): Promise<void> {
    if (!this.holds.has(stage)) return Promise.resolve();
    this.ctx.log.info('ota', `held at ${stage} (OTASIM hold)`);
    return new Promise<void>(() => {});
  }

  /** OTASIM arm <ver>: the guard as an install leaves it between arming and the flip. */
  simulateArm(version: string): boolean {
    if (!parseVersion(version) || this.job) return false;
    this.guard.setLastOta(`installing ${version}`);
    this.guard.arm(version, this.ctx.hal.flash.runningSlot());
    this.ctx.log.info('ota', `armed for ${version} without a flip (OTASIM arm)`);
    return true;
  }

  // --- auto-install ----------------------------------------------------------

  private autoTick(): void {
    if (!this.autoEnabled() || this.ctx.mode !== 1 || this.job || this.confirmingVersion) return;
    if (this.result !== 'new-version' || !this.latest) return;
    const latest = parseVersion(this.latest);
    const running = parseVersion(this.ctx.hal.build.version);
    if (!latest || (running && compareVersions(latest, running) <= 0)) return;
    if (this.busyProbes.some((p) => p())) return;
    const ticket = this.apply({ source: 'auto' });
    this.ctx.log.info('ota', ticket.ok ? `auto-install of ${this.latest} started` : `auto-install of ${this.latest} waits: ${ticket.reason}`);
  }

  // --- healthy window ---------------------------------------------------------

  private startConfirming(version: string): void {
    const { hal } = this.ctx;
    this.confirmingVersion = version;
    this.setEngine('confirming');
    let wifiSeen = false;
    const poll = hal.clock.setInterval(() => {
      if (!wifiSeen && hal.wifi.station().state === 'connected') wifiSeen = true;
      const up = hal.clock.monoMs();
      if ((wifiSeen && up >= HEALTHY_MS) || up >= HEALTHY_NO_WIFI_MS) {
        poll.cancel();
        this.confirm(version, wifiSeen);
      }
    }, HEALTH_POLL_MS);
    this.timers.push(poll);
  }

  private confirm(version: string, wifiSeen: boolean): void {
    this.guard.clear(`ok ${version}`);
    this.confirmingVersion = null;
    if (this.engine === 'confirming') this.setEngine('idle');
    this.ctx.log.info('ota', `${version} confirmed after a healthy run${wifiSeen ? '' : ' (Wi-Fi never came up)'}`);
    this.deps.timeline.row('update', `firmware ${version} confirmed after a healthy run`);
  }
}
