// A kernel on the in-memory HAL for unit tests (issue 25): a test mounts the
// subsystem under test with its declared options (real lower subsystems or
// small fakes) instead of booting the whole device from src/main.ts. The
// helpers below make a lower subsystem's parts as main.ts makes them, so a
// test of a higher one can pass the real thing in its options.
import { chooseHotspots, type Hotspots } from '../../src/core/hotspots.ts';
import { latePart } from '../../src/core/boot-order.ts';
import { createKernel, storesOn, type Kernel, type Mode } from '../../src/core/kernel.ts';
import type { Gate } from '../../src/core/router.ts';
import { mount, ready, unmountAll, type Later } from '../../src/core/subsystem.ts';
import { auth, type AuthFace, type SetupPassphrase, type SignInCodes } from '../../src/auth/index.ts';
import { type AccessToken } from '../../src/auth/token.ts';
import { type Secrets } from '../../src/auth/secrets.ts';
import { device, type DeviceActions, type DeviceFace, type DeviceOptions } from '../../src/device/index.ts';
import { RingEngine } from '../../src/device/ring-engine.ts';
import { Outbox, OUTBOX_NS } from '../../src/outbox/outbox.ts';
import { files, type Files } from '../../src/files/index.ts';
import { Log } from '../../src/log/log.ts';
import { ota, runBootGuard, type OtaOptions, type Updates } from '../../src/ota/index.ts';
import { Power } from '../../src/power/index.ts';
import type * as Main from '../../src/main.ts';
import { memory, type Memory, type MemoryOptions } from '../../src/memory/index.ts';
import { HttpClient } from '../../src/net/http/client.ts';
import { HttpServer } from '../../src/net/http/server.ts';
import { DeviceTlsPolicy } from '../../src/net/tls.ts';
import { Card } from '../../src/storage/index.ts';
import { system, type SystemFace, type SystemNeeds } from '../../src/system/index.ts';
import { timeline as timelineSubsystem, type Timeline } from '../../src/timeline/index.ts';
import { Audio } from '../../src/audio/audio.ts';
import { MusicPlayer } from '../../src/music/player.ts';
import { wifi, type WifiOptions } from '../../src/wifi/index.ts';
import { type Provisioning } from '../../src/wifi/provisioning.ts';
import type { Hal } from '../../src/hal/index.ts';
import { createMemHal, type MemHal, type MemHalOptions } from './memhal.ts';

/** A late need a test fills once its part is mounted, as the boot does (src/core/boot-order.ts). */
export function pending<T = never>(name: string): Later<T> & { set(value: T): void } {
  return latePart<T>(name, 'the test');
}

export interface TestKernel {
  kernel: Kernel;
  mem: MemHal;
}

/** Every request passes the gate unless the test gives one (src/auth's token gate in the device). */
const OPEN_GATE: Gate = () => true;

export interface TestKernelOptions {
  mem?: MemHal;
  hal?: MemHalOptions;
  gate?: Gate;
  /** The boot mode; by default Orchestrator (1). */
  mode?: Mode;
}

export function testKernel(options: TestKernelOptions = {}): TestKernel {
  const mem = options.mem ?? createMemHal(options.hal);
  const log = new Log(mem.hal.clock, mem.hal.system);
  return { kernel: createKernel(mem.hal, log, { gate: options.gate ?? OPEN_GATE, mode: options.mode ?? 1 }), mem };
}

/** The device subsystem on a kernel: the device actions and the ring engine it makes. */
export function mountDevice(mem: MemHal, kernel: Kernel = testKernel({ mem }).kernel): DeviceFace & { kernel: Kernel } {
  return { ...mount(kernel, device, {}), kernel };
}

/** What main.ts makes before any subsystem, on a kernel's HAL: the card, outbound HTTP under the TLS policy, the hot loops. */
export interface BootParts {
  card: Card;
  tls: DeviceTlsPolicy;
  client: HttpClient;
  hotspots: Hotspots;
}

