// The voice conversation's state machine: idle -> listening -> thinking ->
// speaking -> idle. One turn at a time:
//
//   listening  the microphone records (src/audio/mic.ts's lock, so MICREC
//              and a turn never share it) into the card or a bounded RAM
//              buffer (capture.ts); the end comes from the VAD (vad.ts), or
//              with push-to-talk from the release (the VAD still caps it)
//   thinking   the recording goes to sttProv's transcription API in one
//              streamed request (src/stt), the transcript is written to the
//              episodic log (kind transcript), then it is the owner's turn
//              (origin voice, chat 'voice')
//   speaking   the reply is spoken while ttsOn is on: while the provider
//              streams the turn, each sentence of the reply as soon as it is
//              complete (reply-speaker.ts over src/audio's speech stream),
//              the rest when the turn has arrived and validated; a turn that
//              fails after speech began stops speaking and says so
//
// stop() ends whatever runs at once and returns to idle: the microphone
// closes, the transcription request is aborted, the turn is cancelled (the
// turn engine closes its provider call in flight and records, applies and
// delivers nothing: contracts' TurnCancel), the speech stops (the speech
// request in flight closed, the sentences waiting dropped, playback stopped). A generation
// number tells a stale answer from the current one. The ring shows listening (anim 2), thinking
// (anim 1) and speaking (anim 3) through hold(); the home screen's state
// line says it too (src/ui/status-screen.ts asks state()). Voice capture is refused while an update installs.

import type { Clock, Microphone, SdCard } from '../hal/index.ts';
import type { ClientRequest, ClientResult } from '../net/http/client.ts';
import { sttEndpoint, transcribe, type SttKeys, type AudioUpload } from '../stt/index.ts';
import { capBytes } from '../util/cap.ts';
import { turnCancel, type ReplyStream, type TurnCancel, type TurnOutcome, type TurnRequest } from '../contracts/index.ts';
import { UtteranceSink } from './capture.ts';
import { ReplySpeaker, type SentenceSink } from './reply-speaker.ts';
import { MAX_UTTERANCE_MS, NO_SPEECH_MS, Vad, VAD_RATE } from './vad.ts';

/** The voice conversation's chat id (the owner's, spoken). */
export const VOICE_CHAT = 'voice';
/** A push-to-talk press shorter than this is a tap (it stops, it does not listen). */
export const PTT_MIN_MS = 300;
/** A microphone that stops delivering ends the capture after this much more than the cap. */
const MIC_GRACE_MS = 2000;
const ANIM_THINKING = 1;
const ANIM_LISTENING = 2;
const ANIM_SPEAKING = 3;
const WATCH_MS = 10;
const STOPPED = Symbol('stopped');

export type VoiceState = 'idle' | 'listening' | 'thinking' | 'speaking';

/** The part of a spoken reply's ticket voice follows (src/audio's SpeakTicket). */
export type SpeakLike =
  | { ok: true; voice: { readonly taken: number; abort(): void }; fetched: Promise<{ ok: true; samples: number } | { ok: false; reason: string }>; played: Promise<void> }
  | { ok: false; reason: string; degraded: boolean };

/** A spoken reply given a sentence at a time (src/audio's SpeechStream). */
export interface SpeechStreamLike extends SentenceSink {
  readonly voice: { readonly taken: number; abort(): void };
  readonly fetched: Promise<{ ok: true; samples: number } | { ok: false; reason: string }>;
  played(): Promise<void>;
}

export type SpeechStreamResult = { ok: true; stream: SpeechStreamLike } | { ok: false; reason: string; degraded: boolean };

