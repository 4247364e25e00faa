// The in-memory HAL: every service of src/hal in memory, on a virtual clock,
// with controls for tests (type on the console, pull the SD card, cut the
// power, inject touches). createMemHal() gives the Hal and the controls.

import { createHash, randomFillSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type {
  Assets,
  AudioOut,
  Battery,
  BatteryReading,
  Ble,
  Buttons,
  BleCentral,
  BleHandlers,
  DeviceType,
  Display,
  GattService,
  Hal,
  HeapFigures,
  LedRing,
  Microphone,
  PcmFormat,
  FrameDecoder,
  ResetReason,
  Serial,
  System,
  Touch,
  TouchEvent,
} from '../../src/hal/index.ts';
import { FRAME_GUARD, HalError } from '../../src/hal/index.ts';
import { BOARD_DESCRIPTORS, boardInfo } from '../../boards/index.ts';
import { VirtualClock } from './clock.ts';
import { MemNet, MemWifi } from './memnet.ts';
import { MemFlash, MemNvs, MemSd } from './memstorage.ts';
import { mergeAssets, NO_ASSETS, readAssetPack } from '../../src/util/asset-pack.ts';

export { boardInfo };

export class MemSerial implements Serial {
  onData: ((bytes: Uint8Array) => void) | null = null;
  output = '';
  write(text: string): void {
    this.output += text;
  }
  /** Types text on the console (as a script would). */
  type(text: string): void {
    const bytes = new TextEncoder().encode(text);
    queueMicrotask(() => this.onData?.(bytes));
  }
  /** Returns and clears what the device printed. */
  take(): string {
    const out = this.output;
    this.output = '';
    return out;
  }
}

export class MemRing implements LedRing {
  frames: Uint8Array[] = [];
  constructor(readonly count: number) {}
  show(rgb: Uint8Array): void {
    this.frames.push(rgb.slice());
  }
  last(): Uint8Array | undefined {
    return this.frames[this.frames.length - 1];
  }
}

/** Keeps a framebuffer so tests can read pixels; records the largest tile. */
export class MemDisplay implements Display {
  readonly pixels: Uint16Array;
  brightness = 255;
  largestTile = 0;
  private win = { x: 0, y: 0, w: 0, h: 0, at: 0 };
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.pixels = new Uint16Array(width * height);
  }
  begin(x: number, y: number, w: number, h: number): void {
    this.win = { x, y, w, h, at: 0 };
  }
  send(px: Uint16Array): void {
    this.largestTile = Math.max(this.largestTile, px.length);
    for (let i = 0; i < px.length; i++) {
      const n = this.win.at++;
      const x = this.win.x + (n % this.win.w);
      const y = this.win.y + Math.floor(n / this.win.w);
      if (x < this.width && y < this.height) this.pixels[y * this.width + x] = px[i]!;
    }
  }
  end(): void {}
  setBrightness(level: number): void {
    this.brightness = level;
  }
}

export class MemTouch implements Touch {
  onTouch: ((event: TouchEvent) => void) | null = null;
  constructor(readonly present: boolean) {}
  tap(kind: TouchEvent['kind'], x: number, y: number): void {
    this.onTouch?.({ kind, x, y, rawX: x, rawY: y });
  }
}

export class MemBattery implements Battery {
  reading: BatteryReading;
  constructor(present: boolean) {
    this.reading = present
      ? { present: true, levelPct: 80, healthPct: 95, millivolts: 3950, external: false, charging: false }
      : { present: false, levelPct: null, healthPct: null, millivolts: null, external: true, charging: false };
  }
  read(): BatteryReading {
    return { ...this.reading };
  }
}

