// A streamed round (stream: true): the answer arrives as Server-Sent Events
// (src/net/http/sse.ts) and a dialect's StreamReader assembles them into the
// answer object the whole-answer parser reads (Responses' response, a
// Messages message, a chat completion, Mistral's conversation outputs), so a
// streamed round and a whole one end in the same RoundResult. While it
// assembles, the reader hands on the turn's text as it grows: the orch_turn
// call's arguments, or in a single-shot round the JSON text itself (the turn
// engine reads the reply out of it: src/turn/reply-stream.ts). Nothing else
// is handed on: a tool round's calls, a plain-text answer in a loop round and
// reasoning are read only once the round is complete.
//
// An error or refusal mid-stream ends the reader with that result (events
// after it are ignored); a stream that ends before its closing event is a
// transport failure (worth a retry or a failover), never a half answer.

import { isPlainObject, parseJson } from '../util/json.ts';
import { fail, isOverflow } from './errors.ts';
import type { ProviderId } from './settings.ts';
import type { RoundResult } from '../contracts/index.ts';

export type Obj = Record<string, unknown>;

/** Reads one dialect's events into a round result. */
export interface StreamReader {
  /** One event of the stream: its name (the SSE event field, "message" when unnamed) and its data. */
  event(name: string, data: string): void;
  /** The stream ended: the round's result. */
  finish(): RoundResult;
}

/** The turn's text as it grows (a piece at a time, in order). */
export type TurnTextSink = (delta: string) => void;

/** An event's data as a JSON object, or null. */
export function eventObject(data: string): Obj | null {
  const p = parseJson(data);
  return p.ok && isPlainObject(p.value) ? p.value : null;
}

/** A failure a provider reported inside the stream, by its code or type and words. */
export function streamFailure(provider: ProviderId, code: unknown, message: unknown): RoundResult {
  const c = typeof code === 'string' || typeof code === 'number' ? String(code) : '';
  const m = typeof message === 'string' ? message : '';
  const text = [c, m].filter(Boolean).join(': ') || 'no reason given';
  if (isOverflow(provider, text)) return fail('context-overflow', `${provider}: ${text}`);
  if (c === 'rate_limit_exceeded' || c === 'rate_limit_error' || c === '429') return fail('rate-limit', `${provider}: ${text}`);
  // Overloaded, server errors and the rest: worth a retry or another provider.
  return fail('http', `${provider}: the answer failed mid-stream: ${text}`);
}

/** The stream stopped before the dialect's closing event. */
export function cutShort(provider: ProviderId): RoundResult {
  return fail('transport', `${provider}: the answer's stream ended before it was complete`);
}

/** A list of text pieces joined once (a growing string would be copied at every piece). */
export class Pieces {
  private parts: string[] = [];
  add(s: string): void {
    if (s) this.parts.push(s);
  }
  get empty(): boolean {
    return this.parts.length === 0;
  }
  text(): string {
    if (this.parts.length > 1) this.parts = [this.parts.join('')];
    return this.parts[0] ?? '';
  }
}
