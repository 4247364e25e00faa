// One request and its answer on one connection (src/net/http/client.ts makes
// them): the request written once (a streamed body pulled while the socket's
// queue has room), the answer's head and body read as they come (chunked,
// Content-Length, or until the close), the whole-exchange deadline and the
// silence deadline, the caller's cancel. When the answer was read whole and
// the server keeps the connection (HTTP/1.1, framed, no Connection: close),
// the connection goes back to the pool instead of being closed. An answer that
// never began on a kept-alive connection is reported 'stale', for the client
// to send again on a fresh one where that is safe.

import type { Clock, PendingSocket, Timer } from '../../hal/index.ts';
import { decode } from '../../util/utf8.ts';
import { ChunkedDecoder, findHeadEnd } from './parse.ts';
import type { ClientErrorKind, ClientRequest, ClientResult } from './client-types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})/;

const MAX_HEAD = 16 * 1024;
const DEFAULT_MAX_BODY = 1024 * 1024;
/** A streamed request body is pulled while fewer bytes than this wait in the socket's queue. */
export const SEND_HIGH_WATER = 8 * 1024;

/** What an exchange ends with: the result, or 'stale' (a kept-alive connection closed before any answer). */
export type ExchangeEnd = ClientResult | { stale: true; message: string };

export class Exchange {
  private socket: PendingSocket | null = null;
  private timer: Timer | null = null;
  private idleTimer: Timer | null = null;
  private lastByte = 0;
  private done = false;
  private buf: Uint8Array = new Uint8Array(0);
  private status = 0;
  private minor = 1;
  private headers: Map<string, string> | null = null;
  private chunks: Uint8Array[] = [];
  private received = 0;
  private expected: number | null = null;
  private chunked: ChunkedDecoder | null = null;
  private connected = false;
  /** Bytes of any answer seen (a stale connection sees none). */
  private heard = 0;
  private sent = 0;
  private sourceDone = false;

  constructor(
    private readonly clock: Clock,
    private readonly req: ClientRequest,
    private readonly wire: Uint8Array,
    private readonly timeoutMs: number,
    /** The connection was kept alive from an earlier request. */
    private readonly reused: boolean,
    private readonly resolve: (r: ExchangeEnd) => void,
    /** Takes the connection back when the answer was read whole and the server keeps it. */
    private readonly keep: ((socket: PendingSocket) => void) | null,
  ) {}

  start(socket: PendingSocket): void {
    this.timer = this.clock.setTimeout(() => this.fail('timeout', `no complete answer within ${this.timeoutMs} ms`), this.timeoutMs);
    if (this.req.cancel) this.req.cancel.onCancel = () => this.fail('aborted', 'cancelled');
    this.socket = socket;
    socket.onConnect = () => this.send();
    if (this.req.bodySource) socket.onDrain = () => this.pump();
    socket.onData = (chunk) => this.data(chunk);
    socket.onEnd = () => this.closed(null);
    socket.onClose = (error) => this.closed(error);
    if (this.reused) this.send();
  }

  private send(): void {
    if (this.done || !this.socket || this.connected) return;
    this.connected = true;
    this.socket.write(this.wire);
    this.pump();
    this.armIdle();
  }

  /** The silence deadline: no byte of the answer for idleTimeoutMs (from the request's end, then from each byte). */
  private armIdle(): void {
    const idle = this.req.idleTimeoutMs;
    if (idle === undefined || this.done) return;
    this.lastByte = this.clock.monoMs();
    if (this.idleTimer) return;
    const check = (): void => {
      this.idleTimer = null;
      if (this.done) return;
      const quiet = this.clock.monoMs() - this.lastByte;
      if (quiet >= idle) return this.fail('timeout', `no byte of the answer for ${idle} ms`);
      // Re-armed for what is left instead of on every chunk (one timer, not one per chunk).
      this.idleTimer = this.clock.setTimeout(check, idle - quiet);
    };
    this.idleTimer = this.clock.setTimeout(check, idle);
  }

  /** Feeds a streamed body while the socket's queue has room; onDrain calls it again. */
  private pump(): void {
    const src = this.req.bodySource;
    const s = this.socket;
    if (!src || !s || this.sourceDone || this.done) return;
    while (s.buffered < SEND_HIGH_WATER) {
      let chunk: Uint8Array | null;
      try {
        chunk = src.next();
      } catch (e) {
        return this.fail('aborted', `the request body failed: ${String(e)}`);
      }
      if (this.done) return;
      if (!chunk) {
        this.sourceDone = true;
        if (this.sent !== src.length) this.fail('aborted', `the request body gave ${this.sent} of ${src.length} bytes`);
        return;
      }
      if (this.sent + chunk.length > src.length) return this.fail('aborted', `the request body is longer than its ${src.length} bytes`);
      this.sent += chunk.length;
      if (chunk.length) s.write(chunk);
    }
  }

  private end(result: ExchangeEnd, reusable: boolean): void {
    if (this.done) return;
    this.done = true;
    this.timer?.cancel();
    this.idleTimer?.cancel();
    this.idleTimer = null;
    if (this.req.cancel) this.req.cancel.onCancel = null;
    const s = this.socket;
    this.socket = null;
    if (s) {
      if (reusable && this.keep) this.keep(s);
      else {
        s.onData = null;
        s.onEnd = null;
        s.onClose = null;
        s.onDrain = null;
        s.destroy();
      }
    }
    this.resolve(result);
  }