export class MemAudio implements AudioOut {
  readonly present = true;
  /** Decodes MP3, like the simulator's and the device's hosts (AudioOut.codecs). */
  codecs: Array<'mp3'> = ['mp3'];
  format: PcmFormat | null = null;
  samples: Int16Array[] = [];
  /**
   * The frames handed to MP3 decoders (without the guard bytes). The fake
   * decoder writes 1152 samples per frame, each the frame's running number in
   * its decoder (1, 2, ...), so tests see where a stream restarted.
   */
  decoded: Uint8Array[] = [];
  decoders = 0;
  /** Streams started. */
  starts = 0;
  volume = 50;
  onNeed: (() => void) | null = null;
  get queued(): number {
    return 0;
  }
  /** Each stream's format and the PCM written to it, in order. */
  streams: Array<{ format: PcmFormat; pcm: Int16Array[] }> = [];
  start(format: PcmFormat): void {
    this.format = format;
    this.starts++;
    this.streams.push({ format, pcm: [] });
  }
  openDecoder(): FrameDecoder {
    this.decoders++;
    let n = 0;
    return {
      decode: (input, out) => {
        this.decoded.push(input.slice(0, input.length - FRAME_GUARD));
        out.fill(++n, 0, 1152);
        return 1152;
      },
      close: () => undefined,
    };
  }
  write(pcm: Int16Array): void {
    this.streams.at(-1)?.pcm.push(pcm.slice());
    this.samples.push(pcm.slice());
  }
  stop(): void {
    this.format = null;
  }
  setVolume(level: number): void {
    this.volume = level;
  }
}

export class MemMic implements Microphone {
  onSamples: ((pcm: Int16Array) => void) | null = null;
  running = false;
  constructor(readonly present: boolean) {}
  start(): void {
    this.running = true;
  }
  stop(): void {
    this.running = false;
  }
}

/** Push buttons a test presses (press(name, down)). */
export class MemButtons implements Buttons {
  onButton: ((name: string, down: boolean) => void) | null = null;
  constructor(readonly names: readonly string[]) {}
  press(name: string, down: boolean): void {
    this.onButton?.(name, down);
  }
}

export class MemBle implements Ble {
  readonly present = true;
  handlers: BleHandlers | null = null;
  services: GattService[] = [];
  name: string | null = null;
  private bondSet = new Set<string>();
  private nextCentral = 1;
  notified: Array<{ central: number; uuid: string; value: Uint8Array }> = [];
  start(deviceName: string, services: GattService[], handlers: BleHandlers): void {
    this.name = deviceName;
    this.services = services;
    this.handlers = handlers;
  }
  stop(): void {
    this.handlers = null;
    this.name = null;
  }
  notify(central: BleCentral, uuid: string, value: Uint8Array): void {
    this.notified.push({ central: central.id, uuid, value: value.slice() });
  }
  bonds(): string[] {
    return [...this.bondSet].sort();
  }
  forgetBonds(): void {
    this.bondSet.clear();
  }
  addBond(address: string): void {
    this.bondSet.add(address);
  }
  /** The bonds a device keeps across a restart (rebootMemHal). */
  keepBonds(from: MemBle): void {
    for (const b of from.bonds()) this.bondSet.add(b);
  }
  address(): string {
    return '24:0a:c4:12:34:57';
  }

  // A test central, refusing as the stack does (and as the simulator's board does) before the firmware is asked.