export function bootParts(kernel: Kernel): BootParts {
  const hal = kernel.hal;
  const tls = new DeviceTlsPolicy(kernel.store('net'));
  return { card: new Card(hal.sd), tls, client: new HttpClient(hal.net, hal.clock, tls, `desk-assistant/${hal.build.version}`), hotspots: chooseHotspots(hal) };
}

/** Long-term memory on a kernel, with the boot parts and no device timeline unless the options give them. */
export function mountMemory(kernel: Kernel, options: Partial<MemoryOptions> = {}): Memory {
  const { card, client, hotspots } = bootParts(kernel);
  return mount(kernel, memory, { card, client, hotspots, timeline: { attach() {} }, ...options });
}

/** The port the device's HTTP server listens on: src/main.ts's HTTP_PORT (a type-only import, so main.ts is not loaded; the type fails if they differ). */
export const HTTP_PORT: typeof Main.HTTP_PORT = 80;

/** A kernel with the device's credentials (src/auth), made as main.ts makes them before any subsystem. */
export interface DeviceKernel extends TestKernel {
  /** The network auth reads for the connect sheet (a late need): set by mountAuth. */
  network: Later<Provisioning> & { set(value: Provisioning): void };
  token: AccessToken;
  signin: SignInCodes;
  secrets: Secrets;
  passphrase: SetupPassphrase;
  /** The HTTP server over the kernel's router (it listens on HTTP_PORT in Orchestrator mode once started). */
  http: HttpServer;
  /** What main.ts does once every subsystem is mounted: the serial console starts, and HTTP in Orchestrator mode. */
  start(): void;
  /** Stops the mounted subsystems (the last first) and closes the HTTP server. */
  stop(): void;
}

/**
 * A test kernel as the device's: the boot mode read from NVS (sys/mode), the router's gate checking the access
 * token, and the HTTP server listening in Orchestrator mode, so routes are tested through the same gate and
 * server the device has. The subsystems under test are mounted on it by the test.
 */
export function deviceKernel(options: Omit<TestKernelOptions, 'gate'> & { wrap?: (hal: Hal) => Hal } = {}): DeviceKernel {
  const mem = options.mem ?? createMemHal(options.hal);
  // main.ts wraps the HAL every subsystem holds (the fault layer, src/faults/): a test of a fault gives the wrapper.
  const hal = options.wrap ? options.wrap(mem.hal) : mem.hal;
  const store = storesOn(hal.nvs);
  const log = new Log(hal.clock, hal.system);
  const mode: Mode = options.mode ?? (store('sys').int('mode', 1) === 0 ? 0 : 1);
  const kernel = createKernel(hal, log, { mode, store });
  // The credentials and the router's token gate come from the auth subsystem, mounted first as in the boot; the
  // network it reads for the connect sheet is met when a test mounts Wi-Fi (mountAuth).
  const network = pending<Provisioning>('network');
  const { token, signin, secrets, passphrase } = mount(kernel, auth, { network });
  const http = new HttpServer(hal.net, hal.clock, kernel.router, undefined, (m) => log.error('http', m));
  return {
    kernel,
    mem,
    token,
    signin,
    secrets,
    passphrase,
    network,
    http,
    start() {
      kernel.console.start();
      if (mode === 1) http.listen(HTTP_PORT);
    },
    stop() {
      unmountAll(kernel);
      http.close();
    },
  };
}

/** The connect sheet's addresses for the auth subsystem a device kernel mounted, once Wi-Fi is mounted. */
export function mountAuth(dk: DeviceKernel, provisioning: Provisioning): AuthFace {
  dk.network.set(provisioning);
  return { token: dk.token, signin: dk.signin, secrets: dk.secrets, passphrase: dk.passphrase };
}