/** What the session needs (src/voice/index.ts builds it from voice's options and the kernel). */
export interface SessionNeeds {
  mic: Microphone;
  sd: SdCard;
  clock: Clock;
  random: (bytes: Uint8Array) => void;
  log: { info(tag: string, msg: string): void; warn(tag: string, msg: string): void };
  client: { request(req: ClientRequest): Promise<ClientResult> };
  /** Provider keys and the custom base (human-web-only settings). */
  keys: SttKeys;
  /** A device setting (sttProv). */
  config(key: 'sttProv'): unknown;
  /** An update installs: voice capture is refused (spec, OTA table). */
  installing(): boolean;
  /** The device mode: Notifier mode (0) keeps Wi-Fi off, so no transcription and no turn. */
  mode(): 0 | 1;
  cardLive(): boolean;
  /** The microphone's lock (src/audio/mic.ts Recorder.open). */
  openMic(onSamples: (pcm: Int16Array) => void): { ok: true; close: () => void } | { ok: false; reason: string };
  ring: { hold(anim: 1 | 2 | 3): () => void };
  episodic: { append(row: { session: string; role: 'creator'; kind: 'transcript'; text: string; tags: string[] }): unknown };
  /**
   * The turn engine: a voice turn is the owner's (admin, chat voice), cancelled by stop(). While its
   * heap probe is on (HEAPPROBE on, benchmarks) voice measures the live heap too, and the turn's
   * rounds report theirs (xsLivePeak).
   */
  turns: { run(req: TurnRequest): Promise<Pick<TurnOutcome, 'status' | 'reply' | 'ask' | 'error'> & { xsLivePeak?: number }>; readonly probeHeap?: boolean };
  speak(text: string): SpeakLike;
  /** A spoken reply given a sentence at a time (voice replies only: ttsOn). */
  speakStream(): SpeechStreamResult;
  /** The XS heap now and its code part (VOICE?'s high-water during a turn). */
  heap(): { xsNow: number; xsStatic: number };
  /** A full collection (the live heap probe). */
  gc(): void;
}

export interface VoiceTimes {
  /** monoMs when speech ended (the VAD's end or the release). */
  endOfSpeech: number | null;
  transcribed: number | null;
  replied: number | null;
  /** monoMs when the first sentence of the reply was given to speech (its request left). */
  sentence: number | null;
  /** monoMs when the first sample of the reply went to the speaker. */
  firstAudio: number | null;
  /** The most XS heap in use seen during the turn (sampled as sound arrives, at each step, and while speaking). */
  xsPeak: number;
  /**
   * With the heap probe on: the most LIVE XS heap seen during the turn (after a collection, at most every
   * LIVE_SAMPLE_MS while listening and speaking, at each step, and the turn's own rounds); 0 when off.
   */
  xsLivePeak: number;
}

/** The live heap probe collects garbage at most this often while sound flows. */
const LIVE_SAMPLE_MS = 100;

export type VoiceOutcome =
  | {
      ok: true;
      transcript: string;
      reply: string;
      ask: string;
      /** What was spoken and its length in samples at the speaker's rate, or why nothing was (error: a fault, not a setting). */
      spoken: { text: string; samples: number } | null;
      notSpoken: { reason: string; error: boolean } | null;
      heardMs: number;
      where: 'card' | 'ram';
      times: VoiceTimes;
    }
  | { ok: false; reason: string; transcript?: string; reply?: string; ask?: string; cancelled?: boolean };

type Ending = 'end' | 'no-speech' | 'max' | 'release' | 'mic-stopped' | 'stopped' | 'card-failed';

export class VoiceSession {
  private st: VoiceState = 'idle';
  private gen = 0;
  private release: (() => void) | null = null;
  private closeMic: (() => void) | null = null;
  private endListen: ((why: Ending) => void) | null = null;
  private cancelStt: { onCancel: (() => void) | null } | null = null;
  private cancelTurn: TurnCancel | null = null;
  private speaking: { abort(): void } | null = null;
  private replySpeaker: ReplySpeaker | null = null;
  /** Resolves when stop() ends the current turn: every wait races it, so a stopped turn answers at once. */
  private stopped: Promise<typeof STOPPED> = new Promise(() => {});
  private fireStop: (() => void) | null = null;
  /** The last turn's figures (status, bench). */
  last: { outcome: string; times: VoiceTimes; heardMs: number } | null = null;
  turns = 0;
  stops = 0;

  constructor(private readonly o: SessionNeeds) {}

  state(): VoiceState {
    return this.st;
  }

  xsStatic(): number {
    return this.o.heap().xsStatic;
  }

  /** Why listening cannot start now, or null. */
  refusal(): string | null {
    if (this.st !== 'idle') return `busy: the voice turn is ${this.st}`;
    if (!this.o.mic.present) return 'no-mic: this board has no microphone';
    if (this.o.installing()) return 'busy: an update is installing; voice capture is refused until it is done';
    if (this.o.mode() === 0) return 'notifier: voice turns run in Orchestrator mode (Notifier mode keeps Wi-Fi off)';
    const ep = sttEndpoint(this.o.keys, this.o.config('sttProv'));
    return ep.ok ? null : ep.reason;
  }

  private enter(state: VoiceState, anim: 1 | 2 | 3 | null): void {
    this.release?.();
    this.release = anim === null ? null : this.o.ring.hold(anim);
    this.st = state;
  }

