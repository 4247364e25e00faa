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

/** Compressed formats a host can decode (its decoder library, through AudioOut.openDecoder). */
export type EncodedCodec = 'mp3';

/** The room a frame decoder's output needs: the most samples one MP3 frame holds. */
export const FRAME_SAMPLES_MAX = 1152;
/** Bytes after the frame in a decoder's input (zeros or what follows): the room a decoder may read past the frame (libmad's MAD_BUFFER_GUARD; minimp3 reads none). */
export const FRAME_GUARD = 8;

/**
 * Decodes one compressed stream frame by frame into 16-bit mono PCM (a
 * stereo frame mixed down as (L + R) >> 1: every board has one speaker). Frames must come in stream order (an
 * MP3 frame may use bits of the ones before it); after a seek the first
 * frames may decode to silence.
 */
export interface FrameDecoder {
  /**
   * Decodes the frame at the start of input (which holds the whole frame and
   * FRAME_GUARD more bytes) into out (at least FRAME_SAMPLES_MAX samples);
   * returns the samples written, 0 when the frame could not be decoded.
   */
  decode(input: Uint8Array, out: Int16Array): number;
  /** Frees the decoder's memory (about 30 KB for MP3). */
  close(): void;
}

export interface AudioOut {
  readonly present: boolean;
  /** Compressed formats openDecoder() decodes; absent or empty: none (MP3 files are skipped). */
  readonly codecs?: readonly EncodedCodec[];
  /** A decoder of a codec listed in codecs; the music player writes what it decodes as PCM. */
  openDecoder?(codec: EncodedCodec): FrameDecoder;
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
