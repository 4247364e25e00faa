// The outbound HTTP/1.1 client over HAL sockets: one connection per request
// (Connection: close), the request serialized into one buffer and written
// once, TLS under the device's tlsVerify policy and CA bundle, deadlines,
// a body cap, and an optional streaming body. A large request body (a voice
// recording read from the card) comes from a BodySource instead: its length
// is known up front (Content-Length), and it is pulled a chunk at a time
// while the socket's queue is below SEND_HIGH_WATER, resuming on onDrain,
// so the XS heap holds one chunk of it at a time. Failures are typed results,
// so callers can tell a timeout from a refused connection.

import type { Clock, Net, PendingSocket, Timer } from '../../hal/index.ts';
import { encode } from '../../util/utf8.ts';
import { parseUrl } from '../url.ts';
import { ChunkedDecoder, findHeadEnd } from './parse.ts';
import { decode } from '../../util/utf8.ts';
import { replaceEvery } from '../../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAK = /[\r\n]/;
const IPV6_BRACKETS = /^\[|\]$/;
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})/;

/** Where TLS settings come from: tlsVerify (persisted) and the embedded CA bundle. */
export interface TlsPolicy {
  verify(): boolean;
  caBundle(): string;
}

export interface ClientRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** A body pulled chunk by chunk instead of body (which must then be absent). */
  bodySource?: BodySource;
  /** Deadline for the whole exchange (default 30 s). */
  timeoutMs?: number;
  /** Deadline for connecting and the TLS handshake (default min(timeoutMs, 10 s)). */
  connectTimeoutMs?: number;
  /** Largest buffered body (default 1 MB); streaming bodies are not capped here. */
  maxBodyBytes?: number;
  /** Validate the certificate whatever tlsVerify says (the cloud relay). */
  alwaysVerify?: boolean;
  /** Called once with the status and headers; return false to abort. */
  onHead?: (status: number, headers: Map<string, string>) => boolean | void;
  /** Streams the body instead of buffering it; return false to abort. */
  onBody?: (chunk: Uint8Array) => boolean | void;
  /** Lets the caller cancel: the request ends with error 'aborted'. */
  cancel?: { onCancel: (() => void) | null };
}

/** A request body of known length, read a chunk at a time as the socket takes it. */
export interface BodySource {
  readonly length: number;
  /** The next chunk (at most about 4 KB), or null at the end; a throw fails the request. */
  next(): Uint8Array | null;
}

export interface ClientResponse {
  status: number;
  headers: Map<string, string>;
  /** The body (empty when streamed through onBody). */
  body: Uint8Array;
}

export type ClientErrorKind = 'bad-url' | 'connect' | 'tls' | 'timeout' | 'protocol' | 'too-large' | 'aborted';

export type ClientResult = { ok: true; response: ClientResponse } | { ok: false; error: ClientErrorKind; message: string };

const DEFAULT_TIMEOUT = 30_000;
const DEFAULT_MAX_BODY = 1024 * 1024;
const MAX_HEAD = 16 * 1024;
/** A streamed request body is pulled while fewer bytes than this wait in the socket's queue. */
export const SEND_HIGH_WATER = 8 * 1024;

export class HttpClient {
  constructor(
    private readonly net: Net,
    private readonly clock: Clock,
    private readonly tls: TlsPolicy,
    /** The User-Agent the device sends. */
    private readonly agent = 'desk-assistant',
  ) {}

  request(req: ClientRequest): Promise<ClientResult> {
    const parsed = parseUrl(req.url);
    if (!parsed.ok) return Promise.resolve({ ok: false, error: 'bad-url', message: parsed.error });
    const url = parsed.url;
    const body = req.body === undefined ? new Uint8Array(0) : typeof req.body === 'string' ? encode(req.body) : req.body;
    if (req.bodySource && req.body !== undefined) return Promise.resolve({ ok: false, error: 'bad-url', message: 'a request has body or bodySource, not both' });
    const length = req.bodySource ? req.bodySource.length : body.length;
    const headers: Record<string, string> = { Host: url.authority, 'User-Agent': this.agent, Connection: 'close', ...req.headers };
    if (length || !['GET', 'HEAD', 'DELETE'].includes(req.method)) headers['Content-Length'] = String(length);
    let head = `${req.method} ${url.target} HTTP/1.1\r\n`;
    for (const [k, v] of Object.entries(headers)) {
      if (LINE_BREAK.test(k + v)) return Promise.resolve({ ok: false, error: 'bad-url', message: `header ${k} contains a line break` });
      head += `${k}: ${v}\r\n`;
    }
    const headBytes = encode(head + '\r\n');
    const wire = new Uint8Array(headBytes.length + body.length);
    wire.set(headBytes);
    wire.set(body, headBytes.length);
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT;
    const tls = url.scheme === 'https' ? { serverName: replaceEvery(url.host, IPV6_BRACKETS, ''), verify: req.alwaysVerify === true || this.tls.verify(), caBundle: this.tls.caBundle() } : undefined;
    return new Promise<ClientResult>((resolve) => {
      new Exchange(this.clock, req, wire, timeoutMs, resolve).start(() =>
        this.net.connect({
          host: replaceEvery(url.host, IPV6_BRACKETS, ''),
          port: url.port,
          ...(tls ? { tls } : {}),
          timeoutMs: Math.min(req.connectTimeoutMs ?? 10_000, timeoutMs),
        }),
      );
    });
  }
}