  /** Stops at once whatever runs: listening, the transcription, the wait for the reply, the speech. */
  stop(): boolean {
    if (this.st === 'idle') return false;
    this.stops++;
    this.gen++;
    this.endListen?.('stopped');
    this.closeMic?.();
    this.cancelStt?.onCancel?.();
    this.cancelTurn?.cancel();
    this.cancelTurn = null;
    this.replySpeaker?.abort();
    this.replySpeaker = null;
    this.speaking?.abort();
    this.speaking = null;
    this.fireStop?.();
    this.enter('idle', null);
    this.o.log.info('voice', 'stopped');
    return true;
  }

  /** A new turn: a fresh stop signal. */
  private begin(): number {
    this.stopped = new Promise((resolve) => (this.fireStop = () => resolve(STOPPED)));
    return ++this.gen;
  }

  /** Waits for p, or for stop(), whichever comes first. */
  private until<T>(p: Promise<T>): Promise<T | typeof STOPPED> {
    return Promise.race([p, this.stopped]);
  }

  /** Push-to-talk released: the utterance ends now. */
  releaseTalk(): void {
    this.endListen?.('release');
  }

  /**
   * One spoken turn. ptt: the end is the release (releaseTalk); otherwise
   * the VAD's end of speech.
   */
  async listen(opts: { ptt: boolean }): Promise<VoiceOutcome> {
    const refused = this.refusal();
    if (refused) return { ok: false, reason: refused };
    const ep = sttEndpoint(this.o.keys, this.o.config('sttProv'));
    if (!ep.ok) return { ok: false, reason: ep.reason };
    const gen = this.begin();
    this.turns++;
    const times: VoiceTimes = { endOfSpeech: null, transcribed: null, replied: null, sentence: null, firstAudio: null, xsPeak: 0, xsLivePeak: 0 };
    let sink: UtteranceSink;
    try {
      sink = new UtteranceSink(this.o.cardLive() ? this.o.sd : null, VAD_RATE, MAX_UTTERANCE_MS);
    } catch (e) {
      this.o.log.warn('voice', `the card refused the recording (${String(e)}); recording to RAM`);
      sink = new UtteranceSink(null, VAD_RATE, MAX_UTTERANCE_MS);
    }
    const vad = new Vad();
    const startedAt = this.o.clock.monoMs();
    let ending: Ending | null = null;
    const ended = new Promise<Ending>((resolve) => {
      this.endListen = (why) => {
        if (ending) return;
        ending = why;
        resolve(why);
      };
    });
    const mic = this.o.openMic((pcm) => {
      if (ending) return;
      this.sampleHeap(times);
      try {
        sink.write(pcm);
      } catch (e) {
        this.o.log.warn('voice', `the recording could not be written (${String(e)})`);
        return this.endListen?.('card-failed');
      }
      const ev = vad.push(pcm);
      if (ev === 'max' || (!opts.ptt && (ev === 'end' || ev === 'no-speech'))) this.endListen?.(ev);
    });
    if (!mic.ok) {
      sink.close();
      this.endListen = null;
      return { ok: false, reason: mic.reason };
    }
    this.closeMic = mic.close;
    this.enter('listening', ANIM_LISTENING);
    this.o.log.info('voice', `listening (${opts.ptt ? 'push to talk' : 'until the end of speech'}, ${sink.where})`);
    const guard = this.o.clock.setTimeout(() => this.endListen?.('mic-stopped'), (opts.ptt ? MAX_UTTERANCE_MS : NO_SPEECH_MS + MAX_UTTERANCE_MS) + MIC_GRACE_MS);
    const why = await ended;
    guard.cancel();
    mic.close();
    this.closeMic = null;
    this.endListen = null;
    times.endOfSpeech = this.o.clock.monoMs();
    if (gen !== this.gen || why === 'stopped') return { ok: false, reason: 'stopped', cancelled: true };
    const heardMs = times.endOfSpeech - startedAt;
    const spoke = vad.speaking || (opts.ptt && heardMs >= PTT_MIN_MS);
    if (!spoke || why === 'no-speech') return this.finish(gen, { ok: false, reason: `no-speech: nothing was heard in ${Math.round(heardMs / 100) / 10} s` });
    if (why === 'card-failed') return this.finish(gen, { ok: false, reason: 'card: the recording could not be written to the card (pulled or full?)' });
    if (why === 'mic-stopped') this.o.log.warn('voice', 'the microphone stopped delivering; sending what arrived');

    this.enter('thinking', ANIM_THINKING);
    this.sampleHeap(times, true);
    const upload: AudioUpload = { filename: 'speech.wav', mime: 'audio/wav', source: sink.upload() };
    const cancel = { onCancel: null as (() => void) | null };
    this.cancelStt = cancel;
    const t = await this.until(transcribe(this.o.client, ep.endpoint, upload, this.o.random, cancel));
    this.cancelStt = null;
    times.transcribed = this.o.clock.monoMs();
    this.sampleHeap(times, true);
    if (t === STOPPED || gen !== this.gen) return { ok: false, reason: 'stopped', cancelled: true };
    if (!t.ok) return this.finish(gen, { ok: false, reason: t.reason });
    if (!t.text) return this.finish(gen, { ok: false, reason: 'no-speech: the transcription came back empty' });
    return this.turn(gen, t.text, { provider: t.provider, heardMs, where: sink.where, times });
  }

