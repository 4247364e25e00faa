// Boot: the HAL's boot-time parts (the NVS cache, the fault layer, the
// shutdown hooks, the TLS clock gate, the hot loops) and the update guard,
// then the kernel and every subsystem, mounted in the order computed from
// what each declares it needs and provides (src/core/boot-order.ts), then
// the console and, in Orchestrator mode, the HTTP server. Each subsystem decides from kernel.mode in its
// own install what it runs (docs/decisions.md, "Modes, Wi-Fi, mDNS and the
// Notifier link"): Orchestrator mode runs Wi-Fi, HTTP, the assistant and the
// setup network; Notifier mode only the Bluetooth link, the ring and the
// screen (and the console).

import { createKernel, storesOn } from './core/kernel.ts';
import { mountAll } from './core/boot-order.ts';
import { mount, type AnySubsystem, type Later, type Subsystem } from './core/subsystem.ts';
import { api } from './api/index.ts';
import { auth as authSubsystem, SCAN_LIFETIME_MS, type SignInCodes } from './auth/index.ts';
import type { Kernel, Mode } from './core/kernel.ts';
import { chooseHotspots, describeHotspots, type Hotspots } from './core/hotspots.ts';
import { CachedNvs } from './core/nvs-cache.ts';
import { ShutdownHooks } from './core/shutdown.ts';
import type { Store } from './core/store.ts';
import type { Hal } from './hal/index.ts';
import { Log } from './log/log.ts';
import { HttpServer } from './net/http/server.ts';
import { providers as providerSubsystem } from './providers/index.ts';
import { prompt } from './prompt/index.ts';
import type { turnCodec} from './turn/index.ts';
import { turn, type Assistant, type TurnOptions, type TurnWire } from './turn/index.ts';
import { storage } from './storage/index.ts';
import { files as filesSubsystem, type Files } from './files/index.ts';
import { music as musicSubsystem } from './music/index.ts';
import { memory as memorySubsystem, type Memory } from './memory/index.ts';
import { system as systemSubsystem } from './system/index.ts';
import { timeline as timelineSubsystem } from './timeline/index.ts';
import { web } from './web/index.ts';
import { mcp } from './mcp/index.ts';
import { docs as docsSubsystem } from './docs/index.ts';
import { agents as agentsSubsystem, type Agents } from './agents/index.ts';
import { chat as chatSubsystem } from './chat/index.ts';
import { outbox as outboxSubsystem } from './outbox/index.ts';
import { ota as otaSubsystem, runBootGuard, type BootVerdict, type Updates } from './ota/index.ts';
import { nativeUtf8InUse, useNativeUtf8 } from './util/utf8.ts';
import type { RandomFill } from './util/ids.ts';
import { Faults, faults as faultsSubsystem, withFaults } from './faults/index.ts';
import { device as deviceSubsystem } from './device/index.ts';
import { power as powerSubsystem, type Power } from './power/index.ts';
import { audio as audioSubsystem } from './audio/index.ts';
import { wifi as wifiSubsystem } from './wifi/index.ts';
import { notifier as notifierSubsystem, type NotifierLink } from './notifier/index.ts';
import { unavailable } from './console/index.ts';
import { schedule, type Scheduler } from './schedule/index.ts';
import { skills as skillsSubsystem, type skillPrompts } from './skills/index.ts';
import { cloud as cloudSubsystem } from './cloud/index.ts';
import { connectors as connectorsSubsystem, type Connectors } from './connectors/index.ts';
import { models } from './models/index.ts';
import { search } from './search/index.ts';
import { images } from './images/index.ts';
import { stt } from './stt/index.ts';
import { voice as voiceSubsystem } from './voice/index.ts';
import { ui as uiSubsystem, type Ui } from './ui/index.ts';
import { clock as clockSubsystem, ClockSync, gateTlsOnClock } from './clock/index.ts';

export const HTTP_PORT = 80;
/** How often the firmware feeds the task watchdog (hosts/esp32/sdkconfig: 8 s; the simulator board: --watchdog-ms). */
export const WATCHDOG_FEED_MS = 1000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type FaceOf<S> = S extends Subsystem<any, infer F> ? F : never;

