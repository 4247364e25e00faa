// A response as the bytes the HTTP server writes: the status line and headers
// (never split by a value carrying a line break), Content-Length or chunked
// framing, keep-alive, and a whole answer that closes the connection.

import { encode } from '../../util/utf8.ts';
import { STATUS_TEXT, type HttpResponse } from './types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAK = /[\r\n]/;

export function bodyBytes(body: Uint8Array | string | undefined): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  return typeof body === 'string' ? encode(body) : body;
}

export function serializeHead(res: HttpResponse, keepAlive: boolean, version: '1.0' | '1.1', length: number | null): Uint8Array {
  const text = STATUS_TEXT[res.status] ?? 'Status';
  let head = `HTTP/1.1 ${res.status} ${text}\r\n`;
  const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff', ...res.headers };
  for (const [k, v] of Object.entries(headers)) {
    if (LINE_BREAK.test(k) || LINE_BREAK.test(v)) continue; // never let a value split the head
    head += `${k}: ${v}\r\n`;
  }
  if (length === null) head += 'Transfer-Encoding: chunked\r\n';
  else head += `Content-Length: ${length}\r\n`;
  head += keepAlive ? (version === '1.0' ? 'Connection: keep-alive\r\n' : '') : 'Connection: close\r\n';
  return encode(head + '\r\n');
}

/** A complete response that closes the connection (errors before or instead of a handler). */
export function serializeWhole(res: HttpResponse): Uint8Array {
  const body = bodyBytes(res.body);
  return concat(serializeHead(res, false, '1.1', body.length), body);
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