  private fail(error: ClientErrorKind, message: string): void {
    this.end({ ok: false, error, message }, false);
  }

  private succeed(reusable: boolean): void {
    const body = new Uint8Array(this.received > 0 && !this.req.onBody ? this.received : 0);
    if (body.length) {
      let o = 0;
      for (const c of this.chunks) {
        body.set(c, o);
        o += c.length;
      }
    }
    this.end({ ok: true, response: { status: this.status, headers: this.headers ?? new Map(), body } }, reusable);
  }

  private closed(error: string | null): void {
    if (this.done) return;
    // A kept-alive connection the server had already closed: nothing of an answer came.
    if (this.reused && this.heard === 0) return this.end({ stale: true, message: error ?? 'the kept-alive connection was closed' }, false);
    if (error) {
      const kind: ClientErrorKind = error.startsWith('ETLS') ? 'tls' : error.startsWith('ETIMEDOUT') ? 'timeout' : this.connected ? 'protocol' : 'connect';
      return this.fail(kind, error);
    }
    if (!this.headers) return this.fail(this.connected ? 'protocol' : 'connect', 'connection closed before a response');
    if (this.chunked && !this.chunked.done) return this.fail('protocol', 'connection closed inside a chunked body');
    if (this.expected !== null && this.received < this.expected) return this.fail('protocol', `body ended after ${this.received} of ${this.expected} bytes`);
    this.succeed(false);
  }

  private data(chunk: Uint8Array): void {
    if (this.done) return;
    this.heard += chunk.length;
    if (this.idleTimer) this.lastByte = this.clock.monoMs();
    if (this.headers) return this.body(chunk);
    const merged = new Uint8Array(this.buf.length + chunk.length);
    merged.set(this.buf);
    merged.set(chunk, this.buf.length);
    this.buf = merged;
    const end = findHeadEnd(this.buf, 0, this.buf.length);
    if (end < 0) {
      if (this.buf.length > MAX_HEAD) this.fail('protocol', 'response head too large');
      return;
    }
    if (!this.parseHead(decode(this.buf.subarray(0, end - 4)))) return;
    const rest = this.buf.subarray(end);
    this.buf = new Uint8Array(0);
    if (this.status === 100) {
      // An interim answer: the real head follows.
      this.headers = null;
      if (rest.length) this.data(rest.slice());
      return;
    }
    if (this.req.onHead && this.req.onHead(this.status, this.headers!) === false) return this.fail('aborted', 'refused by the caller');
    if (this.noBody()) return this.succeed(this.reusable() && rest.length === 0);
    if (rest.length) this.body(rest.slice());
    else this.checkComplete();
  }

  private parseHead(text: string): boolean {
    const lines = text.split('\r\n');
    const m = STATUS_LINE.exec(lines[0] ?? '');
    if (!m) {
      this.fail('protocol', 'not an HTTP response');
      return false;
    }
    this.minor = Number(m[1]);
    this.status = Number(m[2]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const k = line.slice(0, i).trim().toLowerCase();
      const v = line.slice(i + 1).trim();
      headers.set(k, headers.has(k) ? `${headers.get(k)}, ${v}` : v);
    }
    this.headers = headers;
    this.chunked = null;
    this.expected = null;
    const te = headers.get('transfer-encoding')?.toLowerCase();
    if (te === 'chunked') this.chunked = new ChunkedDecoder((b) => this.take(b));
    else if (headers.has('content-length')) {
      const n = Number(headers.get('content-length'));
      if (!Number.isSafeInteger(n) || n < 0) {
        this.fail('protocol', 'bad Content-Length');
        return false;
      }
      this.expected = n;
    }
    return true;
  }

  /** Whether the server keeps the connection after this answer: HTTP/1.1 and no Connection: close. */
  private reusable(): boolean {
    if (this.minor !== 1) return false;
    const c = this.headers?.get('connection')?.toLowerCase() ?? '';
    return !c.split(',').some((t) => t.trim() === 'close');
  }

  private noBody(): boolean {
    return this.req.method === 'HEAD' || this.status === 204 || this.status === 304 || this.expected === 0;
  }

  private take(bytes: Uint8Array): void {
    if (this.done || !bytes.length) return;
    this.received += bytes.length;
    if (this.req.onBody) {
      if (this.req.onBody(bytes.slice()) === false) this.fail('aborted', 'refused by the caller');
      return;
    }
    if (this.received > (this.req.maxBodyBytes ?? DEFAULT_MAX_BODY)) return this.fail('too-large', `body over ${this.req.maxBodyBytes ?? DEFAULT_MAX_BODY} bytes`);
    this.chunks.push(bytes.slice());
  }

  /** Bytes past the answer's end (a server writing more than it framed): the connection is not reused. */
  private extra = 0;

  private body(chunk: Uint8Array): void {
    if (this.chunked) {
      const used = this.chunked.feed(chunk);
      if (this.chunked.error) return this.fail('protocol', this.chunked.error);
      if (this.chunked.done) this.extra += chunk.length - used;
    } else if (this.expected !== null) {
      const n = Math.min(chunk.length, this.expected - this.received);
      this.extra += chunk.length - n;
      this.take(chunk.subarray(0, n));
    } else this.take(chunk);
    this.checkComplete();
  }

  private checkComplete(): void {
    if (this.done) return;
    // Framed and read whole: the connection may carry the next request. Read until the close: it cannot.
    if (this.chunked?.done || (this.expected !== null && this.received >= this.expected)) this.succeed(this.reusable() && this.extra === 0);
  }
}
