// The device's sound (the audio subsystem's Audio): sound effects, speech
// and the microphone, and the settings they follow (src/audio/index.ts says
// what each setting means). Made at boot, before the subsystems that hold it
// (the music player plays through its speaker, the self-test probes it);
// attach() at the audio subsystem's mount gives it the settings, the speech
// keys and what it sends and shows through.

import type { Hal } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Mode } from '../core/kernel.ts';
import type { ApplyOptions, ApplyResult } from '../device/index.ts';
import { TTS_CAP_BYTES } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import { MIC_RATE, Recorder } from './mic.ts';
import type { AudioNeeds } from './options.ts';
import { Speaker, type Voice } from './speaker.ts';
import { isSlug, MIX_RATE, peakOf, SFX_SLUGS, sfxClip, themeOf, toneClip, type SfxSlug, type SfxTheme } from './synth.ts';
import { SpeechStream } from './speech-stream.ts';
import { fetchSpeech, ttsEndpoint, type EndpointResult } from './tts.ts';
import { wavHeader } from './wav.ts';

export const DEFAULT_SFX_VOL = 50;
export const DEFAULT_SFX_LEVEL = 100;
/** The longest utterance kept (the download stops there). */
export const MAX_SPEECH_S = 90;
export const SPEECH_CAP_BYTES = TTS_CAP_BYTES;
/** Where MICREC saves its clip when a card is in. */
export const RECORDING_DIR = '/mem/rec';
export const RECORDING_PATH = `${RECORDING_DIR}/micrec.wav`;

export type SfxOutcome =
  | { ok: true; played: boolean; slug: SfxSlug; theme: SfxTheme; volume: number; level: number; levelKey: 'sfxLvlO' | 'sfxLvlN'; gain: number; samples: number; peak: number; silent: string | null }
  | { ok: false; reason: string };

export type SpeakTicket =
  | { ok: true; text: string; voice: Voice; fetched: Promise<{ ok: true; samples: number; cut: boolean } | { ok: false; reason: string }>; played: Promise<void> }
  /** degraded: not spoken because of a setting (voice replies off, volume 0), not a fault. */
  | { ok: false; reason: string; degraded: boolean };

export type RecordOutcome =
  | { ok: true; pcm: Int16Array; rate: number; complete: boolean; peak: number; saved: string | null; why: string | null }
  | { ok: false; reason: string };

/** What the Audio reads once its subsystem is mounted: the boot mode and what the audio subsystem is given. */
type AudioParts = AudioNeeds & { mode: Mode };

export class Audio {
  readonly speaker: Speaker;
  readonly recorder: Recorder;
  private parts: AudioParts | null = null;
  /** The last speech and recording, for status and tests. */
  lastSpeech: { text: string; samples: number; error: string | null } | null = null;
  lastRecording: { samples: number; rate: number; peak: number } | null = null;

  constructor(
    private readonly hal: Hal,
    private readonly log: Log,
  ) {
    this.speaker = new Speaker(hal.audio, hal.clock, log);
    this.recorder = new Recorder(hal.mic, hal.clock, () => this.parts?.updates.installing() ?? false);
  }

  /** At the audio subsystem's mount: until then sounds follow the defaults and speech is not set up. */
  attach(parts: AudioParts): void {
    this.parts = parts;
  }

  stop(): void {
    this.speaker.stopAll();
  }

  private cfg(key: 'sfxVol' | 'sfxLvlO' | 'sfxLvlN' | 'sfxTheme' | 'ttsOn' | 'ttsProv' | 'ttsVoice'): unknown {
    return this.parts?.actions.config(key);
  }

  /** sfxVol (default 50). */
  volume(): number {
    const v = this.cfg('sfxVol');
    return typeof v === 'number' ? v : DEFAULT_SFX_VOL;
  }

  /** The effects' level key for the mode the device runs in, and its value. */
  effectLevel(): { key: 'sfxLvlO' | 'sfxLvlN'; level: number } {
    const key = this.parts?.mode === 0 ? 'sfxLvlN' : 'sfxLvlO';
    const v = this.cfg(key);
    return { key, level: typeof v === 'number' ? v : DEFAULT_SFX_LEVEL };
  }

  voiceReplies(): boolean {
    return this.cfg('ttsOn') === true;
  }