  connect(address = 'c0:ff:ee:00:00:01'): BleCentral {
    if (!this.handlers) throw new HalError('ECONN', 'the device is not advertising');
    const c: BleCentral = { id: this.nextCentral++, address, bonded: this.bondSet.has(address) };
    this.handlers.onConnect(c);
    return c;
  }
  disconnect(c: BleCentral): void {
    this.handlers?.onDisconnect(c);
  }
  /** Just Works: always bonds. */
  pair(c: BleCentral): BleCentral {
    this.bondSet.add(c.address);
    const bonded = { ...c, bonded: true };
    this.handlers?.onBond(bonded, true);
    return bonded;
  }
  private characteristic(uuid: string) {
    for (const s of this.services) for (const ch of s.characteristics) if (ch.uuid === uuid) return ch;
    throw new HalError('ENOENT', `no characteristic ${uuid}`);
  }
  read(c: BleCentral, uuid: string): Uint8Array {
    const ch = this.characteristic(uuid);
    if (!ch.read) throw new HalError('ENOTSUP', `${uuid} is not readable`);
    if (ch.bondedOnly && !c.bonded) throw new HalError('ETLS', 'ATT error 0x05 (Insufficient Authentication)');
    const v = this.handlers?.onRead(c, uuid) ?? null;
    if (!v) throw new HalError('EINVAL', 'ATT error 0x02 (Read Not Permitted)');
    return v;
  }
  write(c: BleCentral, uuid: string, value: Uint8Array): void {
    const ch = this.characteristic(uuid);
    if (!ch.write) throw new HalError('ENOTSUP', `${uuid} is not writable`);
    if (ch.bondedOnly && !c.bonded) throw new HalError('ETLS', 'ATT error 0x05 (Insufficient Authentication)');
    if (!this.handlers?.onWrite(c, uuid, value)) throw new HalError('EINVAL', 'ATT error 0x03 (Write Not Permitted)');
  }
}

/** Thrown by reboot() so the caller's stack unwinds as it would on a device. */
export class RebootSignal extends Error {
  constructor(readonly reason: string) {
    super(`reboot: ${reason}`);
  }
}

export class MemSystem implements System {
  reboots: string[] = [];
  logs: string[] = [];
  reason: ResetReason = 'power-on';
  heapFigures: HeapFigures = {
    freeInternal: 160 * 1024,
    largestBlock: 96 * 1024,
    minFreeInternal: 150 * 1024,
    freePsram: 6 * 1024 * 1024,
    xsNow: 300 * 1024,
    xsPeak: 320 * 1024,
    xsStatic: 150 * 1024,
    xsReserved: 2 * 1024 * 1024,
  };
  watchdogFeeds = 0;
  private rng: (bytes: Uint8Array) => void;
  constructor(seed: string | null) {
    if (seed === null) this.rng = (b) => randomFillSync(b);
    else {
      // Deterministic stream: SHA-256 in counter mode over the seed.
      let counter = 0;
      this.rng = (b) => {
        let off = 0;
        while (off < b.length) {
          const block = createHash('sha256').update(`${seed}:${counter++}`).digest();
          const n = Math.min(block.length, b.length - off);
          b.set(block.subarray(0, n), off);
          off += n;
        }
      };
    }
  }
  reboot(reason: string): void {
    this.reboots.push(reason);
    throw new RebootSignal(reason);
  }
  resetReason(): ResetReason {
    return this.reason;
  }
  heap(): HeapFigures {
    return { ...this.heapFigures };
  }
  resetHeapPeak(): void {
    this.heapFigures.xsPeak = this.heapFigures.xsNow;
  }
  gcRuns = 0;
  gc(): void {
    this.gcRuns++;
  }
  feedWatchdog(): void {
    this.watchdogFeeds++;
  }
  log(line: string): void {
    this.logs.push(line);
  }
  random(bytes: Uint8Array): void {
    this.rng(bytes);
  }
  /** Deep sleeps asked for, in ms (0: until woken); the in-memory device carries on. */
  sleeps: number[] = [];
  deepSleep(ms: number): void {
    this.sleeps.push(ms);
  }
  announced: Array<{ http: boolean; signInPath: string | null }> = [];
  announce(info: { http: boolean; signInPath: string | null }): void {
    this.announced.push({ ...info });
  }
}

export interface MemHalOptions {
  board?: DeviceType;
  /** Seed for the "hardware" random generator; null = real randomness. */
  seed?: string | null;
  sd?: { present?: boolean; totalBytes?: number | null };
  wallMs?: number;
  synced?: boolean;
  testBuild?: boolean;
  version?: string;
  /** The image's assets; default: the build's (build/assets/assets.bin, made by the suites' global setup), none when absent. */
  assets?: Assets;
}

