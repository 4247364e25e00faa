// The HTTP/1.1 server over HAL sockets: keep-alive, Content-Length and
// chunked bodies, streamed responses, and the limits a device can afford
// (head bytes, body bytes per route, connections at once, slow-sender
// timeouts). Over a limit it answers 400, 408, 413 or 431 and stays up.

import type { Clock, Listener, Net, Socket, Timer } from '../../hal/index.ts';
import { encode } from '../../util/utf8.ts';
import { errorResponse } from './errors.ts';
import { bodyFraming, ChunkedDecoder, findHeadEnd, parseHead, type RequestHead } from './parse.ts';
import { STATUS_TEXT, type BodyWriter, type HttpRequest, type HttpResponse } from './types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAK = /[\r\n]/;

export interface ServerLimits {
  /** Request line plus headers. */
  maxHeadBytes: number;
  maxConnections: number;
  /** From the first byte of a request to the end of its head. */
  headTimeoutMs: number;
  /** Longest silence while a body is arriving. */
  bodyIdleTimeoutMs: number;
  /** A keep-alive connection with no request in flight is closed after this. */
  keepAliveIdleMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxHeadBytes: 8192,
  maxConnections: 8,
  headTimeoutMs: 10_000,
  bodyIdleTimeoutMs: 10_000,
  keepAliveIdleMs: 30_000,
};

export interface HttpApp {
  /** Largest body accepted for this request (bytes). */
  bodyLimit(head: RequestHead): number;
  handle(request: HttpRequest): Promise<HttpResponse>;
}

export interface ServerStats {
  open: number;
  accepted: number;
  requests: number;
  rejected: number;
  /** Idle keep-alive connections closed to make room for a new one. */
  evicted: number;
}

const HIGH_WATER = 16 * 1024;

export class HttpServer {
  private listener: Listener | null = null;
  private connections = new Set<Connection>();
  readonly stats: ServerStats = { open: 0, accepted: 0, requests: 0, rejected: 0, evicted: 0 };

  constructor(
    private readonly net: Net,
    readonly clock: Clock,
    readonly app: HttpApp,
    readonly limits: ServerLimits = DEFAULT_LIMITS,
    readonly onError: (message: string) => void = () => {},
  ) {}

  listen(port: number): number {
    this.listener = this.net.listen(port, (socket) => this.accept(socket));
    return this.listener.port;
  }

  close(): void {
    this.listener?.close();
    this.listener = null;
    for (const c of this.connections) c.socket.destroy();
  }

  private accept(socket: Socket): void {
    this.stats.accepted++;
    // At the limit, a keep-alive connection waiting for its next request makes room: a browser
    // keeps up to six of those open for half a minute, and a second browser (the owner's phone
    // beside the laptop) must not be turned away by them. Only when every connection is busy
    // with a request is the newcomer refused.
    if (this.connections.size >= this.limits.maxConnections) this.evictIdlest();
    if (this.connections.size >= this.limits.maxConnections) {
      this.stats.rejected++;
      socket.onData = null;
      socket.write(serializeWhole(errorResponse(503, 'busy', 'Too many connections; try again.')));
      socket.end();
      return;
    }
    const c = new Connection(this, socket, () => {
      this.connections.delete(c);
      this.stats.open = this.connections.size;
    });
    this.connections.add(c);
    this.stats.open = this.connections.size;
  }

  /** Closes the connection that has waited longest between requests, if any waits. */
  private evictIdlest(): void {
    let idlest: Connection | null = null;
    for (const c of this.connections) {
      const since = c.idleSince();
      if (since !== null && (idlest === null || since < idlest.idleSince()!)) idlest = c;
    }
    if (idlest) {
      this.stats.evicted++;
      idlest.close();
    }
  }
}

function bodyBytes(body: Uint8Array | string | undefined): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  return typeof body === 'string' ? encode(body) : body;
}