  /** A turn from text as if it had been said (VOICE <text>): thinking, then speaking. */
  async say(text: string): Promise<VoiceOutcome> {
    if (this.st !== 'idle') return { ok: false, reason: `busy: the voice turn is ${this.st}` };
    if (this.o.installing()) return { ok: false, reason: 'busy: an update is installing; voice is refused until it is done' };
    const gen = this.begin();
    this.turns++;
    const times: VoiceTimes = { endOfSpeech: this.o.clock.monoMs(), transcribed: null, replied: null, sentence: null, firstAudio: null, xsPeak: 0, xsLivePeak: 0 };
    return this.turn(gen, text, { provider: null, heardMs: 0, where: 'ram', times });
  }

  /** A transcript from outside the microphone (a chat voice note) into the episodic log. */
  noteTranscript(session: string, text: string, provider: string): void {
    this.o.episodic.append({ session, role: 'creator', kind: 'transcript', text, tags: ['voice-note', provider] });
  }

  private async turn(gen: number, text: string, at: { provider: string | null; heardMs: number; where: 'card' | 'ram'; times: VoiceTimes }): Promise<VoiceOutcome> {
    const times = at.times;
    this.enter('thinking', ANIM_THINKING);
    if (at.provider !== null) {
      try {
        this.o.episodic.append({ session: VOICE_CHAT, role: 'creator', kind: 'transcript', text, tags: ['voice', at.provider] });
      } catch (e) {
        this.o.log.warn('voice', `the transcript was not logged (${String(e)})`);
      }
      this.o.log.info('voice', `heard: ${capBytes(text, 60)}`);
    }
    const cancel = turnCancel();
    this.cancelTurn = cancel;
    const speech = this.replySpeech(gen, times);
    const out = await this.until(this.o.turns.run({ chat: VOICE_CHAT, text, person: null, admin: true, origin: 'voice', cancel, stream: speech.stream }));
    if (this.cancelTurn === cancel) this.cancelTurn = null;
    times.replied = this.o.clock.monoMs();
    this.sampleHeap(times, true);
    // The turn's rounds measured their own live heap (the engine's probe).
    if (this.o.turns.probeHeap === true && out !== STOPPED && out.xsLivePeak !== undefined && out.xsLivePeak > times.xsLivePeak) times.xsLivePeak = out.xsLivePeak;
    const speaker = speech.speaker;
    if (out === STOPPED || gen !== this.gen) {
      speech.stop();
      return { ok: false, reason: 'stopped', transcript: text, cancelled: true };
    }
    if (out.status === 'cancelled') {
      speech.stop();
      return this.finish(gen, { ok: false, reason: 'stopped', transcript: text, cancelled: true });
    }
    if (out.status !== 'ok') {
      // A turn that fails after its reply began to be spoken stops speaking and says so.
      const began = speaker.speaking;
      speech.stop();
      if (began) await this.sayPlainly(gen, out.reply);
      return this.finish(gen, { ok: false, transcript: text, reply: out.reply, ask: out.ask, reason: out.status === 'deferred' ? 'deferred (heap below the turn floor)' : (out.error ?? 'turn failed') });
    }
    const said = [out.reply, out.ask].filter((s) => s.trim()).join(' ');
    const base = { ok: true as const, transcript: text, reply: out.reply, ask: out.ask, heardMs: at.heardMs, where: at.where, times };
    if (!said) {
      speech.stop();
      return this.finish(gen, { ...base, spoken: null, notSpoken: { reason: 'the reply is empty', error: false } });
    }
    // What the stream did not say yet: the last sentence, a served-by note, the ask (all of it when nothing streamed).
    speaker.finish(said);
    const stream = speech.current();
    if (!stream) {
      const why = speaker.refusal ?? { reason: 'nothing to say', degraded: true };
      speech.stop();
      return this.finish(gen, { ...base, spoken: null, notSpoken: { reason: why.reason, error: !why.degraded } });
    }
    const f = await this.until(stream.fetched);
    if (f !== STOPPED && f.ok && gen === this.gen) await this.until(stream.played());
    speech.settle();
    this.sampleHeap(times, true);
    if (f === STOPPED || gen !== this.gen) return { ok: false, reason: 'stopped', transcript: text, cancelled: true };
    this.speaking = null;
    this.replySpeaker = null;
    if (!f.ok) return this.finish(gen, { ...base, spoken: null, notSpoken: { reason: f.reason, error: true } });
    return this.finish(gen, { ...base, spoken: { text: said, samples: f.samples }, notSpoken: null });
  }