export interface MemHal {
  hal: Hal;
  clock: VirtualClock;
  nvs: MemNvs;
  sd: MemSd;
  flash: MemFlash;
  net: MemNet;
  wifi: MemWifi;
  serial: MemSerial;
  ring: MemRing;
  display: MemDisplay;
  touch: MemTouch;
  battery: MemBattery;
  audio: MemAudio;
  mic: MemMic;
  buttons: MemButtons;
  ble: MemBle;
  system: MemSystem;
}

export function createMemHal(options: MemHalOptions = {}): MemHal {
  const board = boardInfo(options.board ?? 'panel-35');
  const clock = new VirtualClock({
    ...(options.wallMs !== undefined ? { wallMs: options.wallMs } : {}),
    ...(options.synced !== undefined ? { synced: options.synced } : {}),
  });
  const sd = new MemSd(options.sd ?? {});
  sd.now = () => clock.wallMs();
  const parts = {
    clock,
    nvs: new MemNvs(),
    sd,
    flash: new MemFlash(),
    net: new MemNet(),
    wifi: new MemWifi(),
    serial: new MemSerial(),
    ring: new MemRing(board.ringLeds),
    display: new MemDisplay(board.display.width, board.display.height),
    touch: new MemTouch(board.touch !== null),
    battery: new MemBattery(board.battery !== null),
    audio: new MemAudio(),
    mic: new MemMic(true),
    buttons: new MemButtons(BOARD_DESCRIPTORS[board.type].buttons.map((b) => b.name)),
    ble: new MemBle(),
    system: new MemSystem(options.seed === undefined ? 'memhal' : options.seed),
  };
  parts.net.now = () => clock.monoMs();
  const hal: Hal = {
    board,
    build: { version: options.version ?? 'v0.1.0', buildId: 'test', testBuild: options.testBuild ?? true },
    natives: {},
    assets: options.assets ?? buildAssets(),
    ...parts,
  };
  return { hal, ...parts };
}

const ASSETS_PACK = fileURLToPath(new URL('../../build/assets/assets.bin', import.meta.url));
const FONTS_PACK = fileURLToPath(new URL('../../build/assets/fonts.bin', import.meta.url));
let packed: Assets | null = null;
let imageOnly: Assets | null = null;

const readPack = (path: string): Assets => (existsSync(path) ? readAssetPack(new Uint8Array(readFileSync(path))) : NO_ASSETS);

/** The build's assets as a flashed device reads them (the image's, then the fonts partition's), read once per test file (a fresh copy: tests cannot share writes through it). */
export function buildAssets(): Assets {
  if (!packed) packed = mergeAssets(readPack(ASSETS_PACK), readPack(FONTS_PACK));
  return packed;
}

/** The image's assets alone: a device whose fonts partition is empty (no CJK glyphs). */
export function imageAssetsOnly(): Assets {
  if (!imageOnly) imageOnly = readPack(ASSETS_PACK);
  return imageOnly;
}

/**
 * Boots a second Hal over the same persistent parts (NVS, SD, flash) as a
 * device does after a reboot or a power cut: volatile state is fresh.
 */
export function rebootMemHal(previous: MemHal, reason: ResetReason = 'software'): MemHal {
  previous.sd.cut();
  const next = createMemHal({ board: previous.hal.board.type, seed: null });
  next.system.reason = reason;
  // The BLE stack keeps its bonds in flash across restarts.
  next.ble.keepBonds(previous.ble);
  const hal: Hal = { ...next.hal, nvs: previous.nvs, sd: previous.sd, flash: previous.flash, build: previous.hal.build, assets: previous.hal.assets };
  return { ...next, hal, nvs: previous.nvs, sd: previous.sd, flash: previous.flash };
}
