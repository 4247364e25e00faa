// The music player (spec: the music rules under the console table): tracks
// from the card's /music folder, 16-bit PCM WAV through hal.audio's PCM
// stream and MP3 decoded frame by frame by the host's decoder
// (hal.audio.openDecoder: minimp3 on the device and, by the same C, in the
// simulator) into mono PCM, unrecognised files skipped.
//
//   play(null)            a bare play: resumes when paused, otherwise queues
//                         the folder's playable tracks in name order
//   play(text)            replaces the queue with the tracks it names (exact
//                         name, else every name containing the text) and
//                         plays now; { queue: true } appends instead
//   pause()               holds the position (to the sample for WAV, to the
//                         frame for MP3); a play resumes from there
//   stop()                halts and clears the queue
//   hold(reason)/release  another sound owner (speech, effects) takes the
//                         output: music waits at its position and goes on
//                         when every hold is released. So music is never
//                         dropped when busy and plays to completion.
//
// Feeding: about half a second of audio is kept queued in the output; a
// 50 ms tick (and the output's onNeed) tops it up, at most 32 KB per tick.

import type { AudioOut, Clock, FrameDecoder, SdCard, Timer } from '../hal/index.ts';
import { FRAME_GUARD, FRAME_SAMPLES_MAX, HalError } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { frameHeader, recognise, type Mp3Info, type TrackInfo, type WavInfo } from './formats.ts';

export const MUSIC_DIR = '/music';
export const TICK_MS = 50;
/** Seconds of audio kept queued ahead. */
export const AHEAD_S = 0.5;
export const CHUNK = 8192;
const CHUNKS_PER_TICK = 4;
/** Why an MP3 is skipped on a host without an MP3 decoder (the simulator on XS without the SDK: docs/decisions.md). */
export const NO_MP3 = 'this device has no MP3 decoder';

/** ' Skipped (why): names.' for the tracks a play left out, MP3s an output cannot decode told apart. */
function skippedNote(skipped: TrackEntry[]): string {
  const mp3 = skipped.filter((t) => t.reason === NO_MP3).map((t) => t.name);
  const other = skipped.filter((t) => t.reason !== NO_MP3).map((t) => t.name);
  return `${other.length ? ` Skipped (not 16-bit PCM WAV or MP3): ${other.join(', ')}.` : ''}${mp3.length ? ` Skipped (${NO_MP3}): ${mp3.join(', ')}.` : ''}`;
}

export type PlayerState = 'idle' | 'playing' | 'paused';

export interface MusicResult {
  ok: boolean;
  message: string;
}

export interface TrackEntry {
  name: string;
  size: number;
  kind: 'wav' | 'mp3' | 'other';
  playable: boolean;
  reason: string | null;
}

interface Current {
  name: string;
  size: number;
  info: TrackInfo;
  /** Where the next read starts (file offset). */
  pos: number;
  /** Samples per channel before this output stream started (the resume point). */
  base: number;
  /** Samples per channel fed into the current output stream. */
  fed: number;
  /** (samples fed before this frame, file offset of the frame) for MP3 frames in flight. */
  marks: Array<[number, number]>;
  done: boolean;
  /** The MP3 decoder of the current output stream (a new one after every seek). */
  decoder: FrameDecoder | null;
}

export interface PlayerDeps {
  sd: SdCard;
  audio: AudioOut;
  clock: Clock;
  log: Log;
}

export class MusicPlayer {
  private queue: string[] = [];
  private current: Current | null = null;
  private playerState: PlayerState = 'idle';
  private holds = new Set<string>();
  private timer: Timer | null = null;
  private streaming = false;
  private lastSkipped: string[] = [];
  private lastError: string | null = null;
  /** Tracks that finished playing (for status and tests). */
  played = 0;

  constructor(private readonly deps: PlayerDeps) {}

