// One JSON exchange for the sub-agent backends: the key-over-http rule (a
// hosted provider's key never goes to a plain http:// URL; the custom
// endpoint runs keyless there), one body buffer, the deadline, and typed
// outcomes with the provider's error text (never the key, never the body).

import type { ClientErrorKind } from '../../net/http/client.ts';
import { errorText } from '../../providers/index.ts';
import { usableKey } from '../../providers/index.ts';
import type { ProviderId } from '../../contracts/index.ts';
import { leaksKey } from '../../providers/index.ts';
import { capBytes } from '../../util/cap.ts';
import { usageOf } from '../../providers/index.ts';
import type { BackendEnv } from './types.ts';
import { jsonBody, readObject } from '../../util/json.ts';

export type Exchange =
  | { ok: true; status: number; json: Record<string, unknown> | null; error: string }
  | { ok: false; kind: ClientErrorKind | 'config'; message: string };

export interface ExchangeRequest {
  provider: ProviderId;
  method: 'GET' | 'POST';
  url: string;
  /** How the key travels: Authorization: Bearer, or x-api-key (with anthropic-version). */
  auth: 'bearer' | 'x-api-key';
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  maxBodyBytes?: number;
  cancel?: { onCancel: (() => void) | null };
  /** The key to use instead of the provider's (null: keyless, the offline demo). */
  key?: string | null;
}

const ERROR_MAX = 240;

export async function exchange(env: BackendEnv, r: ExchangeRequest): Promise<Exchange> {
  const raw = r.key !== undefined ? r.key : env.key(r.provider);
  const k = usableKey(r.url, raw, r.provider, r.provider === 'custom');
  if (!('ok' in k)) return { ok: false, kind: 'config', message: k.message };
  const headers: Record<string, string> = { Accept: 'application/json', ...(r.headers ?? {}) };
  if (r.body !== undefined) headers['Content-Type'] = 'application/json';
  if (k.key !== null) {
    if (r.auth === 'bearer') headers['Authorization'] = `Bearer ${k.key}`;
    else headers['x-api-key'] = k.key;
  }
  if (leaksKey(r.url, headers, raw)) return { ok: false, kind: 'config', message: `refusing to send the ${r.provider} key over plain http` };
  const res = await env.client.request({
    method: r.method,
    url: r.url,
    headers,
    ...(r.body !== undefined ? { body: jsonBody(r.body) } : {}),
    timeoutMs: r.timeoutMs,
    ...(r.maxBodyBytes ? { maxBodyBytes: r.maxBodyBytes } : {}),
    ...(r.cancel ? { cancel: r.cancel } : {}),
  });
  if (!res.ok) return { ok: false, kind: res.error, message: capBytes(res.message, ERROR_MAX) };
  const { status, body } = res.response;
  const ok = status >= 200 && status <= 299;
  const json = ok ? readObject(body) : null;
  // An answer that says what it cost is counted (a background response once it has usage, a synchronous answer).
  const usage = json ? usageOf(json) : null;
  if (usage) env.usage?.(r.provider, usage);
  return { ok: true, status, json, error: ok ? '' : capBytes(`HTTP ${status}${errorText(body) ? `: ${errorText(body)}` : ''}`, ERROR_MAX) };
}

/** Whether a failed exchange is worth asking again later (network trouble, overload). */
export function transient(x: Exchange): boolean {
  if (!x.ok) return x.kind !== 'config' && x.kind !== 'bad-url' && x.kind !== 'too-large';
  return x.status === 429 || x.status >= 500;
}

/** A person-readable reason for a failed exchange. */
export function reason(x: Exchange): string {
  if (!x.ok) return x.kind === 'config' ? x.message : `${x.kind}: ${x.message}`;
  if (x.status === 401 || x.status === 403) return `the key was refused (${x.error})`;
  return x.error || `HTTP ${x.status}`;
}