/** The parts the boot hands out (givenParts): the HAL's boot-time parts and the update guard's verdict. */
type BootPart =
  | 'faults' | 'shutdown' | 'clockSync' | 'hotspots' | 'sha256' | 'p256'
  | 'otaVerdict';

/** Every part the boot hands out or a subsystem provides, by name: what a need of that name receives. */
export interface Parts {
  // The boot's: the HAL's boot-time parts and, made here until their subsystems make them, the shared objects.
  faults: Faults;
  shutdown: ShutdownHooks;
  clockSync: ClockSync;
  hotspots: Hotspots;
  sha256: Hotspots['sha256'];
  p256: Hotspots['p256'];
  otaVerdict: BootVerdict;
  // The subsystems'.
  outbox: FaceOf<typeof outboxSubsystem>;
  audio: FaceOf<typeof audioSubsystem>;
  token: FaceOf<typeof authSubsystem>['token'];
  signin: FaceOf<typeof authSubsystem>['signin'];
  secrets: FaceOf<typeof authSubsystem>['secrets'];
  passphrase: FaceOf<typeof authSubsystem>['passphrase'];
  updates: FaceOf<typeof otaSubsystem>;
  power: FaceOf<typeof powerSubsystem>;
  actions: FaceOf<typeof deviceSubsystem>['actions'];
  ring: FaceOf<typeof deviceSubsystem>['ring'];
  card: FaceOf<typeof storage>;
  timeline: FaceOf<typeof timelineSubsystem>;
  time: FaceOf<typeof systemSubsystem>['time'];
  network: FaceOf<typeof wifiSubsystem>['network'];
  client: FaceOf<typeof wifiSubsystem>['client'];
  tls: FaceOf<typeof wifiSubsystem>['tls'];
  relay: FaceOf<typeof cloudSubsystem>['relay'];
  providers: FaceOf<typeof providerSubsystem>['settings'];
  wire: FaceOf<typeof providerSubsystem>['wire'];
  usage: FaceOf<typeof providerSubsystem>['usage'];
  memory: Memory;
  music: FaceOf<typeof musicSubsystem>;
  files: Files;
  fileResources: FaceOf<typeof filesSubsystem>['resources'];
  docResources: FaceOf<typeof docsSubsystem>['resources'];
  connectors: Connectors;
  blocks: FaceOf<typeof prompt>['blocks'];
  assistant: Assistant;
  compactor: FaceOf<typeof turn>['compactor'];
  engine: Assistant['engine'];
  turnCodec: typeof turnCodec;
  agents: Agents;
  skills: FaceOf<typeof skillsSubsystem>;
  skillPrompts: ReturnType<typeof skillPrompts>;
  catalog: FaceOf<typeof models>['catalog'];
  voice: FaceOf<typeof voiceSubsystem>;
  scheduler: Scheduler;
  ui: Ui;
  notifier: NotifierLink;
  chat: FaceOf<typeof chatSubsystem>;
  people: FaceOf<typeof chatSubsystem>['people'];
  commands: FaceOf<typeof chatSubsystem>['commands'];
}

/** A late need receives a Later of its part. */
type PartOf<V> = V extends Later<infer T> ? T : V;
/** For each option: its part fits (or, not a part, it is optional). */
type NeedsMet<O> = { [K in keyof O]-?: K extends keyof Parts ? (Parts[K] extends PartOf<NonNullable<O[K]>> ? true : false) : undefined extends O[K] ? true : false };

/** A subsystem whose every option is a part of that name that fits its type: checked when main.ts compiles. */
function fits<O, F>(s: Subsystem<O, F> & (false extends NeedsMet<O>[keyof O] ? { needsDoNotFit: NeedsMet<O> } : unknown)): AnySubsystem {
  return s;
}

/**
 * What the boot made and mounted, for the hosts and the tests (dev.ctx.memory, dev.ctx.ota ...): the kernel and
 * every part. No subsystem receives it; each gets what it declares.
 */