  /** SFX <slug>: the effect at the volume and the mode's level; silent (played false) when either is 0. */
  sfx(name: string): SfxOutcome {
    const slug = name.trim().toLowerCase();
    if (!isSlug(slug)) return { ok: false, reason: `unknown sound effect '${capBytes(name, 24)}' (${SFX_SLUGS.join(', ')})` };
    if (!this.hal.audio.present) return { ok: false, reason: 'no-speaker: this board has no speaker' };
    const theme = themeOf(this.cfg('sfxTheme'));
    const volume = this.volume();
    const { key, level } = this.effectLevel();
    const gain = (volume / 100) * (level / 100);
    const clip = this.clip(slug, theme);
    const base = { ok: true as const, slug, theme, volume, level, levelKey: key, gain, samples: clip.length };
    const silent = volume === 0 ? 'sfxVol is 0' : level === 0 ? `${key} is 0` : null;
    if (silent) return { ...base, played: false, peak: 0, silent };
    const v = this.speaker.play(clip, gain, 'sfx', `sfx ${slug}`);
    return { ...base, played: v !== null, peak: Math.round(peakOf(clip) * gain), silent: v ? null : 'too many effects at once' };
  }

  /**
   * An effect's PCM, synthesized once per theme: on XS a long clip takes
   * about 15 ms to make on a PC (far more on the device), a lookup none. The
   * cache holds the current theme's clips only (about 100 KB for all six).
   */
  private clips = new Map<string, Int16Array>();
  private clipsTheme: SfxTheme | null = null;
  private clip(slug: SfxSlug, theme: SfxTheme): Int16Array {
    if (this.clipsTheme !== theme) {
      this.clips.clear();
      this.clipsTheme = theme;
    }
    let c = this.clips.get(slug);
    if (!c) this.clips.set(slug, (c = sfxClip(slug, theme)));
    return c;
  }

  /** The self-test's tone through the mixer (at the effects' gain). */
  tone(hz: number, ms: number): Voice | null {
    const { level } = this.effectLevel();
    return this.speaker.play(toneClip(hz, ms), (this.volume() / 100) * (level / 100), 'tone', `tone ${hz} Hz`);
  }

  /** The speech endpoint ttsProv and ttsVoice name, or why there is none. */
  endpoint(): EndpointResult {
    if (!this.parts) return { ok: false, reason: 'no-tts: speech is not set up' };
    return ttsEndpoint(this.parts.providers, this.cfg('ttsProv'), this.cfg('ttsVoice'));
  }

  /**
   * Speaks text on the speaker. voiceReply: the assistant speaking a reply
   * (needs ttsOn); otherwise an explicit request (SPKSAY). Checks happen at
   * once; the download and the playing follow (fetched, played).
   */
  speak(text: string, opts: { voiceReply: boolean }): SpeakTicket {
    const t = capBytes(text.trim(), SPEECH_CAP_BYTES);
    if (!t) return { ok: false, reason: 'empty: nothing to say', degraded: false };
    const s = this.speakStream(opts);
    if (!s.ok) return s;
    s.stream.say(t);
    s.stream.end();
    const fetched = s.stream.fetched.then((r) => {
      this.lastSpeech = { text: capBytes(t, 80), samples: s.stream.voice.total, error: r.ok ? null : r.reason };
      return r.ok ? { ok: true as const, samples: r.samples, cut: r.cut } : r;
    });
    return { ok: true, text: t, voice: s.stream.voice, fetched, played: fetched.then(() => s.stream.voice.played()) };
  }

  /**
   * A spoken reply given a sentence at a time (speech-stream.ts): the same
   * checks as speak(), then one utterance in the mixer that each sentence's
   * speech is appended to as it arrives. voiceReply as for speak().
   */
  speakStream(opts: { voiceReply: boolean }): { ok: true; stream: SpeechStream } | { ok: false; reason: string; degraded: boolean } {
    if (opts.voiceReply && !this.voiceReplies()) return { ok: false, reason: 'off: voice replies are off (ttsOn)', degraded: true };
    if (!this.hal.audio.present) return { ok: false, reason: 'no-speaker: this board has no speaker', degraded: false };
    const volume = this.volume();
    if (volume === 0) return { ok: false, reason: 'silent: the volume (sfxVol) is 0', degraded: true };
    const ep = this.endpoint();
    if (!ep.ok) return { ok: false, reason: ep.reason, degraded: false };
    const voice = this.speaker.openSpeech(volume / 100, 'speech');
    if (!voice) return { ok: false, reason: 'busy: too many utterances are waiting to be spoken', degraded: false };
    const stream = new SpeechStream({
      client: this.parts!.client,
      endpoint: ep.endpoint,
      voice,
      limit: MAX_SPEECH_S * MIX_RATE,
      capBytes: SPEECH_CAP_BYTES,
      log: this.log,
      now: () => this.hal.clock.monoMs(),
    });
    return { ok: true, stream };
  }