/** Wi-Fi on a device kernel, with its credentials (src/main.ts mounts it first of the subsystems). */
export function mountWifi(dk: DeviceKernel, shutdown?: WifiOptions['shutdown']): Provisioning {
  return mount(dk.kernel, wifi, { passphrase: dk.passphrase, token: dk.token, signin: dk.signin, ...(shutdown ? { shutdown } : {}) }).network;
}

/** What the system subsystem is handed, made as main.ts makes it (SystemOptions), and what it provides. */
/** What the device's tts action speaks through (src/audio/'s Audio). */
type Speaker = NonNullable<DeviceOptions['audio']> extends Later<infer T> ? T : never;

export interface SystemRig extends SystemFace {
  /** The speaker the device's tts action reaches once a test mounts audio (a late need of the device subsystem). */
  speaker: Later<Speaker> & { set(value: Speaker): void };
  timeline: Timeline;
  actions: DeviceActions;
  ring: RingEngine;
  card: Card;
  power: Power;
  audio: Audio;
  music: MusicPlayer;
}

/**
 * The system subsystem on a kernel (GET /api/state, /api/log, /api/timezone, the danger zone; device.control and
 * the system's other tools and commands), with the parts main.ts makes at boot: the timeline, the owner's local
 * time, the card, the device actions (give the ones a test also hands the device subsystem), the battery model,
 * the Audio and the music player over its mixer. The people's roles are the owner's alone (admin), as a device
 * with no chat people has them.
 */
export function mountSystem(kernel: Kernel, options: Partial<SystemNeeds> & { power?: Power; device?: DeviceFace } = {}): SystemRig {
  const hal = kernel.hal;
  // The device subsystem first, as in the boot: it makes the device actions and the ring engine.
  const speaker = pending<Speaker>('audio');
  const { actions, ring } = options.device ?? mount(kernel, device, { audio: speaker });
  const power = options.power ?? new Power(hal, kernel.log);
  const audio = new Audio(hal, kernel.log);
  const music = new MusicPlayer({ sd: hal.sd, audio: audio.speaker.music, clock: hal.clock, log: kernel.log });
  const card = new Card(hal.sd);
  // The timeline first, as in the boot: its restart row leads.
  const timeline = options.timeline ?? mount(kernel, timelineSubsystem, {});
  const face = mount(kernel, system, {
    timeline,
    card,
    people: ready({ roleOf: (person: string | null) => (person === null ? 'admin' : 'unknown') }),
    music,
    audio,
    power,
    ...options,
    actions,
  });
  return { ...face, speaker, timeline, actions, ring, card, power, audio, music };
}

/** Updates on a device kernel, made as main.ts makes them: the boot guard first (it may roll back), then the engine. */
export interface OtaRig {
  updates: Updates;
  power: Power;
  outbox: Outbox;
}

export function mountOta(dk: DeviceKernel, options: Partial<OtaOptions> = {}): OtaRig {
  const { kernel } = dk;
  const otaVerdict = runBootGuard(kernel.hal, kernel.store('ota'), kernel.log);
  const power = new Power(kernel.hal, kernel.log);
  const outbox = new Outbox(kernel.store(OUTBOX_NS), kernel.clock);
  const { client, hotspots } = bootParts(kernel);
  const ring = new RingEngine(kernel.hal.ring, kernel.clock);
  const updates = mount(kernel, ota, { otaVerdict, power, client, sha256: hotspots.sha256, p256: hotspots.p256, outbox, timeline: { row() {} }, ring, ...options });
  return { updates, power, outbox };
}

/** Files (the store, downloads) on a device kernel, its owner notices going to the chat's outbox. */
export interface FilesRig {
  files: Files;
  outbox: Outbox;
}

export function mountFiles(dk: DeviceKernel): FilesRig {
  const { card, client } = bootParts(dk.kernel);
  const outbox = new Outbox(dk.kernel.store(OUTBOX_NS), dk.kernel.clock);
  const { files: f } = mount(dk.kernel, files, { card, client, outbox: outbox });
  return { files: f, outbox };
}