export interface DeviceParts extends Kernel, Parts {
  random: RandomFill;
  ota: Updates;
}

export interface Device {
  /** The parts (see DeviceParts). */
  ctx: DeviceParts;
  /** The artifact store, downloads and the chat's hooks (src/files/). */
  files: Files;
  /** Injected faults (test builds; console FAULT): the HAL every subsystem holds is wrapped by src/faults/hal.ts. */
  faults: Faults;
  /** The battery model, power profiles, sleep (src/power/). */
  power: Power;
  assistant: Assistant;
  /** The sub-agent fabric (src/agents/). */
  agents: Agents;
  /** Routines, wakeups and reminders (src/schedule/). */
  scheduler: Scheduler;
  /** The device screen (src/ui/; its face: src/ui/index.ts): its API for other subsystems is in src/ui/ui.ts. */
  ui: Ui;
  /** The Bluetooth LE Notifier link (src/notifier/): running in Notifier mode only. */
  notifier: NotifierLink;
  http: HttpServer | null;
  stop(): void;
}

function readMode(store: Store): Mode {
  return store.int('mode', 1) === 0 ? 0 : 1;
}

export interface BootOptions {
  /** A provider wire to use instead of the real one (tests). */
  wire?: TurnWire;
}

/** The subsystems, in rank order (docs/architecture.md): the boot mounts each after what it needs (src/core/boot-order.ts). */
export const SUBSYSTEMS: readonly AnySubsystem[] = [
  fits(timelineSubsystem), fits(outboxSubsystem), fits(storage), fits(faultsSubsystem), fits(deviceSubsystem),
  fits(powerSubsystem), fits(authSubsystem), fits(wifiSubsystem), fits(clockSubsystem), fits(cloudSubsystem),
  fits(otaSubsystem), fits(web), fits(docsSubsystem), fits(connectorsSubsystem), fits(providerSubsystem),
  fits(memorySubsystem), fits(filesSubsystem), fits(search), fits(stt), fits(audioSubsystem), fits(musicSubsystem),
  fits(systemSubsystem), fits(prompt), fits(turn), fits(agentsSubsystem), fits(skillsSubsystem), fits(models),
  fits(images), fits(voiceSubsystem), fits(chatSubsystem), fits(schedule), fits(mcp), fits(uiSubsystem),
  fits(notifierSubsystem), fits(api),
];

/** The HAL at boot, with its boot-time parts: the NVS cache, the fault layer, the shutdown hooks, the TLS clock gate. */
interface BootHal {
  hal: Hal;
  log: Log;
  faults: Faults;
  shutdown: ShutdownHooks;
  clockSync: ClockSync;
  random: RandomFill;
  store: (ns: string) => Store;
}

function bootHal(rawHal: Hal): BootHal {
  // Before anything encodes or decodes: with the host's C, every UTF-8 call runs it.
  useNativeUtf8(rawHal.natives.utf8 ?? null);
  // Every NVS read in the firmware goes through one write-through cache.
  const cached: Hal = { ...rawHal, nvs: new CachedNvs(rawHal.nvs) };
  // Test builds: every subsystem gets the HAL through the fault layer (console FAULT).
  const faults = new Faults(rawHal.build.testBuild);
  const faulted: Hal = rawHal.build.testBuild ? withFaults(cached, faults) : cached;
  const log = new Log(faulted.clock, faulted.system);
  log.info('boot', `${faulted.build.version} (${faulted.build.buildId}) on ${faulted.board.type}, reset: ${faulted.system.resetReason()}`);
  const random = (bytes: Uint8Array): void => faulted.system.random(bytes);
  // Network time, and every certificate-checking connection held until it is set (src/clock/).
  const clockSync = new ClockSync({ net: faulted.net, clock: faulted.clock, random, log });
  // An orderly restart or sleep, whoever asks for it, runs the shutdown hooks first (mDNS's goodbye).
  const shutdown = new ShutdownHooks();
  const hal: Hal = { ...faulted, system: shutdown.wrap(faulted.system), net: gateTlsOnClock(faulted.net, faulted.clock, clockSync) };
  return { hal, log, faults, shutdown, clockSync, random, store: storesOn(hal.nvs) };
}