function serializeHead(res: HttpResponse, keepAlive: boolean, version: '1.0' | '1.1', length: number | null): Uint8Array {
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
function serializeWhole(res: HttpResponse): Uint8Array {
  const body = bodyBytes(res.body);
  return concat(serializeHead(res, false, '1.1', body.length), body);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

type Phase = 'head' | 'body' | 'handling' | 'closed';

class Connection {
  private buf: Uint8Array = new Uint8Array(0);
  private phase: Phase = 'head';
  private head: RequestHead | null = null;
  private body: Uint8Array[] = [];
  private bodyLen = 0;
  private bodyLimit = 0;
  private expected = 0;
  private chunked: ChunkedDecoder | null = null;
  private timer: Timer | null = null;
  private scanFrom = 0;
  private peerDone = false;
  /** When it began waiting, with nothing received, for a request (null while one is under way). */
  private waitingSince: number | null;

  constructor(
    private readonly server: HttpServer,
    readonly socket: Socket,
    private readonly onGone: () => void,
  ) {
    socket.onData = (chunk) => this.data(chunk);
    socket.onEnd = () => this.peerEnded();
    socket.onClose = () => this.gone();
    this.waitingSince = server.clock.monoMs();
    this.arm(server.limits.keepAliveIdleMs, null);
  }

  idleSince(): number | null {
    return this.phase === 'head' && this.buf.length === 0 ? this.waitingSince : null;
  }

  /** Closed by the server (to make room): the socket goes, nothing is answered. */
  close(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.timer?.cancel();
    this.socket.destroy();
    this.onGone();
  }

  private arm(ms: number, status: number | null): void {
    this.timer?.cancel();
    this.timer = this.server.clock.setTimeout(() => {
      if (status === null) this.socket.destroy();
      else this.fail(status, 'timeout', 'The request arrived too slowly.');
    }, ms);
  }

  /**
   * The client shut its side. A request still being handled gets its answer
   * (then the connection closes); one that is incomplete never will be.
   */
  private peerEnded(): void {
    this.peerDone = true;
    if (this.phase === 'head' || this.phase === 'body') {
      this.phase = 'closed';
      this.timer?.cancel();
      this.socket.destroy();
      this.onGone();
    }
  }

  private gone(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.timer?.cancel();
    this.onGone();
  }

  private data(chunk: Uint8Array): void {
    if (this.phase === 'closed') return;
    this.buf = concat(this.buf, chunk);
    if (this.phase === 'handling') {
      // Pipelined bytes wait for the response; a flood is cut off.
      if (this.buf.length > this.server.limits.maxHeadBytes * 4) this.socket.destroy();
      return;
    }
    this.pump();
  }

  private pump(): void {
    while (this.phase === 'head' || this.phase === 'body') {
      if (this.phase === 'head' && !this.readHead()) return;
      if (this.phase === 'body' && !this.readBody()) return;
    }
  }

  /** Returns true when it moved on to the body (or failed); false to wait for more bytes. */
  private readHead(): boolean {
    if (this.buf.length && this.scanFrom === 0) this.arm(this.server.limits.headTimeoutMs, 408);
    const end = findHeadEnd(this.buf, this.scanFrom, this.buf.length);
    if (end < 0) {
      if (this.buf.length > this.server.limits.maxHeadBytes) this.fail(431, 'head-too-large', 'Request headers are too large.');
      this.scanFrom = Math.max(0, this.buf.length - 3);
      return false;
    }
    if (end > this.server.limits.maxHeadBytes) {
      this.fail(431, 'head-too-large', 'Request headers are too large.');
      return false;
    }
    this.scanFrom = 0;
    const parsed = parseHead(this.buf.subarray(0, end - 4));
    this.buf = this.buf.slice(end);
    if (!parsed.ok) {
      this.fail(parsed.status, 'bad-request', `Malformed request: ${parsed.reason}.`);
      return false;
    }
    const head = parsed.head;
    const framing = bodyFraming(head.headers);
    if (framing.kind === 'error') {
      this.fail(framing.status, 'bad-request', `Malformed request: ${framing.reason}.`);
      return false;
    }
    this.head = head;
    this.body = [];
    this.bodyLen = 0;
    this.bodyLimit = this.server.app.bodyLimit(head);
    if (framing.kind === 'length' && framing.length > this.bodyLimit) {
      this.fail(413, 'too-large', `The body may be at most ${this.bodyLimit} bytes.`);
      return false;
    }
    if (framing.kind !== 'none' && head.headers.get('expect')?.toLowerCase() === '100-continue') {
      this.socket.write(encode('HTTP/1.1 100 Continue\r\n\r\n'));
    }
    this.expected = framing.kind === 'length' ? framing.length : 0;
    this.chunked = framing.kind === 'chunked' ? new ChunkedDecoder((b) => this.take(b)) : null;
    this.phase = 'body';
    this.arm(this.server.limits.bodyIdleTimeoutMs, 408);
    return true;
  }

  private take(bytes: Uint8Array): void {
    this.bodyLen += bytes.length;
    if (this.bodyLen <= this.bodyLimit) this.body.push(bytes.slice());
  }

  private readBody(): boolean {
    if (this.chunked) {
      const used = this.chunked.feed(this.buf);
      this.buf = this.buf.slice(used);
      if (this.chunked.error) {
        this.fail(400, 'bad-request', `Malformed chunked body: ${this.chunked.error}.`);
        return false;
      }
      if (this.bodyLen > this.bodyLimit) {
        this.fail(413, 'too-large', `The body may be at most ${this.bodyLimit} bytes.`);
        return false;
      }
      if (!this.chunked.done) {
        if (used) this.arm(this.server.limits.bodyIdleTimeoutMs, 408);
        return false;
      }
    } else {
      const need = this.expected - this.bodyLen;
      const n = Math.min(need, this.buf.length);
      if (n > 0) {
        this.take(this.buf.subarray(0, n));
        this.buf = this.buf.slice(n);
        this.arm(this.server.limits.bodyIdleTimeoutMs, 408);
      }
      if (this.bodyLen < this.expected) return false;
    }
    this.dispatch();
    return false;
  }

  private dispatch(): void {
    const head = this.head!;
    const body = new Uint8Array(this.bodyLen);
    let o = 0;
    for (const b of this.body) {
      body.set(b, o);
      o += b.length;
    }
    this.body = [];
    this.phase = 'handling';
    this.timer?.cancel();
    this.server.stats.requests++;
    const request: HttpRequest = { method: head.method, path: head.path, query: head.query, headers: head.headers, body, remote: this.socket.remote };
    const keepAlive = wantsKeepAlive(head);
    this.server.app.handle(request).then(
      (res) => this.respond(res, head, keepAlive),
      (err: unknown) => {
        this.server.onError(`handler for ${head.method} ${head.path} failed: ${String(err)}`);
        this.respond(errorResponse(500, 'internal', 'The device could not complete the request.'), head, false);
      },
    );
  }

  private respond(res: HttpResponse, head: RequestHead, keepAlive: boolean): void {
    if (this.phase === 'closed') return;
    const isHead = head.method === 'HEAD';
    if (res.stream) {
      const length = res.stream.length ?? null;
      this.socket.write(serializeHead(res, keepAlive, head.version, length));
      if (isHead) return this.finish(keepAlive);
      this.stream(res.stream.start, length === null, keepAlive);
      return;
    }
    const body = bodyBytes(res.body);
    const headBytes = serializeHead(res, keepAlive, head.version, body.length);
    this.socket.write(isHead ? headBytes : concat(headBytes, body));
    this.finish(keepAlive);
  }

  private stream(start: (w: BodyWriter) => void, chunked: boolean, keepAlive: boolean): void {
    let ended = false;
    const socket = this.socket;
    const writer: BodyWriter = {
      onDrain: null,
      write: (chunk) => {
        if (ended || this.phase === 'closed') return false;
        const bytes = typeof chunk === 'string' ? encode(chunk) : chunk;
        if (!bytes.length) return true;
        socket.write(chunked ? concat(encode(bytes.length.toString(16) + '\r\n'), concat(bytes, encode('\r\n'))) : bytes);
        return socket.buffered < HIGH_WATER;
      },
      end: () => {
        if (ended) return;
        ended = true;
        if (chunked) socket.write(encode('0\r\n\r\n'));
        this.finish(keepAlive);
      },
      abort: (reason) => {
        ended = true;
        this.server.onError(`response aborted: ${reason}`);
        socket.destroy();
      },
    };
    socket.onDrain = () => writer.onDrain?.();
    start(writer);
  }

  private finish(keepAlive: boolean): void {
    if (this.phase === 'closed') return;
    if (!keepAlive || this.peerDone) {
      this.phase = 'closed';
      this.timer?.cancel();
      this.socket.end();
      this.onGone();
      return;
    }
    this.head = null;
    this.phase = 'head';
    this.waitingSince = this.server.clock.monoMs();
    this.arm(this.server.limits.keepAliveIdleMs, null);
    if (this.buf.length) this.pump();
  }

  private fail(status: number, code: string, message: string): void {
    if (this.phase === 'closed') return;
    this.server.stats.rejected++;
    this.socket.write(serializeWhole(errorResponse(status, code, message)));
    this.phase = 'closed';
    this.timer?.cancel();
    this.socket.end();
    this.onGone();
  }
}

function wantsKeepAlive(head: RequestHead): boolean {
  const c = head.headers.get('connection')?.toLowerCase() ?? '';
  if (head.version === '1.0') return c.split(',').some((t) => t.trim() === 'keep-alive');
  return !c.split(',').some((t) => t.trim() === 'close');
}
