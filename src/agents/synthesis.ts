// The synthesis turn (spec, Events "Synthesis turn", Limits "Synthesis"):
// completions for a chat within a 3 s coalesce window share one automatic
// turn, run with [FRESH RESULTS] in the prompt and a [SYSTEM] preamble, no
// user message, under the unattended rails (the engine's: no reboot, no
// ttsOn, tools marked not for unattended turns refused). Its reply goes to
// the chat. If the turn cannot start within 60 s of the first completion
// (another turn holds the engine), or it fails, the raw results are
// delivered to the chat directly instead. Either way the results stop being
// fresh; results a turn of the chat has already shown are not repeated.

import type { Clock, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { TurnOutcome, TurnRequest } from '../contracts/index.ts';
import { errorMessage } from '../util/json.ts';
import { COALESCE_MS, DIRECT_MS, FRESH_CHARS, SYNTH_RETRY_MS } from './limits.ts';
import type { MessageAuthor } from './ports.ts';
import type { ResultStore } from './results.ts';
import { capChars } from './text.ts';
import type { JobOrigin } from './types.ts';

export const SYNTHESIS_PREAMBLE =
  '[SYSTEM] Automatic turn: sub-agent results arrived (see [FRESH RESULTS]). No person wrote this message. ' +
  'Tell the chat what came back and what it means for them, briefly and in your own words; do not paste the raw results. ' +
  'Start more sub-agents only if the results clearly call for it.';

export const DIRECT_HEADING = 'Results from your sub-agents (the assistant could not summarize them in time):';

export interface SynthesisDeps {
  clock: Pick<Clock, 'monoMs' | 'setTimeout'>;
  log: Log;
  results: ResultStore;
  engine: { readonly busy: boolean; run(req: TurnRequest): Promise<TurnOutcome> };
  send(chat: string, text: string, key: string, author: MessageAuthor): void;
}

interface Due {
  origin: JobOrigin;
  firstMono: number;
  timer: Timer | null;
  deadline: Timer;
}

export class Synthesis {
  private due = new Map<string, Due>();
  /** Automatic turns run, and direct deliveries (for GET /api/sessions and tests). */
  turns = 0;
  directs = 0;

  constructor(private readonly d: SynthesisDeps) {}

  /** A result landed for the origin's chat: (re)start the coalesce window. */
  landed(origin: JobOrigin): void {
    const { clock } = this.d;
    let e = this.due.get(origin.chat);
    if (!e) {
      const chat = origin.chat;
      e = { origin, firstMono: clock.monoMs(), timer: null, deadline: clock.setTimeout(() => this.direct(chat, 'it could not start within 60 s'), DIRECT_MS) };
      this.due.set(chat, e);
    }
    e.origin = origin;
    e.timer?.cancel();
    e.timer = clock.setTimeout(() => void this.fire(origin.chat), COALESCE_MS);
  }

  pendingChats(): string[] {
    return [...this.due.keys()];
  }

  private async fire(chat: string): Promise<void> {
    const e = this.due.get(chat);
    if (!e) return;
    e.timer = null;
    if (!this.d.results.fresh(chat).length) {
      // A turn of the chat showed them already.
      this.drop(chat);
      return;
    }
    if (this.d.engine.busy) {
      e.timer = this.d.clock.setTimeout(() => void this.fire(chat), SYNTH_RETRY_MS);
      return;
    }
    // It starts now: later results get a window of their own.
    this.drop(chat);
    const key = `synth:${this.d.results.fresh(chat).map((r) => r.tag).join(',')}`;
    this.turns++;
    let reply = '';
    let ask = '';
    let outcome: TurnOutcome | null = null;
    try {
      outcome = await this.d.engine.run({
        chat,
        text: '',
        person: e.origin.person,
        admin: e.origin.admin,
        origin: 'synthesis',
        unattended: true,
        preamble: SYNTHESIS_PREAMBLE,
        deliver: (r, a) => {
          reply = r;
          ask = a;
        },
      });
    } catch (err) {
      this.d.log.error('agents', `synthesis turn for ${chat} failed: ${errorMessage(err)}`);
    }
    if (outcome?.status === 'ok') {
      const text = [reply, ask].filter((t) => t.trim()).join('\n\n');
      // Keyed by the results' tags, which never repeat (a restart restarts the monotonic clock).
      // The assistant's own words, like any turn reply: not signed as the device's.
      if (text) this.d.send(chat, text, key, 'assistant');
      return;
    }
    this.direct(chat, outcome ? `the automatic turn ended with ${outcome.status}${outcome.error ? ` (${outcome.error})` : ''}` : 'the automatic turn failed');
  }

  private drop(chat: string): void {
    const e = this.due.get(chat);
    if (!e) return;
    e.timer?.cancel();
    e.deadline.cancel();
    this.due.delete(chat);
  }

  /** Delivers the chat's fresh results as they are, and marks them seen. */
  private direct(chat: string, why: string): void {
    this.drop(chat);
    const fresh = this.d.results.fresh(chat);
    if (!fresh.length) return;
    this.directs++;
    this.d.log.warn('agents', `delivering ${fresh.length} result(s) to ${chat} directly: ${why}`);
    const parts = fresh.map((r) => {
      const c = capChars(r.text, FRESH_CHARS);
      return `[${r.name}] (${r.tag}${r.kind === 'partial' ? ', partial' : ''}):\n${c.text}${c.cut ? '\n(cut; results.get has the rest)' : ''}`;
    });
    // The device hands the results over under its own heading (signed); the outbound check still reads them as model text.
    this.d.send(chat, [DIRECT_HEADING, ...parts].join('\n\n'), `direct:${fresh.map((r) => r.tag).join(',')}`, 'device');
    this.d.results.consume(fresh.map((r) => r.tag));
  }

  stop(): void {
    for (const chat of [...this.due.keys()]) this.drop(chat);
  }
}
