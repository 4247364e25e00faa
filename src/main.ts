// Boot: builds the device context on the given HAL, lets every subsystem
// register its routes, commands and status fields, then starts the HTTP
// server in Orchestrator mode. Each subsystem decides from kernel.mode in its
// own install what it runs (docs/decisions.md, "Modes, Wi-Fi, mDNS and the
// Notifier link"): Orchestrator mode runs Wi-Fi, HTTP, the assistant and the
// setup network; Notifier mode only the Bluetooth link, the ring and the
// screen (and the console).

import { createKernel, storesOn } from './core/kernel.ts';
import { mount } from './core/subsystem.ts';
import { api } from './api/index.ts';
import { AccessToken, auth as authSubsystem, makeGate, SCAN_LIFETIME_MS, Secrets, SetupPassphrase, SignInCodes } from './auth/index.ts';
import type { Kernel, Mode } from './core/kernel.ts';
import { chooseHotspots, describeHotspots, type Hotspots } from './core/hotspots.ts';
import { CachedNvs } from './core/nvs-cache.ts';
import { ShutdownHooks } from './core/shutdown.ts';
import type { Store } from './core/store.ts';
import type { Hal } from './hal/index.ts';
import { Log } from './log/log.ts';
import { HttpClient } from './net/http/client.ts';
import { HttpServer } from './net/http/server.ts';
import { DeviceTlsPolicy } from './net/tls.ts';
import { providers as providerSubsystem } from './providers/index.ts';
import { prompt } from './prompt/index.ts';
import { turn, turnCodec, type Assistant, type TurnWire } from './turn/index.ts';
import { Card, storage } from './storage/index.ts';
import { files as filesSubsystem, type Files } from './files/index.ts';
import { music as musicSubsystem, MusicPlayer } from './music/index.ts';
import { embeddingKeys, memory as memorySubsystem, type Memory } from './memory/index.ts';
import { KEEP_NS, LEGACY_TIME_NS, LocalTime, sameZone, system as systemSubsystem, TIME_NS, Timeline } from './system/index.ts';
import { web } from './web/index.ts';
import { mcp } from './mcp/index.ts';
import { docs as docsSubsystem } from './docs/index.ts';
import { agents as agentsSubsystem, type Agents } from './agents/index.ts';
import { Chat, chat as chatSubsystem, isChatId, Outbox, OUTBOX_NS } from './chat/index.ts';
import { ota as otaSubsystem, runBootGuard, Updates } from './ota/index.ts';
import { nativeUtf8InUse, useNativeUtf8 } from './util/utf8.ts';
import type { RandomFill } from './util/ids.ts';
import { Faults, faults as faultsSubsystem, withFaults } from './faults/index.ts';
import { DeviceActions, device as deviceSubsystem, RingEngine } from './device/index.ts';
import { power as powerSubsystem, Power } from './power/index.ts';
import { Audio, audio as audioSubsystem } from './audio/index.ts';
import { wifi as wifiSubsystem } from './wifi/index.ts';
import { notifier as notifierSubsystem, type NotifierLink } from './notifier/index.ts';
import { unavailable } from './console/index.ts';
import { schedule, type Scheduler } from './schedule/index.ts';
import { skills as skillsSubsystem, skillPrompts } from './skills/index.ts';
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

/**
 * What main.ts made and mounted, for the hosts and the tests (dev.ctx.memory, dev.ctx.ota ...): the kernel and
 * the objects of the subsystems. No subsystem receives it; each gets what it declares in its options.
 */
