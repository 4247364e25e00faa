// The reply as it grows during a turn: each provider round's stream hands the
// turn's text on (src/providers/streamed.ts), a ReplyScanner reads the reply
// out of it, and the growing reply goes to the turn's starter
// (TurnRequest.stream: the voice speaks it) and to the engine's listeners (the
// screen, the web page's live view). A round that ends without a turn to
// deliver voids what grew (reset), so the next round's reply starts afresh.
// Nothing grows once the turn is cancelled.

import type { RoundStream, TurnRequest } from '../contracts/index.ts';
import { ReplyScanner } from './reply-stream.ts';

/** Someone watching replies grow: text so far, or null when what grew was void. */
export type ReplyListener = (req: TurnRequest, text: string | null) => void;

/** The longest reply kept for the listeners (the screen and the page show its start). */
const SHOWN_MAX = 4096;

export class ReplyFeed {
  private grown = '';
  private any = false;

  constructor(
    private readonly req: TurnRequest,
    private readonly cancelled: () => boolean,
    private readonly listeners: readonly ReplyListener[],
    private readonly warn: (message: string) => void,
  ) {}

  /** The stream of one round: its text goes through a fresh scanner. */
  round(turnLeftMs: number): RoundStream {
    const scanner = new ReplyScanner((t) => this.grow(t));
    let told = false;
    return {
      onText: (d) => {
        scanner.push(d);
        if (told || !scanner.done || this.cancelled()) return;
        told = true;
        try {
          this.req.stream?.whole?.();
        } catch (e) {
          this.warn(`the reply stream's listener failed: ${String(e)}`);
        }
      },
      turnLeftMs,
    };
  }

  /** Whether any of the reply grew in the round that just ended. */
  get started(): boolean {
    return this.any;
  }

  private grow(text: string): void {
    if (this.cancelled()) return;
    this.any = true;
    if (this.grown.length < SHOWN_MAX) this.grown += text;
    try {
      this.req.stream?.grow(text);
    } catch (e) {
      this.warn(`the reply stream's listener failed: ${String(e)}`);
    }
    this.tell(this.grown);
  }

  /** The round ended without a turn that will be delivered: what grew is void. */
  void(): void {
    if (!this.any) return;
    this.any = false;
    this.grown = '';
    try {
      this.req.stream?.reset();
    } catch (e) {
      this.warn(`the reply stream's listener failed: ${String(e)}`);
    }
    this.tell(null);
  }

  private tell(text: string | null): void {
    for (const l of this.listeners) {
      try {
        l(this.req, text);
      } catch (e) {
        this.warn(`a reply listener failed: ${String(e)}`);
      }
    }
  }
}
