// Push to talk and the stop, from the touch screen (and any other input that
// speaks in presses and releases, such as a board's button):
//
//   hold on the home (status) screen while idle   listen until the release
//   release after such a hold                     the utterance ends; the turn goes on (the
//                                                 screen also sees the release: it forgets the press)
//   tap (or a press) while a voice turn runs      stop it at once (stop())
//
// Everything else goes to the screen as before. A press while a turn runs is
// taken (so the tap that stops a turn does not also press a button on the
// screen), and so is its release.

import type { VoiceOutcome, VoiceSession } from './voice.ts';

export type GestureKind = 'press' | 'hold' | 'tap' | 'release' | 'cancel';

export class PushToTalk {
  private talking = false;
  private swallowing = false;

  constructor(
    private readonly session: VoiceSession,
    private readonly onOutcome: (out: VoiceOutcome) => void,
  ) {}

  /** The voice turn's state (the screen's state line shows it). */
  state(): 'idle' | 'listening' | 'thinking' | 'speaking' {
    return this.session.state();
  }

  /** One gesture; true when voice took it. */
  gesture(kind: GestureKind, screen: string): boolean {
    const s = this.session;
    if (this.talking && (kind === 'release' || kind === 'cancel')) {
      this.talking = false;
      s.releaseTalk();
      return false; // the screen sees the finger lift too (it forgets the press)
    }
    if (kind === 'press' && s.state() !== 'idle') {
      this.swallowing = true;
      s.stop();
      return true;
    }
    if (this.swallowing) {
      if (kind === 'release' || kind === 'cancel') this.swallowing = false;
      return true;
    }
    if (kind === 'tap' && s.state() !== 'idle') return s.stop();
    if (kind === 'hold' && screen === 'status' && s.state() === 'idle' && s.refusal() === null) {
      this.talking = true;
      void s.listen({ ptt: true }).then(this.onOutcome);
      return true;
    }
    return false;
  }

  /** A button: down starts push to talk (or stops a running turn), up ends the utterance. */
  button(down: boolean): void {
    if (down) {
      if (this.session.state() !== 'idle') {
        this.session.stop();
        this.swallowing = true;
        return;
      }
      if (this.session.refusal() !== null) return;
      this.talking = true;
      void this.session.listen({ ptt: true }).then(this.onOutcome);
      return;
    }
    if (this.swallowing) this.swallowing = false;
    else if (this.talking) {
      this.talking = false;
      this.session.releaseTalk();
    }
  }
}
