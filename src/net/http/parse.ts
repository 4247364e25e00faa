// HTTP/1.1 request parsing: the request head (request line and headers) and
// an incremental chunked-body decoder. Strict where leniency enables request
// smuggling (both Content-Length and Transfer-Encoding, conflicting lengths).

import { decode } from '../../util/utf8.ts';
import { replaceEvery } from '../../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const BAD_VALUE_CHAR = /[\x00-\x08\x0a-\x1f\x7f\ufffd]/;
const DECIMAL_LENGTH = /^\d{1,15}$/;
const CHUNK_SIZE_LINE = /^([0-9a-fA-F]{1,8})(;.*)?$/;
const PLUS_SIGNS = /\+/;
const HEX_PAIR = /^[0-9a-fA-F]{2}$/;

export interface RequestHead {
  method: string;
  path: string;
  query: string;
  version: '1.0' | '1.1';
  headers: Map<string, string>;
}

export type HeadResult = { ok: true; head: RequestHead } | { ok: false; status: number; reason: string };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TARGET = /^(\/[^\s#]*|\*)$/;

/** Finds the end of the head (CRLFCRLF); returns the index after it, or -1. */
export function findHeadEnd(buf: Uint8Array, from: number, length: number): number {
  for (let i = Math.max(3, from); i < length; i++) {
    if (buf[i] === 10 && buf[i - 1] === 13 && buf[i - 2] === 10 && buf[i - 3] === 13) return i + 1;
  }
  return -1;
}

export function parseHead(bytes: Uint8Array): HeadResult {
  // Heads are ASCII; a decode keeps any stray bytes visible as U+FFFD, which
  // the validation below then refuses.
  const text = decode(bytes);
  const lines = text.split('\r\n');
  const requestLine = lines[0] ?? '';
  const parts = requestLine.split(' ');
  if (parts.length !== 3) return { ok: false, status: 400, reason: 'malformed request line' };
  const [method, target, proto] = parts as [string, string, string];
  if (!TOKEN.test(method)) return { ok: false, status: 400, reason: 'bad method' };
  if (proto !== 'HTTP/1.1' && proto !== 'HTTP/1.0') return { ok: false, status: 400, reason: 'unsupported HTTP version' };
  if (!TARGET.test(target) || target.length > 2048) return { ok: false, status: 400, reason: 'bad request target' };
  const q = target.indexOf('?');
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    if (line[0] === ' ' || line[0] === '\t') return { ok: false, status: 400, reason: 'obsolete header folding' };
    const colon = line.indexOf(':');
    if (colon <= 0) return { ok: false, status: 400, reason: 'malformed header' };
    const name = line.slice(0, colon).toLowerCase();
    if (!TOKEN.test(name)) return { ok: false, status: 400, reason: 'bad header name' };
    const value = line.slice(colon + 1).trim();
    if (BAD_VALUE_CHAR.test(value)) return { ok: false, status: 400, reason: 'bad header value' };
    const prior = headers.get(name);
    headers.set(name, prior === undefined ? value : `${prior}, ${value}`);
  }
  return {
    ok: true,
    head: {
      method,
      path: q < 0 ? target : target.slice(0, q),
      query: q < 0 ? '' : target.slice(q + 1),
      version: proto === 'HTTP/1.1' ? '1.1' : '1.0',
      headers,
    },
  };
}

export type BodyFraming = { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'error'; status: number; reason: string };

export function bodyFraming(headers: Map<string, string>): BodyFraming {
  const te = headers.get('transfer-encoding');
  const cl = headers.get('content-length');
  if (te !== undefined) {
    if (cl !== undefined) return { kind: 'error', status: 400, reason: 'both Content-Length and Transfer-Encoding' };
    if (te.toLowerCase() !== 'chunked') return { kind: 'error', status: 400, reason: 'unsupported Transfer-Encoding' };
    return { kind: 'chunked' };
  }
  if (cl === undefined) return { kind: 'none' };
  const values = cl.split(',').map((v) => v.trim());
  if (!values.every((v) => DECIMAL_LENGTH.test(v) && v === values[0])) return { kind: 'error', status: 400, reason: 'bad Content-Length' };
  const length = Number(values[0]);
  return length === 0 ? { kind: 'none' } : { kind: 'length', length };
}

/**
 * Incremental chunked decoder. feed() consumes bytes and returns how many it
 * used; data goes to onData; done turns true after the last chunk and trailers.
 */
export class ChunkedDecoder {
  done = false;
  error: string | null = null;
  private state: 'size' | 'data' | 'data-crlf' | 'trailer' = 'size';
  private line = '';
  private remaining = 0;

  constructor(private readonly onData: (bytes: Uint8Array) => void) {}

  feed(buf: Uint8Array): number {
    let i = 0;
    while (i < buf.length && !this.done && !this.error) {
      if (this.state === 'data') {
        const n = Math.min(this.remaining, buf.length - i);
        this.onData(buf.subarray(i, i + n));
        this.remaining -= n;
        i += n;
        if (this.remaining === 0) this.state = 'data-crlf';
        continue;
      }
      const c = buf[i++]!;
      if (c !== 10) {
        if (this.line.length > 256) {
          this.error = 'chunk line too long';
          break;
        }
        this.line += String.fromCharCode(c);
        continue;
      }
      const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
      this.line = '';
      if (this.state === 'data-crlf') {
        if (line !== '') this.error = 'missing CRLF after chunk';
        this.state = 'size';
      } else if (this.state === 'size') {
        const m = CHUNK_SIZE_LINE.exec(line);
        if (!m) {
          this.error = 'bad chunk size';
          break;
        }
        this.remaining = parseInt(m[1]!, 16);
        this.state = this.remaining === 0 ? 'trailer' : 'data';
      } else if (line === '') {
        this.done = true;
      }
    }
    return i;
  }
}

/** Decodes application/x-www-form-urlencoded (and query strings). Last value wins. */
export function parseUrlEncoded(text: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!text) return out;
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const k = eq < 0 ? pair : pair.slice(0, eq);
    const v = eq < 0 ? '' : pair.slice(eq + 1);
    const key = percentDecode(replaceEvery(k, PLUS_SIGNS, ' '));
    const value = percentDecode(replaceEvery(v, PLUS_SIGNS, ' '));
    if (key !== null && value !== null) out.set(key, value);
  }
  return out;
}

/**
 * Percent-decodes UTF-8; returns null on malformed escapes. Iterates by code
 * point (for...of), which is right under both XS string models.
 */
export function percentDecode(s: string): string | null {
  if (!s.includes('%')) return s;
  const parts: string[] = [];
  let bytes: number[] = [];
  let pending = 0;
  let hex = '';
  const flush = (): void => {
    if (bytes.length) parts.push(decode(Uint8Array.from(bytes)));
    bytes = [];
  };
  for (const ch of s) {
    if (pending) {
      hex += ch;
      if (--pending === 0) {
        if (!HEX_PAIR.test(hex)) return null;
        bytes.push(parseInt(hex, 16));
        hex = '';
      }
      continue;
    }
    if (ch === '%') {
      pending = 2;
      continue;
    }
    flush();
    parts.push(ch);
  }
  if (pending) return null;
  flush();
  return parts.join('');
}
