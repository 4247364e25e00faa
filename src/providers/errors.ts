// Failure classification for the provider wire: an HTTP client failure, or a
// provider's non-2xx answer, becomes one ProviderErrorKind the turn engine
// acts on (retry, fail over, fresh thread, or give up). Context overflow is
// recognized by each provider's wording (spec, Other failure rules 4), since
// the status alone (400) says nothing.

import type { ClientErrorKind } from '../net/http/client.ts';
import { capBytes } from '../util/cap.ts';
import { isPlainObject, parseJson } from '../util/json.ts';
import { decode } from '../util/utf8.ts';
import type { ProviderId } from './settings.ts';
import type { ProviderErrorKind, RoundResult } from '../contracts/index.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
// Each provider's context-overflow wording, as its API reports it:
//   openai     code context_length_exceeded; "This model's maximum context length is ..."; Responses:
//              "Your input exceeds the context window of this model."
//   anthropic  "prompt is too long: 215000 tokens > 200000 maximum"; "Input is too long for requested model"
//   mistral    "Prompt contains 40000 tokens ... too large for model with 32768 maximum context length"
//   zai        code 1261 "Prompt exceeds max length"; "tokens in request more than max tokens allowed"
// The router and custom endpoints proxy any of them, so they match all.
const OVERFLOW: Readonly<Record<Exclude<ProviderId, 'router' | 'custom'>, RegExp>> = {
  openai: /context_length_exceeded|maximum context length|exceeds the context window|context window of this model/i,
  anthropic: /prompt is too long|input is too long|request_too_large/i,
  mistral: /too large for model|maximum context length|context length exceeded|context_length_exceeded/i,
  zai: /prompt exceeds max length|tokens in request more than max tokens|maximum context length|\b1261\b/i,
};
const ALL_OVERFLOW = [OVERFLOW.openai, OVERFLOW.anthropic, OVERFLOW.mistral, OVERFLOW.zai];

/** Longest provider message kept in an error (bytes); the rest is noise for a log line. */
const MESSAGE_MAX = 240;

export function fail(error: ProviderErrorKind, message: string, status?: number): RoundResult {
  const m = capBytes(message, MESSAGE_MAX);
  return status === undefined ? { kind: 'error', error, message: m } : { kind: 'error', error, message: m, status };
}

/** A client failure: no exchange completed. */
export function fromClient(kind: ClientErrorKind, message: string): RoundResult {
  switch (kind) {
    case 'timeout':
      return fail('timeout', message);
    case 'bad-url':
      return fail('config', message);
    case 'too-large':
      // The answer overflowed the body cap: not what any dialect promises.
      return fail('malformed', message);
    default:
      return fail('transport', `${kind}: ${message}`);
  }
}

/** Whether a provider's error text says the prompt is over the model's context. */
export function isOverflow(provider: ProviderId, text: string): boolean {
  if (provider === 'router' || provider === 'custom') return ALL_OVERFLOW.some((re) => re.test(text));
  return OVERFLOW[provider].test(text);
}

/** The readable parts of an error body (message, code, type), whatever the dialect's shape. */
export function errorText(body: Uint8Array): string {
  const text = decode(body);
  const parsed = parseJson(text);
  if (!parsed.ok || !isPlainObject(parsed.value)) return text.trim();
  const o = parsed.value;
  const parts: string[] = [];
  const take = (v: unknown): void => {
    if (typeof v === 'string' && v !== '') parts.push(v);
    else if (typeof v === 'number') parts.push(String(v));
  };
  const err = o['error'];
  if (isPlainObject(err)) {
    take(err['message']);
    take(err['code']);
    take(err['type']);
  } else take(err);
  take(o['message']);
  take(o['code']);
  take(o['type']);
  const detail = o['detail'];
  if (typeof detail === 'string') take(detail);
  else if (Array.isArray(detail)) for (const d of detail) if (isPlainObject(d)) take(d['msg']);
  return parts.length ? parts.join(' | ') : text.trim();
}

/** A non-2xx answer. */
export function fromStatus(provider: ProviderId, status: number, body: Uint8Array): RoundResult {
  const text = errorText(body);
  const message = `HTTP ${status}${text ? `: ${text}` : ''}`;
  if (status === 401 || status === 403) return fail('auth', message, status);
  if (status === 429) return fail('rate-limit', message, status);
  // 413 is the messages API's request_too_large: the transcript outgrew what the provider takes.
  if ((status >= 400 && status < 500 && isOverflow(provider, text)) || status === 413) return fail('context-overflow', message, status);
  return fail('http', message, status);
}

/** A 2xx answer that is not what the dialect promises. */
export function malformed(provider: ProviderId, why: string): RoundResult {
  return fail('malformed', `${provider}: ${why}`);
}
