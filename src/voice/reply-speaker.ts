// The voice turn's reply spoken while it streams: the growing reply
// (TurnRequest.stream) is cut into sentences (sentences.ts) and each complete
// sentence goes to the speech stream (src/audio's SpeechStream: its request
// leaves at once, later ones queue so playback has no gaps). When the turn is
// complete, finish() speaks what is left of its final text (the last
// sentence, a "served by" note, the ask). A reset (the round that grew the
// reply ended without a turn: a retry, a failover, a repair) does not stop
// what speaks: the next round's reply is compared with what was already given
// and only what goes beyond it is spoken; if it says something else, the
// speech stops and starts again with the new reply. abort() stops at once.

import { SentenceSplitter } from './sentences.ts';

/** The speech stream as the speaker uses it (src/audio's SpeechStream). */
export interface SentenceSink {
  say(text: string): void;
  end(): void;
  abort(): void;
}

export type OpenSpeech = () => { ok: true; stream: SentenceSink } | { ok: false; reason: string; degraded: boolean };

export class ReplySpeaker {
  private splitter = new SentenceSplitter();
  /** All reply text given to the splitter so far. */
  private given = '';
  /** After a reset: how much of `given` the new reply has repeated (null: not replaying). */
  private replay: number | null = null;
  private sink: SentenceSink | null = null;
  private ended = false;
  /** Why the speech could not start (voice replies off, no speaker, no key), once it was asked. */
  refusal: { reason: string; degraded: boolean } | null = null;
  /** Sentences given to speech. */
  sentences = 0;
  /** Restarts after a new reply said something else than what was spoken. */
  restarts = 0;

  constructor(
    private readonly open: OpenSpeech,
    /** Called with each new speech stream (the session follows it and stops it). */
    private readonly onStream: (sink: SentenceSink) => void,
  ) {}

  /** Whether speech has begun (a sentence was given to it). */
  get speaking(): boolean {
    return this.sink !== null;
  }

  grow(text: string): void {
    if (this.ended || !text) return;
    if (this.replay !== null) {
      const rest = this.given.slice(this.replay);
      if (rest.startsWith(text)) {
        this.replay += text.length;
        return;
      }
      if (text.startsWith(rest)) {
        // Caught up: what goes beyond what was given is new.
        this.replay = null;
        return this.feed(text.slice(rest.length));
      }
      // The new reply says something else: stop and speak it from its start.
      const said = this.given.slice(0, this.replay) + text;
      this.restart();
      return this.feed(said);
    }
    this.feed(text);
  }

  /** The reply's text is whole (the turn still being written): its last sentence goes to speech now. */
  whole(): void {
    if (this.ended || this.replay !== null) return;
    const last = this.splitter.flush();
    if (last) this.say(last);
  }

  /** What grew is void: the next reply is compared with what was given. */
  reset(): void {
    if (this.ended || !this.given) return;
    this.replay = 0;
  }

  /**
   * The turn is complete: speaks what its final text adds to what was given
   * (all of it when nothing streamed), then ends the speech.
   */
  finish(final: string): void {
    if (this.ended) return;
    if (!final.startsWith(this.given)) {
      this.restart();
    }
    this.replay = null;
    this.feed(final.slice(this.given.length));
    const last = this.splitter.flush();
    if (last) this.say(last);
    this.ended = true;
    this.sink?.end();
  }

  /** Stops at once. */
  abort(): void {
    this.ended = true;
    this.sink?.abort();
  }

  private restart(): void {
    this.restarts++;
    this.sink?.abort();
    this.sink = null;
    this.splitter = new SentenceSplitter();
    this.given = '';
    this.replay = null;
  }

  private feed(text: string): void {
    if (!text) return;
    this.given += text;
    for (const s of this.splitter.push(text)) this.say(s);
  }

  private say(sentence: string): void {
    if (this.refusal) return;
    if (!this.sink) {
      const s = this.open();
      if (!s.ok) {
        this.refusal = { reason: s.reason, degraded: s.degraded };
        return;
      }
      this.sink = s.stream;
      this.onStream(s.stream);
    }
    this.sentences++;
    this.sink.say(sentence);
  }
}
