// What the backends share: the one-buffer request body, the key-over-http
// rule, reading a response body as JSON, recovering a turn object from
// free text, and the transcript's leading system prompt.

import { isPlainObject, parseJson, readObject, stringify } from '../util/json.ts';
import { isPlainHttp } from '../net/url.ts';
import type { ProviderId } from './settings.ts';
import type { ToolServer } from './tool-servers.ts';
import { fromStatus, malformed } from './errors.ts';
import { usageOf } from './usage.ts';
import type { Backend, RoundRequest, RoundResult, TranscriptItem, WireRequest } from '../contracts/index.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const FENCE_OPEN = /^```[A-Za-z0-9_-]*[ \t]*\r?\n/;
const FENCE_CLOSE = /\r?\n?```\s*$/;

/**
 * The field documentation travels once, in the system prompt, and the
 * orch_turn tool and the structured-output schema get these short
 * descriptions: the docs are about 4 KB, and OpenAI-compatible servers have
 * refused function descriptions over 1024 characters (string_above_max_length).
 */
export const TURN_TOOL_DESCRIPTION = 'Ends the turn: call this once with the turn object. Its fields are documented in the instructions.';
export const TURN_SCHEMA_DESCRIPTION = 'The turn object. Its fields are documented in the instructions.';

/** A build failure, in the Backend.build result shape. */
export type BuildError = { kind: 'error'; error: 'config'; message: string };
/** Which event stream a streamed request's answer speaks (src/providers/stream*.ts read each). */
export type StreamDialect = 'responses' | 'messages' | 'chat' | 'conversations';
export type BuildResult = (WireRequest & { dialect?: StreamDialect }) | BuildError;

/** The headers every JSON request carries; a streamed one asks for the event stream. */
export function jsonHeaders(stream: boolean | undefined): Record<string, string> {
  return { 'Content-Type': 'application/json', Accept: stream ? 'text/event-stream' : 'application/json' };
}

export function configError(message: string): BuildError {
  return { kind: 'error', error: 'config', message };
}

/**
 * The key a request to url may carry (spec, Authentication 15: provider keys
 * never go over plain http://). A keyed provider on a plain-http URL is a
 * configuration error; the custom endpoint (keyOptional) runs keyless there.
 */
export function usableKey(url: string, key: string | null, provider: ProviderId, keyOptional: boolean): { ok: true; key: string | null } | BuildError {
  const k = key !== null && key !== '' ? key : null;
  if (!isPlainHttp(url)) {
    if (k === null && !keyOptional) return configError(`no ${provider} key is set`);
    return { ok: true, key: k };
  }
  if (keyOptional) return { ok: true, key: null };
  return configError(`refusing to send the ${provider} key over plain http`);
}

/**
 * The prologue every dialect's answer shares: a status outside 2xx is the
 * provider's error, the body must be a JSON object, and the usage it reports
 * rides on whatever the dialect reads from it.
 */
export function parseRound(provider: ProviderId, status: number, bytes: Uint8Array, read: (obj: Record<string, unknown>) => RoundResult): RoundResult {
  if (status < 200 || status > 299) return fromStatus(provider, status, bytes);
  const obj = readObject(bytes);
  if (obj === null) return malformed(provider, 'the answer is not a JSON object');
  const usage = usageOf(obj);
  const r = read(obj);
  return usage ? { ...r, usage } : r;
}


/**
 * The turn object's text from a model's free-text answer: trimmed, with a
 * Markdown code fence around it removed (non-strict models add one). The
 * parser (src/turn/parse.ts) judges the rest.
 */
export function turnText(text: string): string {
  let t = text.trim();
  if (FENCE_OPEN.test(t) && FENCE_CLOSE.test(t)) t = t.replace(FENCE_OPEN, '').replace(FENCE_CLOSE, '').trim();
  return t;
}

/** A turn result; the transcript keeps it as assistant text, which every dialect can replay. */
export function turnResult(json: string): RoundResult {
  return { kind: 'turn', json, items: [{ kind: 'assistant', text: json }] };
}

export function toolsResult(calls: Array<{ id: string; name: string; args: string }>, items: TranscriptItem[]): RoundResult {
  return { kind: 'tools', calls, items };
}

/** Tool-call arguments as an object (dialects that carry them parsed); malformed text reads as {}. */
export function argsObject(args: string): Record<string, unknown> {
  const p = parseJson(args);
  return p.ok && isPlainObject(p.value) ? p.value : {};
}

/** Arguments as the transcript keeps them: JSON text, whatever the dialect sent. */
export function argsText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '{}';
  return stringify(v);
}

/**
 * Splits the transcript into its leading system prompt (the prompt blocks)
 * and the rest. Dialects without a system role mid-conversation turn later
 * system items into user text.
 */
export function splitSystem(transcript: readonly TranscriptItem[]): { system: string[]; rest: TranscriptItem[] } {
  const system: string[] = [];
  let i = 0;
  for (; i < transcript.length; i++) {
    const item = transcript[i]!;
    if (item.kind !== 'system') break;
    system.push(item.text);
  }
  return { system, rest: transcript.slice(i) };
}

/** Plain text of a content value: a string, or an array of text parts ({type: text|output_text, text}). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const c of content) {
    if (typeof c === 'string') parts.push(c);
    else if (isPlainObject(c) && typeof c['text'] === 'string' && (c['type'] === undefined || c['type'] === 'text' || c['type'] === 'output_text')) parts.push(c['text']);
  }
  return parts.join('');
}

/**
 * What the wire adds to the engine's RoundRequest and Backend (compatible
 * extensions kept here, so types.ts stays the engine's contract):
 * schemaless asks a single-shot round for the turn as plain JSON text, with
 * no provider-side schema (the custom endpoint's retry after a 400), and a
 * backend with schemalessRetry gets that retry from the wire. servers are
 * the remote tool servers a loop round of provider A or B carries
 * (tool-servers.ts), resolved by the wire with their credentials. stream
 * asks for the answer as an event stream (stream: true in the body).
 */
export type WireRound = RoundRequest & { schemaless?: boolean; servers?: ToolServer[]; stream?: boolean };
export type WireBackend = Backend & { schemalessRetry?: boolean };