class Exchange {
  private socket: PendingSocket | null = null;
  private timer: Timer | null = null;
  private done = false;
  private buf: Uint8Array = new Uint8Array(0);
  private status = 0;
  private headers: Map<string, string> | null = null;
  private chunks: Uint8Array[] = [];
  private received = 0;
  private expected: number | null = null;
  private chunked: ChunkedDecoder | null = null;
  private connected = false;

  constructor(
    private readonly clock: Clock,
    private readonly req: ClientRequest,
    private readonly wire: Uint8Array,
    private readonly timeoutMs: number,
    private readonly resolve: (r: ClientResult) => void,
  ) {}

  start(connect: () => PendingSocket): void {
    this.timer = this.clock.setTimeout(() => this.fail('timeout', `no complete answer within ${this.timeoutMs} ms`), this.timeoutMs);
    if (this.req.cancel) this.req.cancel.onCancel = () => this.fail('aborted', 'cancelled');
    const s = connect();
    this.socket = s;
    s.onConnect = () => {
      this.connected = true;
      s.write(this.wire);
      this.pump();
    };
    if (this.req.bodySource) s.onDrain = () => this.pump();
    s.onData = (chunk) => this.data(chunk);
    s.onEnd = () => this.closed(null);
    s.onClose = (error) => this.closed(error);
  }

  private sent = 0;
  private sourceDone = false;

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

  private finish(result: ClientResult): void {
    if (this.done) return;
    this.done = true;
    this.timer?.cancel();
    if (this.req.cancel) this.req.cancel.onCancel = null;
    this.socket?.destroy();
    this.resolve(result);
  }

  private fail(error: ClientErrorKind, message: string): void {
    this.finish({ ok: false, error, message });
  }

  private succeed(): void {
    const body = new Uint8Array(this.received > 0 && !this.req.onBody ? this.received : 0);
    if (body.length) {
      let o = 0;
      for (const c of this.chunks) {
        body.set(c, o);
        o += c.length;
      }
    }
    this.finish({ ok: true, response: { status: this.status, headers: this.headers ?? new Map(), body } });
  }

  private closed(error: string | null): void {
    if (this.done) return;
    if (error) {
      const kind: ClientErrorKind = error.startsWith('ETLS') ? 'tls' : error.startsWith('ETIMEDOUT') ? 'timeout' : this.connected ? 'protocol' : 'connect';
      return this.fail(kind, error);
    }
    if (!this.headers) return this.fail(this.connected ? 'protocol' : 'connect', 'connection closed before a response');
    if (this.chunked && !this.chunked.done) return this.fail('protocol', 'connection closed inside a chunked body');
    if (this.expected !== null && this.received < this.expected) return this.fail('protocol', `body ended after ${this.received} of ${this.expected} bytes`);
    this.succeed();
  }

  private data(chunk: Uint8Array): void {
    if (this.done) return;
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
    if (this.noBody()) return this.succeed();
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
    this.status = Number(m[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const k = line.slice(0, i).trim().toLowerCase();
      const v = line.slice(i + 1).trim();
      headers.set(k, headers.has(k) ? `${headers.get(k)}, ${v}` : v);
    }
    this.headers = headers;
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

  private body(chunk: Uint8Array): void {
    if (this.chunked) {
      this.chunked.feed(chunk);
      if (this.chunked.error) return this.fail('protocol', this.chunked.error);
    } else if (this.expected !== null) {
      const n = Math.min(chunk.length, this.expected - this.received);
      this.take(chunk.subarray(0, n));
    } else this.take(chunk);
    this.checkComplete();
  }

  private checkComplete(): void {
    if (this.done) return;
    if (this.chunked?.done || (this.expected !== null && this.received >= this.expected)) this.succeed();
  }
}
