// The simulated device as a whole: it owns the device folder and every
// peripheral, plays the bootloader (otadata, rollback, extracting the boot
// slot's bundle to run/), runs one runtime process per boot, dispatches its
// ops, and decides what follows each exit (reboot, deep sleep, halt, crash
// reboot, watchdog reset). The control socket and the CLI drive it.

import { closeSync, existsSync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { accessSync, constants as fsc } from 'node:fs';
import { BOARD_DESCRIPTORS, toBoardInfo, type BoardDescriptor } from '../../../boards/index.ts';
import type { DeviceType, ResetReason } from '../../../src/hal/index.ts';
import { AudioOut } from './audio.ts';
import { MicIn } from './mic.ts';
import { BatteryGauge } from './battery.ts';
import { BleRadio } from './ble.ts';
import type { SerialConsole } from './console.ts';
import { DeviceFolder } from './device.ts';
import { DisplayPanel } from './display.ts';
import { BoardError, errorText } from './errors.ts';
import { mergePacks } from './assets-merge.ts';
import { FlashChip } from './flash.ts';
import { FRAME_CALL, FRAME_EVENT, FRAME_REPLY, FRAME_SEND, FRAME_WARP, type Frame } from './frames.ts';
import { parseImage, type ImageHeader } from './image.ts';
import { NvsStore } from './nvs.ts';
import { opTable } from './ops.ts';
import { LedRing } from './ring.ts';
import { RuntimeProcess, type RuntimeExit } from './runtime.ts';
import { SdCard } from './sdcard.ts';
import type { BoardContext, Json, OpHandler, Reply, Service, Session } from './service.ts';
import { SystemService } from './system.ts';
import { parseRoute, Tcp } from './tcp.ts';
import { TimeServer } from './timeserver.ts';
import { Lan } from './lan.ts';
import { DNS_PORT, Udp } from './udp.ts';
import { Radio, SETUP_AP_ADDRESS } from './wifi.ts';

export interface BoardOptions {
  deviceDir: string;
  board?: DeviceType;
  /** --http-port: the real port behind the firmware's port 80 (0 = any free port). */
  httpPort: number;
  mode?: 0 | 1;
  sdSize?: number;
  flash: 'auto' | 'always' | 'never';
  image: string;
  /** The fonts partition's pack (flashed with the image when it changed), or null: the partition is erased (a device without the CJK glyphs). */
  fonts?: string | null;
  routes: string[];
  /** --mdns-port: the real loopback port the home network's mDNS group is bridged to (./lan.ts), or none. */
  mdnsPort?: number | null;
  /** --mdns-address: the device's own loopback address on that bridge (default 127.0.0.2). */
  mdnsAddress?: string;
  heapMax?: number;
  quiet: boolean;
  watchdogMs: number;
  runtime: string;
  /** Info lines (HTTP:, Sign-in:, Console:) for the person at the terminal. */
  print(line: string): void;
  /** Diagnostics for the person (stderr). */
  warn(line: string): void;
}

export type BoardState = 'starting' | 'running' | 'halted' | 'sleeping' | 'rebooting' | 'stopped';

const EXIT_NAMES: Record<number, string> = {
  70: 'unhandled exception',
  71: 'out of memory',
  72: 'stack overflow',
  73: 'pipe closed or malformed frame',
  74: 'bundle unreadable or unparsable',
  75: 'XS abort',
};

const CRASH_REBOOT_MS = 200;
const SPAWN_RETRIES = 10;
const SPAWN_RETRY_MS = 200;
const LOG_HISTORY = 2000;
const LOG_ROTATE_BYTES = 16 * 1024 * 1024;
/** Resets after which the ESP32's RTC still holds the time (ESP-IDF keeps it across all but a power-on reset). */
const RTC_KEEPS: ReadonlySet<ResetReason> = new Set<ResetReason>(['software', 'panic', 'watchdog', 'deep-sleep']);

interface KillPlan {
  reason: ResetReason;
  /** Counts as a failed boot (watchdog). */
  failed: boolean;
  why: string;
}

export interface ExitRecord {
  boot: number;
  code: number | null;
  signal: string | null;
  /** What the board made of it: reboot, deep-sleep, halt, crash, watchdog, power-cut, reset. */
  outcome: string;
}

export interface ReadyRecord {
  boot: number;
  http: boolean;
  signInPath: string | null;
}

interface Waiter {
  kind: 'boot' | 'ready' | 'exit' | 'log';
  after: number;
  match?: string;
  resolve(v: Json): void;
}

class BootSession implements Session {
  ended = false;
  ready: ReadyRecord | null = null;
  fed = false;
  sleepMs: number | null = null;
  rebootReason: string | null = null;
  watchdog: NodeJS.Timeout | null = null;
  runtime!: RuntimeProcess;

  constructor(
    readonly boot: number,
    readonly slot: 0 | 1,
    readonly resetReason: ResetReason,
    readonly build: ImageHeader,
  ) {}

  get alive(): boolean {
    return !this.ended && this.runtime.alive;
  }

  emit(type: string, fields: Json = {}, bin?: Uint8Array): void {
    if (!this.alive) return;
    this.runtime.write(FRAME_EVENT, 0, JSON.stringify({ type, ...fields }), bin);
  }

  warp(ms: number): void {
    if (this.alive) this.runtime.write(FRAME_WARP, 0, JSON.stringify({ ms }));
  }

  get congested(): boolean {
    return this.alive && this.runtime.congested;
  }

  onDrain(fn: () => void): void {
    if (!this.alive) return;
    this.runtime.onDrain(fn);
  }
}

export class Board implements BoardContext {
  readonly device: DeviceFolder;
  readonly flash: FlashChip;
  readonly nvs: NvsStore;
  readonly sd: SdCard;
  readonly tcp: Tcp;
  readonly udp: Udp;
  readonly time: TimeServer;
  readonly radio: Radio;
  /** The home network's multicast side: mDNS (./lan.ts). */
  readonly lan: Lan;
  readonly display: DisplayPanel;
  readonly ring: LedRing;
  readonly battery: BatteryGauge;
  readonly audio: AudioOut;
  readonly mic: MicIn;
  readonly ble: BleRadio;
  readonly system: SystemService;
  private readonly services: Service[];
  private readonly table: Map<string, OpHandler>;

  state: BoardState = 'starting';
  bootCount = 0;
  failedBoots = 0;
  session: BootSession | null = null;
  lastExit: ExitRecord | null = null;
  lastReady: ReadyRecord | null = null;
  /** Every warp sent, in ms: the board's world time runs this far ahead of real time. */
  warpedMs = 0;
  /** The RTC: the firmware's wall clock minus world time, as last set; null until set, and after a power-on. */
  private rtcOffset: number | null = null;
  console: SerialConsole | null = null;
  private kill: KillPlan | null = null;
  private spawnFailures = 0;
  private nextBoot: NodeJS.Timeout | null = null;
  private stopping = false;
  private printed = '';
  private logFd: number;
  private logBytes: number;
  private logs: Array<{ boot: number; line: string }> = [];
  private waiters = new Set<Waiter>();
  private exitWaiters: Array<() => void> = [];
  /** Set when the board cannot go on (no bootable image, no runtime). */
  onFatal: (message: string) => void = () => {};
  readonly startedAt = performance.now();
  /** ms from the board process's start to the first runtime's spawn. */
  firstSpawnMs: number | null = null;

  constructor(private readonly opts: BoardOptions) {
    this.device = new DeviceFolder(opts.deviceDir, opts.board);
    this.logFd = openSync(this.device.path('device.log'), 'a');
    this.logBytes = fstatSync(this.logFd).size;
    if (opts.sdSize !== undefined) this.device.update((c) => (c.sd.sizeBytes = opts.sdSize!));
    this.flash = new FlashChip(this.device.path('flash.bin'));
    const nvsPart = this.flash.rows.find((r) => r.name === 'nvs');
    this.nvs = new NvsStore(this.device.path('nvs.json'), nvsPart?.size ?? 0x6000);
    const cfg = this.device.config;
    this.sd = new SdCard(this.device.path('sd'), cfg.sd.sizeBytes, cfg.sd.inserted, (sizeBytes, inserted) =>
      this.device.update((c) => (c.sd = { sizeBytes, inserted })),
    );
    this.tcp = new Tcp(
      opts.httpPort,
      cfg.httpPort,
      (port) => this.device.update((c) => (c.httpPort = port)),
      () => this.announce(),
    );
    for (const r of opts.routes) {
      const { from, to } = parseRoute(r);
      const [host, port] = [from.slice(0, from.lastIndexOf(':')), Number(from.slice(from.lastIndexOf(':') + 1))];
      this.tcp.addRoute(host, port, to);
    }
    this.radio = new Radio(this.device);
    this.lan = new Lan({ port: opts.mdnsPort ?? null, address: opts.mdnsAddress ?? '127.0.0.2' }, { online: () => this.radio.online(), log: (line) => this.log(line) });
    this.radio.onOffline = () => this.lan.offline();
    this.time = new TimeServer(() => this.worldNow());
    this.udp = new Udp(this.tcp.routes, { timeServerPort: () => this.time.port, apUp: () => this.radio.apUp() }, this.lan);
    const d = this.descriptor();
    this.display = new DisplayPanel(d.display.width, d.display.height);
    this.ring = new LedRing(d.ring?.leds ?? 0);
    this.battery = new BatteryGauge(() => this.descriptor(), this.device);
    this.audio = new AudioOut(this.device);
    this.mic = new MicIn(this.device);
    this.ble = new BleRadio(this.device);
    this.system = new SystemService(() => this.descriptor().psramBytes, {
      feed: (s) => this.feed(s as BootSession),
      rebooting: (s, reason) => {
        (s as BootSession).rebootReason = reason;
        this.log(`board: the firmware reboots${reason ? ` (${reason})` : ''}`);
      },
      sleeping: (s, ms) => {
        (s as BootSession).sleepMs = ms;
      },
      ready: (s, http, signInPath) => this.ready(s as BootSession, http, signInPath),
    });
    const own: Service = {
      ops: {
        'board.info': (_a, _b, s) => this.boardInfo(s as BootSession),
        // The firmware set its wall clock: the RTC keeps it (see boardInfo).
        'clock.set': (a) => {
          const ms = a['wallMs'];
          if (typeof ms !== 'number' || !Number.isFinite(ms)) throw new TypeError('wallMs must be a number');
          this.rtcOffset = ms - this.worldNow();
        },
        'serial.write': (_a, bin) => {
          this.console?.write(bin);
        },
        // RENDER?: the firmware asks for the panel as display.png (what the screen shows).
        'display.snapshot': () => {
          const path = this.display.snapshot(this.device.path('display.png'));
          return { json: { path, width: this.display.width, height: this.display.height, sha256: this.display.sha256() } };
        },
      },
    };
    this.services = [this.flash, this.nvs, this.sd, this.tcp, this.udp, this.time, this.radio, this.display, this.ring, this.battery, this.audio, this.mic, this.ble, this.system, own];
    this.table = opTable(this.services);
  }

  descriptor(): BoardDescriptor {
    return BOARD_DESCRIPTORS[this.device.config.board];
  }

  // ---- messages ----

  private appendLog(line: string): void {
    try {
      const bytes = Buffer.from(line + '\n', 'utf8');
      writeSync(this.logFd, bytes);
      this.logBytes += bytes.length;
      if (this.logBytes > LOG_ROTATE_BYTES) this.rotateLog();
    } catch {
      // the log is best effort
    }
  }

  /** device.log becomes device.log.1 (replacing the older one) past LOG_ROTATE_BYTES. */
  private rotateLog(): void {
    closeSync(this.logFd);
    renameSync(this.device.path('device.log'), this.device.path('device.log.1'));
    this.logFd = openSync(this.device.path('device.log'), 'a');
    this.logBytes = fstatSync(this.logFd).size;
    this.logBytes = 0;
  }

  /** A board message: device.log, and stderr unless --quiet. */
  log(line: string): void {
    this.appendLog(line);
    if (!this.opts.quiet) this.opts.warn(line);
  }

  private firmwareLine(line: string, boot: number): void {
    this.appendLog(line);
    if (!this.opts.quiet) this.opts.warn(line);
    this.logs.push({ boot, line });
    if (this.logs.length > LOG_HISTORY) this.logs.splice(0, this.logs.length - LOG_HISTORY);
    for (const w of this.waiters) if (w.kind === 'log' && boot > w.after && w.match !== undefined && line.includes(w.match)) this.settle(w, { boot, line });
  }

  // ---- flashing and settings before the first boot ----

  /** Writes the fonts partition from --fonts when its bytes differ (none: erases it). */
  private prepareFonts(): void {
    if (!this.flash.fontsPartition || this.opts.fonts === undefined) return;
    const want = this.opts.fonts && existsSync(this.opts.fonts) ? readFileSync(this.opts.fonts) : null;
    const have = this.flash.fontsPack();
    if ((want === null && have === null) || (want && have && want.equals(have))) return;
    this.flash.flashFonts(want);
    this.log(want ? `board: flashed ${this.opts.fonts} (${want.length} bytes) into the fonts partition` : 'board: fonts partition erased');
  }

  /** Flashes the image per --flash, writes --mode; returns false when there is nothing to boot. */
  prepare(): void {
    const { flash, image } = this.opts;
    const have = existsSync(image);
    if (flash !== 'never') {
      if (!have) {
        if (flash === 'always' || this.device.fresh || typeof this.flash.image(0) === 'string') {
          throw new Error(`no firmware image at ${image} (build it: node tools/build.mjs)`);
        }
        this.log(`board: no image at ${image}; booting what the flash holds`);
      } else {
        const bytes = readFileSync(image);
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        const last = this.device.config.flashed;
        if (flash === 'always' || this.device.fresh || !last || last.sha256 !== sha256) {
          const parsed = parseImage(bytes, this.flash.slotSize);
          if (typeof parsed === 'string') throw new Error(`${image}: ${parsed}`);
          this.flash.flashFactory(bytes);
          this.device.update((c) => (c.flashed = { sha256, image, at: new Date().toISOString() }));
          this.log(`board: flashed ${image} (${parsed.header.version}, ${bytes.length} bytes) into slot 0; otadata erased`);
        }
      }
      this.prepareFonts();
    }
    if (this.opts.mode !== undefined) this.nvs.setMany('sys', [['mode', this.opts.mode]]);
    try {
      accessSync(this.opts.runtime, fsc.X_OK);
    } catch {
      throw new Error(`the runtime ${this.opts.runtime} is missing or not executable (build it: node tools/build.mjs)`);
    }
  }

  // ---- boot lifecycle ----

  start(): void {
    this.boot('power-on');
  }

  private boot(reason: ResetReason): void {
    if (this.stopping) return;
    this.nextBoot = null;
    const choice = this.flash.chooseBoot();
    if (typeof choice === 'string') {
      this.fatal(`bootloader: ${choice}`);
      return;
    }
    for (const n of choice.notes) this.log(`bootloader: ${n}`);
    const bundleName = `slot${choice.slot}.js`;
    const assetsName = `slot${choice.slot}.assets`;
    const hasAssets = choice.image.assetsLength > 0;
    try {
      rmSync(this.device.path('run', `slot${choice.slot ^ 1}.js`), { force: true });
      rmSync(this.device.path('run', `slot${choice.slot ^ 1}.assets`), { force: true });
      const extract = (name: string, bytes: Buffer): void => {
        const fd = openSync(this.device.path('run', name), 'w');
        try {
          writeSync(fd, bytes, 0, bytes.length, 0);
        } finally {
          closeSync(fd);
        }
      };
      extract(bundleName, this.flash.bundle(choice.slot, choice.image));
      // the image's assets and the fonts partition's, as one region (hosts/sim/board/assets-merge.ts)
      if (hasAssets) extract(assetsName, mergePacks(this.flash.assets(choice.slot, choice.image), this.flash.fontsPack()));
      else rmSync(this.device.path('run', assetsName), { force: true });
    } catch (e) {
      this.fatal(`cannot extract the bundle to ${this.device.path('run')}: ${errorText(e)}`);
      return;
    }
    this.bootCount++;
    if (!RTC_KEEPS.has(reason)) this.rtcOffset = null;
    const session = new BootSession(this.bootCount, choice.slot, reason, choice.image.header);
    this.session = session;
    this.kill = null;
    this.lan.reset();
    for (const s of this.services) s.start?.(session);
    const args = [...(this.opts.heapMax ? ['--heap-max', String(this.opts.heapMax)] : []), ...(hasAssets ? ['--assets', `run/${assetsName}`] : []), `run/${bundleName}`];
    this.log(`board: boot ${session.boot} (${reason}) from slot ${choice.slot}: ${choice.image.header.version} ${choice.image.header.buildId}`);
    session.runtime = new RuntimeProcess(this.opts.runtime, args, this.device.dir, {
      frame: (f) => this.onFrame(session, f),
      logLine: (line) => this.firmwareLine(line, session.boot),
      diagLine: (line) => this.firmwareLine(line, session.boot),
      protocolError: (m) => this.log(`board: protocol error from the runtime: ${m}; killing it`),
      exit: (e) => this.onExit(session, e),
    });
    this.firstSpawnMs ??= performance.now(); // ms since the board process started
    this.state = 'running';
    for (const w of this.waiters) if (w.kind === 'boot' && session.boot > w.after) this.settle(w, this.bootRecord());
  }

  private bootRecord(): Json {
    const s = this.session;
    return { boot: this.bootCount, resetReason: s?.resetReason ?? null, slot: s?.slot ?? null, pid: s?.runtime.pid ?? null };
  }

  private onExit(session: BootSession, e: RuntimeExit): void {
    session.ended = true;
    if (session.watchdog) clearTimeout(session.watchdog);
    for (const s of this.services) {
      try {
        s.stop?.(session);
      } catch (err) {
        this.log(`board: cleanup after boot ${session.boot}: ${errorText(err)}`);
      }
    }
    const waiting = this.exitWaiters;
    this.exitWaiters = [];
    for (const w of waiting) w();
    if (e.spawnError) {
      // the binary may be being rebuilt (ETXTBSY, ENOENT for a moment): retry a little
      if (++this.spawnFailures <= SPAWN_RETRIES && !this.stopping) {
        this.log(`board: ${e.spawnError}; retrying`);
        this.schedule(session.resetReason, SPAWN_RETRY_MS);
        return;
      }
      this.fatal(e.spawnError);
      return;
    }
    this.spawnFailures = 0;
    const plan = this.kill;
    this.kill = null;
    let outcome: string;
    let next: { reason: ResetReason; delay: number } | null = null;
    if (this.stopping) {
      outcome = 'stopped';
    } else if (plan) {
      outcome = plan.why;
      // a watchdog reset is a failed boot; a reset from outside starts the count afresh
      this.failedBoots = plan.failed ? this.failedBoots + 1 : 0;
      next = { reason: plan.reason, delay: 0 };
    } else if (e.code === 64) {
      outcome = 'reboot';
      this.failedBoots = 0;
      next = { reason: 'software', delay: 0 };
    } else if (e.code === 65) {
      outcome = 'deep-sleep';
      this.failedBoots = 0;
      const ms = session.sleepMs;
      this.log(`board: deep sleep${ms === null ? ' (no wake-up time: until reset)' : ` for ${ms} ms`}`);
      this.state = 'sleeping';
      if (ms !== null) next = { reason: 'deep-sleep', delay: ms };
    } else if (e.code === 0) {
      outcome = 'halt';
      this.failedBoots = 0;
      this.state = 'halted';
      this.log('board: the firmware ended (exit 0); halted until reset (control op reboot, or opening the pty console)');
    } else {
      outcome = 'crash';
      this.failedBoots++;
      const what = e.signal ? `killed by ${e.signal}` : `exit ${e.code}${EXIT_NAMES[e.code ?? -1] ? ` (${EXIT_NAMES[e.code!]})` : ''}`;
      this.log(`board: crash: the runtime ${what}; ${this.failedBoots} failed boot(s) in a row; rebooting (panic)`);
      next = { reason: 'panic', delay: CRASH_REBOOT_MS };
    }
    this.lastExit = { boot: session.boot, code: e.code, signal: e.signal, outcome };
    for (const w of this.waiters) if (w.kind === 'exit' && session.boot > w.after) this.settle(w, { ...this.lastExit });
    if (next) {
      this.state = next.delay ? (outcome === 'deep-sleep' ? 'sleeping' : 'rebooting') : 'rebooting';
      this.schedule(next.reason, next.delay);
    }
  }

  private schedule(reason: ResetReason, delay: number): void {
    if (this.nextBoot) clearTimeout(this.nextBoot);
    this.nextBoot = setTimeout(() => this.boot(reason), delay);
  }

  private fatal(message: string): void {
    this.log(`board: ${message}`);
    this.state = 'stopped';
    this.onFatal(message);
  }

  /**
   * Resets the device now with a reset reason (the reset pin, power, the
   * console opening). A running runtime is killed first.
   */
  reset(reason: ResetReason, why: string, failed = false): Promise<void> {
    // before the first boot (or after a fatal error) there is nothing to reset
    if (this.stopping || this.state === 'starting' || this.state === 'stopped') return Promise.resolve();
    if (this.session && this.session.alive) {
      this.kill = { reason, failed, why };
      const done = new Promise<void>((r) => this.exitWaiters.push(r));
      this.session.runtime.kill('SIGKILL');
      return done;
    }
    if (this.nextBoot) clearTimeout(this.nextBoot);
    this.nextBoot = null;
    if (this.session && !this.session.ended) return Promise.resolve();
    this.boot(reason);
    return Promise.resolve();
  }

  killRuntime(signal: NodeJS.Signals): boolean {
    if (!this.session?.alive) return false;
    this.session.runtime.kill(signal);
    return true;
  }

  private feed(session: BootSession): void {
    if (!session.alive) return;
    session.fed = true;
    if (session.watchdog) clearTimeout(session.watchdog);
    session.watchdog = setTimeout(() => {
      if (!session.alive) return;
      this.log(`board: watchdog: no feed for ${this.opts.watchdogMs} ms; resetting`);
      this.kill = { reason: 'watchdog', failed: true, why: 'watchdog' };
      session.runtime.kill('SIGKILL');
    }, this.opts.watchdogMs);
  }

  private ready(session: BootSession, http: boolean, signInPath: string | null): void {
    const rec: ReadyRecord = { boot: session.boot, http, signInPath };
    session.ready = rec;
    this.lastReady = rec;
    this.announce();
    const port = this.httpPortNow();
    for (const w of this.waiters) if (w.kind === 'ready' && session.boot > w.after) this.settle(w, { ...rec, httpPort: http ? port : null });
  }

  /** The real port behind the firmware's port 80: its listener's, else the one it will get. */
  private httpPortNow(): number | null {
    return this.tcp.httpPort ?? (this.opts.httpPort || this.device.config.httpPort || null);
  }

  /** Prints the HTTP/Sign-in lines of the current boot's ready, when they changed. */
  private announce(): void {
    const rec = this.session?.ready;
    if (!rec) return;
    let lines: string[];
    if (rec.http) {
      const port = this.httpPortNow();
      if (port === null) return; // printed when the port-80 listener is up
      lines = [`HTTP: http://127.0.0.1:${port}/`];
      if (rec.signInPath) lines.push(`Sign-in: http://127.0.0.1:${port}${rec.signInPath.startsWith('/') ? '' : '/'}${rec.signInPath}`);
    } else {
      lines = ['HTTP: off (Notifier mode)'];
    }
    const text = lines.join('\n');
    if (text === this.printed) return;
    this.printed = text;
    for (const l of lines) this.opts.print(l);
  }

  private boardInfo(session: BootSession): Reply {
    const h = session.build;
    return {
      json: {
        board: toBoardInfo(this.descriptor()),
        buttons: this.descriptor().buttons.map((b) => b.name),
        build: { version: h.version, buildId: h.buildId, testBuild: h.testBuild },
        resetReason: session.resetReason,
        rtcMs: this.rtcOffset === null ? null : this.worldNow() + this.rtcOffset,
      },
    };
  }

  // ---- the pipe ----

  private onFrame(session: BootSession, f: Frame): void {
    if (f.kind !== FRAME_CALL && f.kind !== FRAME_SEND) {
      this.log(`board: unexpected frame kind ${f.kind} from the runtime; killing it`);
      session.runtime.kill('SIGKILL');
      return;
    }
    let msg: Json;
    try {
      msg = JSON.parse(f.json) as Json;
      if (typeof msg !== 'object' || msg === null || typeof msg['op'] !== 'string') throw new Error('no op');
    } catch (e) {
      this.log(`board: malformed frame json from the runtime (${errorText(e)}); killing it`);
      session.runtime.kill('SIGKILL');
      return;
    }
    const op = msg['op'] as string;
    const handler = this.table.get(op);
    const isCall = f.kind === FRAME_CALL;
    const reply = (json: Json, bin?: Uint8Array): void => {
      if (isCall && session.alive) session.runtime.write(FRAME_REPLY, f.id, JSON.stringify(json), bin);
    };
    const failWith = (e: unknown): void => {
      const err =
        e instanceof BoardError ? e : e instanceof TypeError || e instanceof RangeError ? new BoardError('EINVAL', `${op}: ${e.message}`) : new BoardError('EIO', `${op}: ${errorText(e)}`);
      if (!(e instanceof BoardError) && !(e instanceof TypeError) && !(e instanceof RangeError)) this.log(`board: ${op} failed: ${errorText(e)}`);
      if (isCall) reply({ ok: false, code: err.code, message: err.message });
      else this.log(`board: ${op} (one-way) failed: ${err.code} ${err.message}`);
    };
    if (!handler) {
      failWith(new BoardError('ENOTSUP', `the board has no op '${op}'`));
      return;
    }
    let result: Reply | void | Promise<Reply | void>;
    try {
      result = handler(msg, f.bin, session);
    } catch (e) {
      failWith(e);
      return;
    }
    if (result instanceof Promise) {
      result.then((r) => reply({ ok: true, ...(r?.json ?? {}) }, r?.bin), failWith);
    } else {
      reply({ ok: true, ...(result?.json ?? {}) }, result?.bin);
    }
  }

  // ---- console, control helpers ----

  serialInput(bytes: Buffer): void {
    this.session?.emit('serial.data', {}, bytes);
  }

  warp(ms: number): boolean {
    if (!this.session?.alive) return false;
    this.session.warp(ms);
    this.warpedMs += ms;
    return true;
  }

  /** The simulated world's time (Unix ms): real time plus every warp. The time server serves it; the RTC counts on it. */
  worldNow(): number {
    return Date.now() + this.warpedMs;
  }

  /** The setup network as a phone that joined it sees it: the device's address, and the real port standing for its DNS (53). */
  setupNetwork(): Json {
    const up = this.radio.apUp();
    return { up, address: up ? SETUP_AP_ADDRESS : null, dnsPort: up ? this.udp.portFor(DNS_PORT) : null };
  }

  emit(type: string, fields: Json = {}, bin?: Uint8Array): boolean {
    if (!this.session?.alive) return false;
    this.session.emit(type, fields, bin);
    return true;
  }

  status(): Json {
    const s = this.session;
    return {
      state: this.state,
      boardPid: process.pid,
      pid: s?.alive ? (s.runtime.pid ?? null) : null,
      board: this.device.config.board,
      bootCount: this.bootCount,
      resetReason: s?.resetReason ?? null,
      runningSlot: s?.slot ?? null,
      build: s ? { version: s.build.version, buildId: s.build.buildId, testBuild: s.build.testBuild } : null,
      slots: this.flash.info(),
      ready: s?.ready ?? null,
      lastExit: this.lastExit,
      failedBoots: this.failedBoots,
      httpPort: this.tcp.httpPort,
      ptyPath: this.console && this.console.description !== 'stdio' ? this.console.description : null,
      watchdogArmed: s?.fed ?? false,
      clock: { rtcMs: this.rtcOffset === null ? null : this.worldNow() + this.rtcOffset, worldMs: this.worldNow(), timeServer: this.time.status() },
      sd: this.sd.status(),
      tcp: this.tcp.status(),
      udp: this.udp.status(),
      setup: this.setupNetwork(),
      wifi: this.radio.status(),
      mdns: this.radio.online() ? this.lan.announced() : null,
      lan: this.lan.status(),
      display: this.display.status(),
      ring: { count: this.ring.count, shows: this.ring.shows },
      battery: this.battery.reading(),
      audio: this.audio.status(),
      mic: this.mic.status(),
      ble: this.ble.status(),
      heap: this.system.heap(),
      firstSpawnMs: this.firstSpawnMs,
      // the part of it after Node had started and loaded the board
      firstSpawnAfterInitMs: this.firstSpawnMs === null ? null : this.firstSpawnMs - this.startedAt,
    };
  }

  /**
   * Waits for the next boot / ready / exit / log line. `after` is a boot
   * number: events of boots after it count (default: a boot after the current
   * one for 'boot'; the current boot for the others, including what already
   * happened in it).
   */
  wait(kind: Waiter['kind'], timeoutMs: number, after?: number, match?: string): Promise<Json> {
    const since = after ?? (kind === 'boot' ? this.bootCount : this.bootCount - 1);
    if (kind === 'boot' && this.bootCount > since) return Promise.resolve(this.bootRecord());
    if (kind === 'ready' && this.lastReady && this.lastReady.boot > since) return Promise.resolve({ ...this.lastReady, httpPort: this.lastReady.http ? this.httpPortNow() : null });
    if (kind === 'exit' && this.lastExit && this.lastExit.boot > since) return Promise.resolve({ ...this.lastExit });
    if (kind === 'log') {
      if (match === undefined) return Promise.reject(new BoardError('EINVAL', "wait for 'log' needs match"));
      const hit = this.logs.find((l) => l.boot > since && l.line.includes(match));
      if (hit) return Promise.resolve({ ...hit });
    }
    return new Promise((resolve, reject) => {
      const w: Waiter = { kind, after: since, match, resolve };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        reject(new BoardError('ETIMEDOUT', `no ${kind}${match ? ` matching '${match}'` : ''} within ${timeoutMs} ms`));
      }, timeoutMs);
      w.resolve = (v) => {
        clearTimeout(timer);
        resolve(v);
      };
      this.waiters.add(w);
    });
  }

  private settle(w: Waiter, v: Json): void {
    this.waiters.delete(w);
    w.resolve(v);
  }

  /** Stops everything: the runtime is killed (a power-off), nothing in the device folder is removed. */
  async shutdown(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.nextBoot) clearTimeout(this.nextBoot);
    const s = this.session;
    if (s && s.alive) {
      const done = new Promise<void>((r) => this.exitWaiters.push(r));
      s.runtime.kill('SIGKILL');
      await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
    }
    for (const svc of this.services) {
      try {
        svc.shutdown?.();
      } catch {
        // best effort on the way out
      }
    }
    this.lan.shutdown();
    this.state = 'stopped';
    try {
      closeSync(this.logFd);
    } catch {
      // closed
    }
  }
}