  /** The /music folder, sorted by name, each judged playable or not. */
  tracks(): TrackEntry[] {
    const { sd } = this.deps;
    if (!sd.stat(MUSIC_DIR)) return [];
    const out: TrackEntry[] = [];
    for (const e of sd.list(MUSIC_DIR)) {
      if (e.isDir || e.name.startsWith('.') || e.name.endsWith('.part')) continue;
      const lower = e.name.toLowerCase();
      const kind = lower.endsWith('.wav') ? 'wav' : lower.endsWith('.mp3') ? 'mp3' : 'other';
      const r = this.judge(e.name, e.size);
      out.push({ name: e.name, size: e.size, kind, playable: r.ok, reason: r.ok ? null : r.reason });
    }
    return out.sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0));
  }

  private judge(name: string, size: number): { ok: true; info: TrackInfo } | { ok: false; reason: string } {
    const path = `${MUSIC_DIR}/${name}`;
    const r = recognise(name, (o, l) => this.deps.sd.read(path, o, l), size);
    if (r.ok && r.info.kind === 'mp3' && !this.canMp3()) return { ok: false, reason: NO_MP3 };
    return r;
  }

  /**
   * Decodes one built-in frame (MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, its
   * payload zero: silence) with the host's decoder: what MEDIATEST and the
   * self-test report (1152 samples, all 0). null when the host has
   * no MP3 decoder.
   */
  decodeCheck(): { samples: number; silent: boolean } | null {
    if (!this.canMp3()) return null;
    const frame = new Uint8Array(417 + FRAME_GUARD);
    frame.set([0xff, 0xfb, 0x90, 0x00]);
    const out = new Int16Array(FRAME_SAMPLES_MAX);
    out.fill(1);
    const d = this.deps.audio.openDecoder!('mp3');
    try {
      const samples = d.decode(frame, out);
      let silent = true;
      for (let i = 0; i < samples; i++) if (out[i] !== 0) silent = false;
      return { samples, silent };
    } finally {
      d.close();
    }
  }

  canMp3(): boolean {
    const a = this.deps.audio;
    return !!a.codecs?.includes('mp3') && typeof a.openDecoder === 'function';
  }

  state(): PlayerState {
    return this.playerState;
  }

  status(): { state: PlayerState; track: string | null; position: number; queue: string[]; held: boolean; skipped: string[]; error: string | null; played: number } {
    const c = this.current;
    return {
      state: this.playerState,
      track: c?.name ?? null,
      position: c ? Math.round(((c.base + this.playedInStream()) / c.info.sampleRate) * 10) / 10 : 0,
      queue: [...this.queue],
      held: this.holds.size > 0,
      skipped: [...this.lastSkipped],
      error: this.lastError,
      played: this.played,
    };
  }

  private playedInStream(): number {
    const c = this.current;
    if (!c || !this.streaming) return 0;
    return Math.max(0, c.fed - this.deps.audio.queued);
  }

  /** Chat /play and console PLAY: '' plays, 'stop', 'pause', else a track. */
  command(text: string): MusicResult {
    const t = text.trim();
    const l = t.toLowerCase();
    if (l === 'stop') return this.stop();
    if (l === 'pause') return this.pause();
    return this.play(t === '' ? null : t);
  }

  play(what: string | null, options: { queue?: boolean } = {}): MusicResult {
    this.lastError = null;
    let tracks: TrackEntry[];
    try {
      tracks = this.tracks();
    } catch (e) {
      return { ok: false, message: e instanceof HalError && e.code === 'ENOCARD' ? 'No SD card: music plays from the card\'s /music folder.' : `The music folder cannot be read: ${String(e)}` };
    }
    if (what === null && this.playerState === 'paused' && !options.queue) return this.resume();
    let chosen: TrackEntry[];
    let skipped: TrackEntry[];
    if (what === null) {
      chosen = tracks.filter((t) => t.playable);
      skipped = tracks.filter((t) => !t.playable);
      this.lastSkipped = skipped.map((t) => t.name);
      if (!chosen.length) return { ok: false, message: tracks.length ? `Nothing in /music can play.${skippedNote(skipped)}` : 'The /music folder is empty. Add .wav or .mp3 files from the web page (Memory & Files > Music).' };
    } else {
      const l = what.toLowerCase();
      const exact = tracks.filter((t) => t.name.toLowerCase() === l);
      const matches = exact.length ? exact : tracks.filter((t) => t.name.toLowerCase().includes(l));
      if (!matches.length) return { ok: false, message: `No track in /music matches "${what}".` };
      chosen = matches.filter((t) => t.playable);
      skipped = matches.filter((t) => !t.playable);
      this.lastSkipped = skipped.map((t) => t.name);
      if (!chosen.length) return { ok: false, message: `${matches[0]!.name} cannot play: ${matches[0]!.reason ?? 'unrecognised'}.` };
    }
    const names = chosen.map((t) => t.name);
    const note = skippedNote(skipped);
    if (options.queue && this.playerState !== 'idle') {
      this.queue.push(...names);
      return { ok: true, message: `Queued ${names.join(', ')}.${note}` };
    }
    this.halt();
    this.queue = names;
    this.playerState = 'playing';
    this.next();
    if ((this.playerState as PlayerState) === 'idle') return { ok: false, message: this.lastError ?? 'Nothing could play.' };
    const rest = this.queue.length ? ` Then ${this.queue.length} more.` : '';
    return { ok: true, message: `Playing ${this.current?.name ?? names[0]}.${rest}${note}` };
  }

  pause(): MusicResult {
    if (this.playerState !== 'playing') return { ok: false, message: this.playerState === 'paused' ? 'Already paused.' : 'Nothing is playing.' };
    this.suspend();
    this.playerState = 'paused';
    return { ok: true, message: `Paused ${this.current?.name ?? ''} at ${this.status().position} s.` };
  }

  resume(): MusicResult {
    if (this.playerState !== 'paused' || !this.current) return { ok: false, message: 'Nothing is paused.' };
    this.playerState = 'playing';
    this.startStream();
    return { ok: true, message: `Resumed ${this.current.name} at ${this.status().position} s.` };
  }

  stop(): MusicResult {
    const was = this.playerState;
    this.halt();
    this.queue = [];
    this.current = null;
    this.playerState = 'idle';
    return { ok: true, message: was === 'idle' ? 'Nothing was playing.' : 'Stopped; the queue is cleared.' };
  }

  /** Another sound owner takes the output; music waits at its position. */
  hold(reason: string): void {
    const first = this.holds.size === 0;
    this.holds.add(reason);
    if (first && this.playerState === 'playing') this.suspend();
  }

  release(reason: string): void {
    if (!this.holds.delete(reason) || this.holds.size) return;
    if (this.playerState === 'playing' && this.current) this.startStream();
  }

  /** Stops output and the tick, keeping the current track at the position actually heard. */
  private suspend(): void {
    const c = this.current;
    if (c && this.streaming) {
      const heard = this.playedInStream();
      if (c.info.kind === 'wav') {
        const block = 2 * c.info.channels;
        c.pos = c.info.dataStart + (c.base + heard) * block;
        c.base += heard;
      } else {
        // Back to the first frame not wholly heard.
        let mark: [number, number] | null = null;
        for (const m of c.marks) if (m[0] <= heard) mark = m;
        if (mark) {
          c.pos = mark[1];
          c.base += mark[0];
        } else c.base += c.fed;
      }
      c.done = false;
    }
    this.halt();
  }

  private halt(): void {
    this.timer?.cancel();
    this.timer = null;
    const c = this.current;
    if (c?.decoder) {
      c.decoder.close();
      c.decoder = null;
    }
    if (this.streaming) {
      this.deps.audio.onNeed = null;
      this.deps.audio.stop();
    }
    this.streaming = false;
  }

  /** Opens the next queued track that can play and starts it (skipping the rest). */
  private next(): void {
    this.halt();
    this.current = null;
    while (this.queue.length) {
      const name = this.queue.shift()!;
      const path = `${MUSIC_DIR}/${name}`;
      try {
        const st = this.deps.sd.stat(path);
        if (!st) {
          this.lastSkipped.push(name);
          continue;
        }
        const r = this.judge(name, st.size);
        if (!r.ok) {
          this.lastSkipped.push(name);
          continue;
        }
        const info = r.info;
        this.current = { name, size: st.size, info, pos: info.kind === 'wav' ? info.dataStart : info.firstFrame, base: 0, fed: 0, marks: [], done: false, decoder: null };
        this.deps.log.info('music', `playing ${name} (${info.kind}, ${info.sampleRate} Hz, ${info.channels} ch)`);
        if (this.holds.size === 0) this.startStream();
        return;
      } catch (e) {
        this.lastError = e instanceof HalError && e.code === 'ENOCARD' ? 'The SD card was removed.' : `Reading ${name} failed: ${String(e)}`;
        this.deps.log.warn('music', this.lastError);
      }
    }
    this.playerState = 'idle';
  }

  private startStream(): void {
    const c = this.current;
    if (!c) return;
    const { audio, clock } = this.deps;
    if (c.info.kind === 'wav') audio.start({ sampleRate: c.info.sampleRate, channels: c.info.channels });
    else {
      // Decoded MP3 is mono (every board has one speaker; the decoder mixes stereo down).
      c.decoder = audio.openDecoder!('mp3');
      audio.start({ sampleRate: c.info.sampleRate, channels: 1 });
    }
    this.streaming = true;
    c.fed = 0;
    c.marks = [];
    audio.onNeed = () => this.tick();
    this.timer = clock.setInterval(() => this.tick(), TICK_MS);
    // Fill only: a track ends on a later tick, so play() answers with what it started.
    this.fill();
  }

  private tick(): void {
    const c = this.current;
    if (!c || !this.streaming) return;
    this.fill();
    if (c.done && this.deps.audio.queued === 0) {
      this.played++;
      this.deps.log.info('music', `finished ${c.name}`);
      this.next();
    }
  }

  /** Tops the output up to AHEAD_S seconds (at most CHUNKS_PER_TICK reads). */
  private fill(): void {
    const c = this.current;
    if (!c || !this.streaming) return;
    const { audio } = this.deps;
    const ahead = c.info.sampleRate * AHEAD_S;
    try {
      for (let n = 0; n < CHUNKS_PER_TICK && !c.done && audio.queued < ahead; n++) this.feed(c);
    } catch (e) {
      this.lastError = e instanceof HalError && e.code === 'ENOCARD' ? 'The SD card was removed while music played.' : `Reading ${c.name} failed: ${String(e)}`;
      this.deps.log.warn('music', this.lastError);
      c.done = true;
    }
    // Drop marks of frames already heard (keep the last one at or before the heard point).
    const heard = this.playedInStream();
    while (c.marks.length > 1 && c.marks[1]![0] <= heard) c.marks.shift();
  }

  private feed(c: Current): void {
    if (c.info.kind === 'wav') this.feedWav(c, c.info);
    else this.feedMp3(c, c.info);
  }

  private feedWav(c: Current, info: WavInfo): void {
    const end = info.dataStart + info.dataBytes;
    const block = 2 * info.channels;
    const want = Math.min(CHUNK - (CHUNK % block), end - c.pos);
    if (want <= 0) {
      c.done = true;
      return;
    }
    const bytes = this.deps.sd.read(`${MUSIC_DIR}/${c.name}`, c.pos, want);
    const usable = bytes.length - (bytes.length % block);
    if (usable <= 0) {
      c.done = true;
      return;
    }
    const pcm = new Int16Array(usable / 2);
    new Uint8Array(pcm.buffer).set(bytes.subarray(0, usable));
    this.deps.audio.write(pcm);
    c.pos += usable;
    c.fed += usable / block;
    if (c.pos >= end) c.done = true;
  }

  /** Decoded PCM of one chunk's frames, reused (the output keeps what it is given, so writes copy out of it). */
  private pcm = new Int16Array(0);
  private frameIn = new Uint8Array(0);

  private feedMp3(c: Current, info: Mp3Info): void {
    const want = Math.min(CHUNK, info.end - c.pos);
    if (want <= 0) {
      c.done = true;
      return;
    }
    const bytes = this.deps.sd.read(`${MUSIC_DIR}/${c.name}`, c.pos, want);
    const fits = (at: number): number => {
      const f = frameHeader(bytes, at);
      return f && f.sampleRate === info.sampleRate ? f.length : 0;
    };
    // Lost sync (junk between frames): skip to the next frame header.
    let skip = 0;
    while (skip < bytes.length && !fits(skip)) skip++;
    let at = skip;
    let samples = 0;
    const frames: Array<[number, number]> = [];
    for (;;) {
      const f = frameHeader(bytes, at);
      if (!f || f.sampleRate !== info.sampleRate || at + f.length > bytes.length) break;
      frames.push([at, f.length]);
      at += f.length;
      samples += f.samples;
    }
    if (frames.length) {
      if (this.pcm.length < samples + FRAME_SAMPLES_MAX) this.pcm = new Int16Array(samples + FRAME_SAMPLES_MAX);
      let n = 0;
      for (const [start, length] of frames) {
        c.marks.push([c.fed + n, c.pos + start]);
        const got = c.decoder!.decode(this.frameInput(bytes, start, length), this.pcm.subarray(n));
        // A frame that does not decode (a broken one, or the first after a seek) plays as silence, so time stays true.
        const expect = frameHeader(bytes, start)!.samples;
        if (got < expect) this.pcm.fill(0, n + got, n + expect);
        n += Math.max(got, expect);
      }
      this.deps.audio.write(this.pcm.slice(0, n));
      c.fed += n;
    } else if (skip < bytes.length && bytes.length < CHUNK) {
      at = bytes.length; // a cut last frame: dropped
    }
    c.pos += at;
    if (c.pos >= info.end || bytes.length === 0) c.done = true;
  }

  /** The frame at start with FRAME_GUARD bytes after it: what follows in the chunk, or zeros past its end. */
  private frameInput(bytes: Uint8Array, start: number, length: number): Uint8Array {
    const end = start + length + FRAME_GUARD;
    if (end <= bytes.length) return bytes.subarray(start, end);
    if (this.frameIn.length < length + FRAME_GUARD) this.frameIn = new Uint8Array(length + FRAME_GUARD);
    const buf = this.frameIn.subarray(0, length + FRAME_GUARD);
    buf.fill(0);
    buf.set(bytes.subarray(start, Math.min(bytes.length, end)));
    return buf;
  }
}