export interface DeviceParts extends Kernel {
  random: RandomFill;
  hotspots: Hotspots;
  token: AccessToken;
  signin: SignInCodes;
  secrets: Secrets;
  client: HttpClient;
  tls: DeviceTlsPolicy;
  card: Card;
  actions: DeviceActions;
  ota: Updates;
  outbox: Outbox;
  chat: Chat;
  timeline: Timeline;
  memory: Memory;
  music: MusicPlayer;
  ring: RingEngine;
  audio: Audio;
  connectors: Connectors;
  time: LocalTime;
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

export function boot(rawHal: Hal, options: BootOptions = {}): Device {
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
  const store = storesOn(hal.nvs);
  // First thing: the update guard counts this boot and may roll back (src/ota/guard.ts).
  const otaVerdict = runBootGuard(hal, store('ota'), log);
  const token = new AccessToken(store('auth'), random, log.redactor);
  const signin = new SignInCodes(hal.clock, random);
  token.onRotate(() => signin.clear());
  const tls = new DeviceTlsPolicy(store('net'));
  const hotspots = chooseHotspots(hal);
  log.info('boot', `hotspots: ${describeHotspots(hotspots)}, utf8 ${nativeUtf8InUse() ? 'C' : 'TS'}`);
  const card = new Card(hal.sd);
  const client = new HttpClient(hal.net, hal.clock, tls, `desk-assistant/${hal.build.version}`);
  // Before any subsystem installs, so each can register its routes, commands, tools and status.
  const kernel = createKernel(hal, log, { gate: makeGate(token), mode: readMode(store('sys')), store });
  let memory: Memory | null = null;
  // The battery model: the update gate and device.status read it before the power subsystem is mounted.
  const power = new Power(hal, log);
  const audio = new Audio(hal, log);
  // The device timeline and the owner's local time, made at boot: system is handed both, and mounted first.
  const timeline = new Timeline(hal.clock, log);
  const time = new LocalTime(hal.clock, store(TIME_NS), log, store(LEGACY_TIME_NS));
  const secrets = new Secrets();
  const actions = new DeviceActions(hal, store('cfg'), store('orch'), log);
  const updates = new Updates(otaVerdict);
  const outbox = new Outbox(store(OUTBOX_NS), hal.clock);
  const chat = new Chat(hal.nvs, store, log);
  // Music goes through the speaker's mixer (src/audio/speaker.ts), with speech and effects.
  const music = new MusicPlayer({ sd: hal.sd, audio: audio.speaker.music, clock: hal.clock, log });
  const ring = new RingEngine(hal.ring, hal.clock);
  // Memory mounts after the turn, the prompt and the chat (it takes the chat's people): they read it when they run.
  const mountedMemory = (): Memory => {
    if (!memory) throw new Error('memory is read before it is mounted');
    return memory;
  };

  mount(kernel, systemSubsystem, { timeline, time, card, actions, people: chat.people, music, audio, battery: power });
  const passphrase = new SetupPassphrase(store('auth'), random, log.redactor);
  const provisioning = mount(kernel, wifiSubsystem, { passphrase, token, signin, shutdown });
  mount(kernel, clockSubsystem, { sync: clockSync, network: provisioning });
  // Kept-alive connections do not outlive the link they were made on: a dropped station, or a network fault
  // (test builds), closes the idle ones, so the next request connects afresh (and fails if the network is down).
  provisioning.onStation((st) => {
    if (st.state !== 'connected') client.closeIdle();
  });
  faults.onChange((cap, on) => {
    if (on && (cap === 'outbound' || cap === 'wifi-down')) client.closeIdle();
  });
  mount(kernel, authSubsystem, { token, signin, secrets, passphrase, addresses: () => provisioning.addresses() });
  const connectors = mount(kernel, connectorsSubsystem, { client, sha256: hotspots.sha256, token, secrets, addresses: () => provisioning.addresses(), commands: chat.commands });
  const { settings: providers, wire } = mount(kernel, providerSubsystem, { client, tls, toolServers: connectors, turn: turnCodec });
  // Memory mounts later (its status fields keep their place): the prompt reads it only when a turn runs.
  const memoryView = {
    scratchpadBlock: () => mountedMemory().scratchpadBlock(),
    runningMemory: () => mountedMemory().runningMemory(),
    relevantMemories: (text: string, queries: readonly string[], person: string | null) => mountedMemory().relevantMemories(text, queries, person),
  };
  const { blocks } = mount(kernel, prompt, { settings: providers, memory: memoryView, connectors, time });
  const { assistant, compactor } = mount(kernel, turn, {
    settings: providers,
    wire: options.wire ?? wire,
    blocks,
    // Memory mounts later: a turn reads it when it runs.
    memory: mountedMemory,
    outbox,
    people: chat.people,
    actions,
    // A messenger chat compacts into its person's namespace; console, web and /mcp conversations are the owner's.
    personOf: (id) => (isChatId(id) ? chat.people.personOf(id) : null),
  });
  // Files before the chat, which plugs its people, sender and fetched-content screen into it.
  const { files, resources: fileResources } = mount(kernel, filesSubsystem, { card, client, notify: (key, text) => void outbox.post(key, text) });
  mount(kernel, chatSubsystem, {
    chat,
    outbox,
    client,
    assistant,
    compactor,
    providers,
    files,
    music,
    updates,
    actions,
    // Memory mounts after the chat (it takes the chat's people): the chat reads it when a command or tool runs.
    memory: {
      get scratch() {
        return mountedMemory().scratch;
      },
      get episodic() {
        return mountedMemory().episodic;
      },
    },
    audio,
    card,
  });
  mount(kernel, storage, { card, timeline, files });
  mount(kernel, musicSubsystem, { player: music, card, audio });
  // The memory's remote embedder reaches the custom endpoint at its embeddings base URL (the endpoint's own, by default).
  const embeddingSettings = { customBase: () => providers.customFor('embed').base, key: (p: 'openai' | 'mistral' | 'custom') => providers.key(p) };
  memory = mount(kernel, memorySubsystem, { card, client, hotspots, timeline, keys: embeddingKeys(embeddingSettings, wire.usage), people: chat.people });
  mount(kernel, web, {});
  mount(kernel, api, {});
  const docs = mount(kernel, docsSubsystem, {});
  const agents = mount(kernel, agentsSubsystem, {
    assistant,
    providers,
    wire,
    files: files.store,
    client,
    connectors,
    outbox,
    chat,
    memory,
    card,
    time,
  });
  const skills = mount(kernel, skillsSubsystem, { agents, card, sha256: hotspots.sha256, outbox, commands: chat.commands });
  const scheduler = mount(kernel, schedule, { engine: assistant.engine, time, chat });
  const { catalog } = mount(kernel, models, { assistant, settings: providers, wire });
  mount(kernel, images, { store: files.store, client, catalog, key: () => providers.key('openai') });
  mount(kernel, stt, { actions });
  mount(kernel, search, { client, screen: (text, caller) => files.screenFetched(text, caller) });
  mount(kernel, mcp, { resources: [...docs.resources, ...fileResources], prompts: [skillPrompts(skills)] });
  mount(kernel, powerSubsystem, { power, actions, timeline, updates });
  mount(kernel, otaSubsystem, { updates, battery: power, client, sha256: hotspots.sha256, p256: hotspots.p256, outbox, timeline, ring });
  mount(kernel, deviceSubsystem, { actions, ring });
  mount(kernel, audioSubsystem, { audio, keys: providers, actions, updates, client, chat, ring, card });
  const voice = mount(kernel, voiceSubsystem, { client, keys: providers, actions, updates, card, ring, episodic: mountedMemory().episodic, turns: assistant.engine, audio });
  chat.setVoiceNotes(voice.notes);
  mount(kernel, faultsSubsystem, { faults, card });
  const cloud = mount(kernel, cloudSubsystem, { token, secrets, tls });
  // Both modes: in Notifier mode the screen shows what the Notifier link sends (the Ui's API).
  const ui = mount(kernel, uiSubsystem, {
    actions,
    updates,
    signin,
    time,
    sameZone,
    keep: store(KEEP_NS),
    sha256: hotspots.sha256,
    turns: assistant.engine,
    network: provisioning,
    passphrase,
    voice: voice.ptt,
  });
  const notifier = mount(kernel, notifierSubsystem, { actions, ring, ui });
  // Last: the spec's commands no subsystem has registered answer "unavailable".
  mount(kernel, unavailable, {});
  kernel.console.start();

  const feed = hal.clock.setInterval(() => {
    hal.system.feedWatchdog();
    // The screen's idle check rides the same once-a-second wake-up (src/ui/ui.ts).
    ui.poll();
  }, WATCHDOG_FEED_MS);
  hal.system.feedWatchdog();

  let http: HttpServer | null = null;
  if (kernel.mode === 1) {
    http = new HttpServer(hal.net, hal.clock, kernel.router, undefined, (m) => log.error('http', m));
    http.listen(HTTP_PORT);
    const server = http;
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
  } else {
    log.info('boot', 'Notifier mode: Wi-Fi off, the Bluetooth link up');
    hal.system.announce({ http: false, signInPath: null });
  }
  ui.start();

  const ctx: DeviceParts = {
    ...kernel,
    random,
    hotspots,
    token,
    signin,
    secrets,
    tls,
    card,
    client,
    actions,
    ota: updates,
    outbox,
    chat,
    timeline,
    memory: mountedMemory(),
    music,
    ring,
    audio,
    connectors,
    time,
  };
  return {
    ctx,
    files,
    faults,
    power,
    assistant,
    agents,
    scheduler,
    ui,
    notifier,
    http,
    stop() {
      feed.cancel();
      clockSync.stop();
      ui.stop();
      notifier.stop();
      agents.stop();
      scheduler.stop();
      updates.stop();
      power.stop();
      voice.stop();
      audio.stop();
      chat.stop();
      cloud.relay.stop();
      http?.close();
    },
  };
}
