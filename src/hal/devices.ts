// HAL: the device's own peripherals. Serial console, LED ring, display,
// touch, battery gauge, audio out and microphone. A board without a piece of
// hardware reports it absent (ring.count 0, battery.present false) rather
// than leaving the field out, so callers need no board checks.

/** The serial console (USB CDC on the device, stdio or a pty in the simulator). */
export interface Serial {
  write(text: string): void;
  /** Bytes typed by the engineer or a script, as they arrive. */
  onData: ((bytes: Uint8Array) => void) | null;
}

/** A ring of RGB LEDs (NeoPixel). count is 0 on boards without one. */
export interface LedRing {
  readonly count: number;
  /** Shows pixels: count x (r, g, b), already scaled by brightness. */
  show(rgb: Uint8Array): void;
}

/**
 * A display drawn in tiles so no frame needs a full-screen buffer: begin() a
 * rectangle, send() RGB565 pixels for it (row-major, possibly in several
 * calls), end().
 */
export interface Display {
  /** Logical size after rotation. */
  readonly width: number;
  readonly height: number;
  begin(x: number, y: number, width: number, height: number): void;
  send(pixels: Uint16Array): void;
  end(): void;
  /** Backlight 0-255; 0 turns the panel dark. */
  setBrightness(level: number): void;
  /**
   * Simulator only: saves what the panel shows now (display.png in the device
   * folder) and returns its path and the sha256 of its pixels (RGB565,
   * little-endian, rows top to bottom). A device cannot read its panel back.
   */
  snapshot?(): { path: string; sha256: string };
}

export interface TouchEvent {
  kind: 'down' | 'move' | 'up';
  x: number;
  y: number;
  /** Raw controller reading, before calibration. */
  rawX: number;
  rawY: number;
}

export interface Touch {
  readonly present: boolean;
  onTouch: ((event: TouchEvent) => void) | null;
}

export interface BatteryReading {
  /** A gauge is fitted and monitoring is enabled. */
  present: boolean;
  /** 0-100, null when unknown. */
  levelPct: number | null;
  /** State of health 0-100, null when unknown. */
  healthPct: number | null;
  millivolts: number | null;
  /** USB or mains power is connected. */
  external: boolean;
  charging: boolean;
}

export interface Battery {
  read(): BatteryReading;
}

/** 16-bit signed little-endian PCM, mono or stereo. */
export interface PcmFormat {
  sampleRate: number;
  channels: 1 | 2;
}

/** Compressed streams an output may decode itself (its codec or decoder library). */
export type EncodedCodec = 'mp3';

export interface AudioOut {
  readonly present: boolean;
  /**
   * Compressed formats this output decodes itself; absent or empty: 16-bit
   * PCM only. A stream started with startEncoded() takes whole encoded
   * frames; queued, onNeed and stop() work as for PCM.
   */
  readonly codecs?: readonly EncodedCodec[];
  /** Starts a stream of encoded frames (a codec listed in codecs); format is what the frames decode to. */
  startEncoded?(codec: EncodedCodec, format: PcmFormat): void;
  /** Queues whole encoded frames that decode to `frames` samples per channel. */
  writeEncoded?(data: Uint8Array, frames: number): void;
  /** Starts a stream; write() queues PCM; onNeed asks for more. */
  start(format: PcmFormat): void;
  write(pcm: Int16Array): void;
  /** Samples queued and not yet played (per channel). */
  readonly queued: number;
  onNeed: (() => void) | null;
  stop(): void;
  /** Output volume 0-100. */
  setVolume(level: number): void;
}

/** The board's push buttons (board.json buttons), by name: ring-tft's 'main', the panels' 'boot'. */
export interface Buttons {
  readonly names: readonly string[];
  /** A button went down (true) or up (false). */
  onButton: ((name: string, down: boolean) => void) | null;
}

export interface Microphone {
  readonly present: boolean;
  start(format: PcmFormat): void;
  onSamples: ((pcm: Int16Array) => void) | null;
  stop(): void;
}