/** What the boot hands the subsystems: the HAL's boot-time parts, and the shared objects not yet made in their own mounts. */
function givenParts(b: BootHal): Pick<Parts, BootPart> {
  const { hal, log, store } = b;
  // First thing: the update guard counts this boot and may roll back (src/ota/guard.ts).
  const otaVerdict = runBootGuard(hal, store('ota'), log);
  const hotspots = chooseHotspots(hal);
  log.info('boot', `hotspots: ${describeHotspots(hotspots)}, utf8 ${nativeUtf8InUse() ? 'C' : 'TS'}`);
  return {
    faults: b.faults,
    shutdown: b.shutdown,
    clockSync: b.clockSync,
    hotspots,
    sha256: hotspots.sha256,
    p256: hotspots.p256,
    otaVerdict,
  };
}

/** Orchestrator mode: HTTP on port 80, its HTTP? command, and the sign-in link the host prints. */
function serveHttp(kernel: Kernel, signin: SignInCodes): HttpServer | null {
  const { hal, log } = kernel;
  if (kernel.mode !== 1) {
    log.info('boot', 'Notifier mode: Wi-Fi off, the Bluetooth link up');
    hal.system.announce({ http: false, signInPath: null });
    return null;
  }
  const server = new HttpServer(hal.net, hal.clock, kernel.router, undefined, (m) => log.error('http', m));
  server.listen(HTTP_PORT);
  kernel.console.register({
    verb: 'HTTP?',
    maxArgs: 0,
    help: 'HTTP server: connections open (trusted: showed the token), accepted, requests, rejected, evicted, refused at the head, timed out',
    run: (c) => {
      const s = server.stats;
      c.out(`open=${s.open} trusted=${s.trusted} accepted=${s.accepted} requests=${s.requests} rejected=${s.rejected} evicted=${s.evicted} refused=${s.refused} timedOut=${s.timedOut}`);
    },
  });
  const code = signin.mint(SCAN_LIFETIME_MS);
  log.info('boot', 'Orchestrator mode: HTTP up');
  hal.system.announce({ http: true, signInPath: `/?c=${code.code}` });
  return server;
}

export function boot(rawHal: Hal, options: BootOptions = {}): Device {
  const b = bootHal(rawHal);
  const { hal, log, store } = b;
  const given = givenParts(b);
  // Before any subsystem installs, so each can register its routes, commands, tools and status.
  const kernel = createKernel(hal, log, { mode: readMode(store('sys')), store });
  const wire = options.wire;
  // A test's provider wire goes to the turn alone; the others keep the real one.
  const list = wire ? SUBSYSTEMS.map((s) => (s === turn ? { ...turn, start: (k: Kernel, o: TurnOptions) => turn.start(k, { ...o, wire }) } : s)) : SUBSYSTEMS;
  const parts = mountAll(kernel, list, given) as unknown as Parts;
  // Last: the spec's commands no subsystem has registered answer "unavailable".
  mount(kernel, unavailable, {});
  kernel.console.start();
  const { ui, notifier, agents, scheduler, voice, relay, updates, power, files, assistant, audio, chat } = parts;
  const feed = hal.clock.setInterval(() => {
    hal.system.feedWatchdog();
    // The screen's idle check rides the same once-a-second wake-up (src/ui/ui.ts).
    ui.poll();
  }, WATCHDOG_FEED_MS);
  hal.system.feedWatchdog();
  const http = serveHttp(kernel, parts.signin);
  ui.start();
  const ctx: DeviceParts = { ...kernel, random: b.random, ...parts, ota: updates };
  return {
    ctx,
    files,
    faults: b.faults,
    power,
    assistant,
    agents,
    scheduler,
    ui,
    notifier,
    http,
    stop() {
      feed.cancel();
      b.clockSync.stop();
      for (const s of [ui, notifier, agents, scheduler, updates, power, voice, audio, chat, relay]) s.stop();
      http?.close();
    },
  };
}