  /**
   * The reply's speech while the turn streams: the turn's ReplyStream feeds a
   * ReplySpeaker; the first sentence it gives to speech moves the state to
   * speaking and starts the watch for the first audio.
   */
  private replySpeech(gen: number, times: VoiceTimes): { stream: ReplyStream; speaker: ReplySpeaker; current(): SpeechStreamLike | null; stop(): void; settle(): void } {
    let current: SpeechStreamLike | null = null;
    let watch: { cancel(): void } | null = null;
    const speaker = new ReplySpeaker(
      () => this.o.speakStream(),
      (sink) => {
        current = sink as SpeechStreamLike;
        this.speaking = sink;
        if (times.sentence === null) times.sentence = this.o.clock.monoMs();
        if (gen === this.gen && this.st === 'thinking') this.enter('speaking', ANIM_SPEAKING);
        watch ??= this.o.clock.setInterval(() => {
          if (times.firstAudio === null && current && current.voice.taken > 0) times.firstAudio = this.o.clock.monoMs();
          this.sampleHeap(times);
        }, WATCH_MS);
      },
    );
    this.replySpeaker = speaker;
    const settle = (): void => {
      watch?.cancel();
      watch = null;
      if (times.firstAudio === null && current && current.voice.taken > 0) times.firstAudio = this.o.clock.monoMs();
    };
    return {
      stream: {
        grow: (t) => {
          if (gen === this.gen) speaker.grow(t);
        },
        whole: () => {
          if (gen === this.gen) speaker.whole();
        },
        reset: () => speaker.reset(),
      },
      speaker,
      current: () => current,
      stop: () => {
        settle();
        speaker.abort();
        if (this.replySpeaker === speaker) this.replySpeaker = null;
      },
      settle,
    };
  }

  /** Says a short text whole (a failed turn's apology), waiting until it has played or a stop. */
  private async sayPlainly(gen: number, text: string): Promise<void> {
    if (!text.trim() || gen !== this.gen) return;
    const ticket = this.o.speak(text);
    if (!ticket.ok) return;
    this.speaking = ticket.voice;
    const f = await this.until(ticket.fetched);
    if (f !== STOPPED && f.ok && gen === this.gen) await this.until(ticket.played);
    if (gen === this.gen) this.speaking = null;
  }

  private lastLive = -Infinity;

  /** The heap high-water; live: a step of the turn, where the probe (when on) always collects. */
  private sampleHeap(times: VoiceTimes, live = false): void {
    const now = this.o.heap().xsNow;
    if (now > times.xsPeak) times.xsPeak = now;
    if (this.o.turns.probeHeap !== true) return;
    const t = this.o.clock.monoMs();
    if (!live && t - this.lastLive < LIVE_SAMPLE_MS) return;
    this.lastLive = t;
    this.o.gc();
    const held = this.o.heap().xsNow;
    if (held > times.xsLivePeak) times.xsLivePeak = held;
  }

  private finish(gen: number, out: VoiceOutcome): VoiceOutcome {
    if (gen === this.gen) this.enter('idle', null);
    const times = out.ok ? out.times : { endOfSpeech: null, transcribed: null, replied: null, sentence: null, firstAudio: null, xsPeak: 0, xsLivePeak: 0 };
    this.last = { outcome: out.ok ? 'ok' : out.reason, times, heardMs: out.ok ? out.heardMs : 0 };
    return out;
  }
}