  /** TTSTG (and reply.telegram with voice): the text as speech (Ogg Opus) to a chat (default: the owner's) as a voice message. */
  async voiceMessage(text: string, chat?: string): Promise<{ ok: true; bytes: number; chat: string } | { ok: false; reason: string }> {
    const parts = this.parts!;
    const t = capBytes(text.trim(), SPEECH_CAP_BYTES);
    if (!t) return { ok: false, reason: 'empty: nothing to say' };
    const messenger = parts.chat.get();
    if (!messenger.settings.token()) return { ok: false, reason: 'no-chat: the chat messenger is not set up (no bot token)' };
    const owner = chat ?? messenger.people.ownerChat();
    if (!owner) return { ok: false, reason: "no-chat: the allowlist is empty, so there is no owner's chat" };
    const ep = this.endpoint();
    if (!ep.ok) return { ok: false, reason: ep.reason };
    const r = await fetchSpeech(parts.client, ep.endpoint, t, 'opus');
    if (!r.ok) return r;
    const b = r.body;
    if (b.length < 4 || b[0] !== 0x4f || b[1] !== 0x67 || b[2] !== 0x67 || b[3] !== 0x53) return { ok: false, reason: 'tts-bad-audio: the speech provider did not answer with Ogg audio' };
    const sent = await messenger.sendVoice(owner, { name: 'speech.ogg', mime: 'audio/ogg', bytes: b });
    if (!sent.ok) return { ok: false, reason: `chat-failed: ${sent.error}` };
    return { ok: true, bytes: b.length, chat: owner };
  }

  /** MICREC: records ms of sound; the ring shows 'listening' meanwhile; saved to the card when one is in. */
  async record(ms: number): Promise<RecordOutcome> {
    const parts = this.parts!;
    const refused = this.recorder.refusal();
    if (refused) return { ok: false, reason: refused };
    const release = parts.ring.hold(2);
    let r;
    try {
      r = await this.recorder.capture(ms);
    } finally {
      release();
    }
    if (!r.ok) return r;
    const peak = peakOf(r.pcm);
    this.lastRecording = { samples: r.pcm.length, rate: r.rate, peak };
    let saved: string | null = null;
    let why: string | null = null;
    if (!parts.card.live()) why = 'no SD card';
    else {
      try {
        this.save(r.pcm);
        saved = RECORDING_PATH;
      } catch (e) {
        why = `the card refused it (${String(e)})`;
      }
    }
    return { ok: true, pcm: r.pcm, rate: r.rate, complete: r.complete, peak, saved, why };
  }

  /** Writes the clip as a WAV: a new file, synced, then renamed over the old one. */
  private save(pcm: Int16Array): void {
    const sd = this.hal.sd;
    sd.mkdir(RECORDING_DIR);
    const part = `${RECORDING_PATH}.part`;
    const w = sd.open(part, 'w');
    try {
      w.write(wavHeader({ sampleRate: MIC_RATE, channels: 1 }, pcm.length * 2));
      const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
      for (let at = 0; at < bytes.length; at += 4096) w.write(bytes.subarray(at, Math.min(bytes.length, at + 4096)));
      w.sync();
    } finally {
      w.close();
    }
    sd.rename(part, RECORDING_PATH);
  }

  /** The tts device action: spoken while ttsOn is on; otherwise refused with the reason (the model hears it next turn). */
  speakAction(text: string, _options: ApplyOptions): ApplyResult {
    const t = this.speak(text, { voiceReply: true });
    if (!t.ok) return { ok: false, reason: 'unavailable', note: `tts: not spoken (${t.reason})` };
    return { ok: true, note: 'tts: speaking' };
  }
}
