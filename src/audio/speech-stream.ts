// One spoken reply given a sentence at a time (the voice speaks a reply while
// it streams in): each sentence is one speech request, asked as soon as it is
// first in line, so the first sentence's request leaves the moment that
// sentence is complete; the next leaves when the one before has arrived (a
// speech answer arrives faster than it plays, so the next sentence's audio is
// in before the last one has played: no gap, one request in flight, one
// kept-alive connection). Every sentence's WAV goes into the same utterance
// in the mixer (one Voice: one turn of speech, music ducked once), resampled
// to the mix rate as it arrives. abort() stops at once: the request in flight
// is closed, the sentences waiting are dropped, playback stops.

import type { ClientRequest, ClientResult } from '../net/http/client.ts';
import { capBytes } from '../util/cap.ts';
import type { Voice } from './speaker.ts';
import { MIX_RATE } from './synth.ts';
import { streamSpeech, type TtsEndpoint } from './tts.ts';
import { Resampler, WavReader } from './wav.ts';

export type SpeechFetched = { ok: true; samples: number; cut: boolean; sentences: number } | { ok: false; reason: string };

export interface SpeechStreamParts {
  client: { request(req: ClientRequest): Promise<ClientResult> };
  endpoint: TtsEndpoint;
  voice: Voice;
  /** Longest speech in samples at MIX_RATE (the rest is not asked for). */
  limit: number;
  /** Bytes of text one request may carry. */
  capBytes: number;
  log: { info(tag: string, m: string): void; warn(tag: string, m: string): void };
  /** monoMs, for the moments each sentence's request left and its audio began. */
  now(): number;
}

export class SpeechStream {
  private queue: string[] = [];
  private ended = false;
  private aborted = false;
  private running = false;
  private cut = false;
  private sentences = 0;
  private settle: (r: SpeechFetched) => void = () => undefined;
  private readonly request: { onCancel: (() => void) | null } = { onCancel: null };
  /** Resolves once every sentence given has been fetched (or one failed, or it was aborted). */
  readonly fetched: Promise<SpeechFetched>;
  /** When the first sentence's request left, and when its first audio arrived (monoMs; null before). */
  firstAsked: number | null = null;
  firstAudio: number | null = null;

  constructor(private readonly p: SpeechStreamParts) {
    this.fetched = new Promise((resolve) => (this.settle = resolve));
  }

  get voice(): Voice {
    return this.p.voice;
  }

  /** Resolves once the speaker has played everything (or the speech was stopped). */
  played(): Promise<void> {
    return this.fetched.then(() => this.p.voice.played());
  }

  /** Queues a sentence; its request leaves as soon as it is first in line. */
  say(text: string): void {
    if (this.ended || this.aborted || this.cut) return;
    const t = capBytes(text.trim(), this.p.capBytes);
    if (!t) return;
    this.queue.push(t);
    void this.pump();
  }

  /** No more sentences: the utterance ends after the last one. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    void this.pump();
  }

  /** Stops at once: the request in flight closed, the queue dropped, playback stopped. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.queue = [];
    this.request.onCancel?.();
    this.p.voice.abort();
    this.done({ ok: false, reason: 'stopped' });
  }

  private finished = false;
  private done(r: SpeechFetched): void {
    if (this.finished) return;
    this.finished = true;
    this.settle(r);
  }

  private async pump(): Promise<void> {
    if (this.running || this.finished) return;
    this.running = true;
    while (this.queue.length && !this.aborted && !this.cut) {
      const text = this.queue.shift()!;
      const error = await this.fetchOne(text);
      if (error !== null) {
        this.queue = [];
        this.p.voice.abort();
        this.p.log.warn('audio', `speech not played: ${error}`);
        this.running = false;
        return this.done({ ok: false, reason: error });
      }
    }
    this.running = false;
    if (this.aborted) return;
    if ((this.ended && !this.queue.length) || this.cut) {
      this.p.voice.end();
      this.p.log.info('audio', `speaking ${(this.p.voice.total / MIX_RATE).toFixed(1)} s in ${this.sentences} part(s)${this.cut ? ' (cut at the longest speech)' : ''}`);
      this.done({ ok: true, samples: this.p.voice.total, cut: this.cut, sentences: this.sentences });
    }
  }

  /** One sentence's speech into the utterance; null, or why it failed. */
  private async fetchOne(text: string): Promise<string | null> {
    const voice = this.p.voice;
    let resampler: Resampler | null = null;
    const reader = new WavReader((mono) => {
      const rate = reader.format!.sampleRate;
      if (!resampler || resampler.from !== rate) resampler = new Resampler(rate, MIX_RATE);
      if (this.firstAudio === null) this.firstAudio = this.p.now();
      voice.append(resampler.push(mono));
    });
    if (this.firstAsked === null) this.firstAsked = this.p.now();
    this.sentences++;
    const r = await streamSpeech(
      this.p.client,
      this.p.endpoint,
      text,
      'wav',
      (chunk) => {
        if (voice.isAborted || !reader.push(chunk)) return false;
        if (voice.total >= this.p.limit) this.cut = true;
        return !this.cut;
      },
      this.request,
    );
    if (this.aborted) return null;
    if (!r.ok) return r.reason;
    // Silenced from outside (the speaker stopped everything).
    if (voice.isAborted) return 'stopped';
    if (reader.error) return `tts-bad-audio: ${reader.error}`;
    if (!reader.inData) return 'tts-bad-audio: the answer held no audio';
    return null;
  }
}
