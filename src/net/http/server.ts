// The HTTP/1.1 server over HAL sockets: keep-alive, Content-Length and
// chunked bodies, streamed responses, and the limits a device can afford
// (head bytes, body bytes per route, connections at once, deadlines). Over a
// limit it answers 400, 401, 408, 413 or 431 and stays up.
//
// It stays available to a token holder while strangers on the LAN misbehave
// (docs/decisions.md, "Staying available under attack"): a connection whose
// request head carried the valid token is trusted from then on; every other
// one is untrusted, lives under short deadlines (idle, whole head, a minimum
// body rate), carries a small body at most, is refused at its head when it
// cannot pass the gate, and is the first to go when a newcomer needs room:
// oldest connection first, so a flood of new connections pushes out its own
// elders before the owner's fresh one. Trust is only a scheduling matter:
// every request still passes the router's gate, and nothing here looks at
// Host, Origin, Referer or the client's address.

import type { Clock, Listener, Net, Socket, Timer } from '../../hal/index.ts';
import { encode } from '../../util/utf8.ts';
import { errorResponse } from './errors.ts';
import { bodyFraming, ChunkedDecoder, findHeadEnd, parseHead, type RequestHead } from './parse.ts';
import { STATUS_TEXT, type BodySink, type BodyWriter, type HttpRequest, type HttpResponse } from './types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAK = /[\r\n]/;

export interface ServerLimits {
  /** Request line plus headers. */
  maxHeadBytes: number;
  /** Connections at once (each holds an lwIP TCP control block on the device). */
  maxConnections: number;
  /**
   * Above this many, untrusted connections are closed (oldest first) after
   * trimDelayMs: the room between it and maxConnections absorbs a burst of
   * new connections, so the owner's newest one is not pushed out before its
   * head has had time to arrive.
   */
  steadyConnections: number;
  trimDelayMs: number;
  /** From the first byte of a request to the end of its head. */
  headTimeoutMs: number;
  /** Trusted: the longest silence while a body is arriving. */
  bodyIdleTimeoutMs: number;
  /** Trusted: a keep-alive connection with no request in flight is closed after this. */
  keepAliveIdleMs: number;
  /** Untrusted: from connecting (or the last answer) to the first byte of a request. */
  untrustedIdleMs: number;
  /** Untrusted: the largest body read (and never more than the route's own limit). */
  untrustedBodyMax: number;
  /** Untrusted: request bytes held at once by all of them together (heads and bodies being read). */
  untrustedBytesMax: number;
  /** Untrusted: a body must be complete within this plus its length at untrustedBodyRate. */
  untrustedBodyBaseMs: number;
  /** Untrusted: the slowest body accepted, in bytes per second. */
  untrustedBodyRate: number;
  /** An answer the client does not take (nothing drains) for this long is abandoned. */
  sendStallMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxHeadBytes: 8192,
  maxConnections: 64,
  steadyConnections: 8,
  trimDelayMs: 50,
  headTimeoutMs: 5_000,
  bodyIdleTimeoutMs: 10_000,
  keepAliveIdleMs: 30_000,
  untrustedIdleMs: 5_000,
  untrustedBodyMax: 8 * 1024,
  untrustedBytesMax: 64 * 1024,
  untrustedBodyBaseMs: 2_000,
  untrustedBodyRate: 2048,
  sendStallMs: 20_000,
};

/**
 * What a request may expect, judged from its head alone: `token` (the head
 * carries the valid token: the connection is trusted), `open` (a route anyone
 * may call), `form` (no token in the head, but the form body may carry it),
 * or `refuse` (it cannot pass the gate: answered now, its body never read).
 */
export type Admission = { kind: 'token' } | { kind: 'open' } | { kind: 'form' } | { kind: 'refuse'; response: HttpResponse };

export interface HttpApp {
  /** Largest body accepted for this request (bytes). */
  bodyLimit(head: RequestHead): number;
  /** The admission of a request head, and whether a body follows it (absent: every request is `open`). */
  admit?(head: RequestHead, hasBody: boolean): Admission;
  /** A sink that takes this request's body as it arrives (absent or null: the body is read whole, then handle()). */
  sink?(head: RequestHead): BodySink | null;
  handle(request: HttpRequest): Promise<HttpResponse>;
}

export interface ServerStats {
  open: number;
  /** Open connections whose head showed the valid token. */
  trusted: number;
  accepted: number;
  requests: number;
  /** Answered with an error status by the server itself (400, 408, 413, 431, 503) or refused at the head (401). */
  rejected: number;
  /** Connections closed to make room for a newcomer. */
  evicted: number;
  /** Requests refused from their head alone (401 before the body). */
  refused: number;
  /** Connections closed by a deadline (idle, head, body rate, a stalled answer). */
  timedOut: number;
}

const HIGH_WATER = 16 * 1024;

export class HttpServer {
  private listener: Listener | null = null;
  private connections = new Set<Connection>();
  private trim: Timer | null = null;
  private sweep: Timer | null = null;
  private sweepAt = Infinity;
  readonly stats: ServerStats = { open: 0, trusted: 0, accepted: 0, requests: 0, rejected: 0, evicted: 0, refused: 0, timedOut: 0 };

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
    this.trim?.cancel();
    this.trim = null;
    this.sweep?.cancel();
    this.sweep = null;
    this.sweepAt = Infinity;
    for (const c of this.connections) c.socket.destroy();
  }

  private accept(socket: Socket): void {
    this.stats.accepted++;
    if (this.connections.size >= this.limits.maxConnections) this.makeRoom();
    if (this.connections.size >= this.limits.maxConnections) {
      this.stats.rejected++;
      socket.onData = null;
      socket.write(serializeWhole(errorResponse(503, 'busy', 'Too many connections; try again.')));
      socket.end();
      return;
    }
    const c = new Connection(this, socket, this.clock.monoMs());
    this.connections.add(c);
    this.count();
    this.scheduleTrim();
  }

  /**
   * Above steadyConnections, untrusted connections at least trimDelayMs old
   * are closed, oldest first, until the count is steady again (or none is
   * old enough: then again a little later). The owner's newest connection is
   * kept through a burst, while a flood's connections do not pile up.
   */
  private scheduleTrim(): void {
    if (this.connections.size <= this.limits.steadyConnections || this.trim) return;
    const due = this.clock.monoMs() + this.limits.trimDelayMs;
    this.trim = this.clock.setTimeout(() => {
      this.trim = null;
      // A device that was busy (a collection, a burst of work) ran this late: the time it was
      // stalled is not held against connections whose first bytes are still queued behind it.
      const now = this.clock.monoMs();
      const bornBefore = now - this.limits.trimDelayMs - Math.max(0, now - due);
      while (this.connections.size > this.limits.steadyConnections && this.evictUntrusted(bornBefore)) this.stats.evicted++;
      this.scheduleTrim();
    }, this.limits.trimDelayMs);
  }

  /** A connection is gone (closed by either side). */
  remove(c: Connection): void {
    c.deadline = Infinity;
    if (this.connections.delete(c)) this.count();
  }

  /**
   * One timer for every connection's deadline, set for the earliest: a
   * deadline moved later costs nothing, the sweep finds it not yet due and
   * sets itself for the next one.
   */
  wake(at: number): void {
    if (at >= this.sweepAt) return;
    this.sweep?.cancel();
    this.sweepAt = at;
    this.sweep = this.clock.setTimeout(() => this.swept(), Math.max(0, at - this.clock.monoMs()));
  }

  private swept(): void {
    this.sweep = null;
    this.sweepAt = Infinity;
    const now = this.clock.monoMs();
    let next = Infinity;
    for (const c of [...this.connections]) {
      if (c.deadline <= now) c.expire();
      if (this.connections.has(c) && c.deadline < next) next = c.deadline;
    }
    if (next < Infinity) this.wake(next);
  }

  count(): void {
    this.stats.open = this.connections.size;
    let trusted = 0;
    for (const c of this.connections) if (c.trusted) trusted++;
    this.stats.trusted = trusted;
  }

  /**
   * Closes one connection for a newcomer at maxConnections. Untrusted ones go
   * first, oldest connection first (one waiting for a request before one
   * part-way through its own at the same age): a stranger's connection has
   * had the longest to show a token, and the newest is the one most likely to
   * be the owner's, whose head has not arrived yet. Then a trusted connection
   * idle between requests, the idlest. A connection whose request is being
   * answered is never closed: with none other, the newcomer gets 503.
   */
  private makeRoom(): void {
    if (this.evictUntrusted()) {
      this.stats.evicted++;
      return;
    }
    let victim: Connection | null = null;
    for (const c of this.connections) {
      const since = c.idleSince();
      if (c.trusted && since !== null && (victim === null || since < victim.idleSince()!)) victim = c;
    }
    if (victim) {
      this.stats.evicted++;
      victim.close();
    }
  }

  /**
   * Untrusted connections together hold at most untrustedBytesMax of request
   * bytes: beyond it the oldest one holding any is closed (a stranger's slow
   * heads and bodies cannot add up to more than the budget).
   */
  checkBudget(): void {
    for (;;) {
      let total = 0;
      let oldest: Connection | null = null;
      for (const c of this.connections) {
        if (c.trusted || !c.evictable()) continue;
        const held = c.held();
        total += held;
        if (held > 0 && (oldest === null || c.acceptedAt < oldest.acceptedAt)) oldest = c;
      }
      if (total <= this.limits.untrustedBytesMax || oldest === null) return;
      this.stats.evicted++;
      oldest.close();
    }
  }

  /** Closes the oldest untrusted connection not being answered; false when there is none. */
  private evictUntrusted(bornBefore = Infinity): boolean {
    let victim: Connection | null = null;
    for (const c of this.connections) {
      if (c.trusted || !c.evictable() || c.acceptedAt > bornBefore) continue;
      if (victim === null || c.acceptedAt < victim.acceptedAt || (c.acceptedAt === victim.acceptedAt && c.idleSince() !== null && victim.idleSince() === null)) victim = c;
    }
    victim?.close();
    return victim !== null;
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

/** What a connection's deadline does when it passes. */
const enum Due {
  None,
  /** Waiting for a request: closed without an answer. */
  Idle,
  /** A head or body too slow: 408. */
  Slow,
  /** An answer nobody takes: abandoned. */
  Send,
}

const EMPTY = new Uint8Array(0);

/**
 * The connection of each socket, kept on the socket under a symbol. The
 * socket handlers below are shared by every connection (a HAL calls them as
 * methods of the socket): a closure per handler per connection cost XS about
 * 450 bytes each, and a flood keeps dozens of connections at once. (Not a
 * module-level WeakMap: the device preloads this module, which leaves such a
 * map read-only.)
 */
const CONNECTION = Symbol('connection');
type OwnedSocket = Socket & { [CONNECTION]?: Connection };
function onSocketData(this: OwnedSocket, chunk: Uint8Array): void {
  this[CONNECTION]?.data(chunk);
}
function onSocketEnd(this: OwnedSocket): void {
  this[CONNECTION]?.peerEnded();
}
function onSocketClose(this: OwnedSocket): void {
  this[CONNECTION]?.gone();
}
function onSocketDrain(this: OwnedSocket): void {
  this[CONNECTION]?.drained();
}

class Connection {
  // Received bytes not yet consumed, in one array that grows by doubling: a head
  // dribbled a byte at a time costs copies in proportion to its size, not its square.
  private buf = EMPTY;
  private start = 0;
  private end = 0;
  private phase: Phase = 'head';
  private head: RequestHead | null = null;
  private body: Uint8Array[] | null = null;
  /** The route takes this body as it arrives (an upload): nothing of it is held here. */
  private sink: BodySink | null = null;
  /** The sink answered before the body ended: the rest is read and dropped, then the connection closes. */
  private answered = false;
  private bodyLen = 0;
  private bodyLimit = 0;
  private expected = 0;
  private chunked: ChunkedDecoder | null = null;
  private scanFrom = 0;
  private peerDone = false;
  /** When it began waiting, with nothing received, for a request (null while one is under way). */
  private waitingSince: number | null;
  /** The head showed the valid token (on this connection, ever). */
  trusted = false;
  /** The request being read showed it. */
  private requestTrusted = false;
  /** Monotonic ms when `due` happens (the server's one sweep timer looks). */
  deadline = Infinity;
  private due = Due.None;
  private lastDrainAt = 0;
  private writerDrain: (() => void) | null = null;

  constructor(
    private readonly server: HttpServer,
    readonly socket: Socket,
    readonly acceptedAt: number,
  ) {
    (socket as OwnedSocket)[CONNECTION] = this;
    socket.onData = onSocketData;
    socket.onEnd = onSocketEnd;
    socket.onClose = onSocketClose;
    socket.onDrain = onSocketDrain;
    this.waitingSince = acceptedAt;
    this.awaitRequest();
  }

  idleSince(): number | null {
    return this.phase === 'head' && this.end === this.start ? this.waitingSince : null;
  }

  /** Request bytes it holds (received, not yet handed to the handler). */
  held(): number {
    return this.end - this.start + (this.sink || this.answered ? 0 : Math.min(this.bodyLen, this.bodyLimit));
  }

  /** May be closed to make room: not while its request is being answered. */
  evictable(): boolean {
    return this.phase === 'head' || this.phase === 'body';
  }

  /** Closed by the server (to make room): the socket goes, nothing is answered. */
  close(): void {
    if (this.phase === 'closed') return;
    this.dropSink();
    this.phase = 'closed';
    this.socket.destroy();
    this.server.remove(this);
  }

  // ---------------------------------------------------------------------
  // Received bytes.

  private pending(): Uint8Array {
    return this.buf.subarray(this.start, this.end);
  }

  private push(chunk: Uint8Array): void {
    if (this.end + chunk.length > this.buf.length) {
      const need = this.end - this.start + chunk.length;
      if (need > this.buf.length) {
        const grown = new Uint8Array(Math.max(need, this.buf.length * 2, 512));
        grown.set(this.pending());
        this.buf = grown;
      } else this.buf.copyWithin(0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
    }
    this.buf.set(chunk, this.end);
    this.end += chunk.length;
  }

  private consume(n: number): void {
    this.start += n;
    if (this.start < this.end) return;
    this.start = this.end = 0;
    // A large buffer is not kept for an idle connection.
    if (this.buf.length > 4096) this.buf = EMPTY;
  }

  // ---------------------------------------------------------------------
  // Deadlines: one per connection, kept by the server's sweep.

  private setDeadline(ms: number, due: Due): void {
    this.deadline = this.server.clock.monoMs() + ms;
    this.due = due;
    this.server.wake(this.deadline);
  }

  private clearDeadline(): void {
    this.deadline = Infinity;
    this.due = Due.None;
  }

  /** The sweep found the deadline passed. */
  expire(): void {
    const due = this.due;
    this.clearDeadline();
    if (this.phase === 'closed') return;
    if (due === Due.Send) return this.sendStalled();
    this.dropSink();
    if (due === Due.None) return;
    this.server.stats.timedOut++;
    if (due === Due.Idle) {
      this.phase = 'closed';
      this.socket.destroy();
      this.server.remove(this);
    } else this.fail(408, 'timeout', 'The request arrived too slowly.');
  }

  /** Waiting for the first byte of a request: idle deadline by trust. */
  private awaitRequest(): void {
    this.setDeadline(this.trusted ? this.server.limits.keepAliveIdleMs : this.server.limits.untrustedIdleMs, Due.Idle);
  }

  // ---------------------------------------------------------------------
  // Bytes in.

  /**
   * The client shut its side. A request still being handled gets its answer
   * (then the connection closes); one that is incomplete never will be.
   */
  peerEnded(): void {
    this.peerDone = true;
    if (this.phase === 'head' || this.phase === 'body') {
      this.dropSink();
      this.phase = 'closed';
      this.socket.destroy();
      this.server.remove(this);
    }
  }

  gone(): void {
    if (this.phase === 'closed') return;
    this.dropSink();
    this.phase = 'closed';
    this.server.remove(this);
  }

  data(chunk: Uint8Array): void {
    if (this.phase === 'closed') return;
    if (this.phase === 'body' && this.end === this.start && this.chunked === null && (this.sink || this.answered)) return this.streamed(chunk);
    this.push(chunk);
    if (this.phase === 'handling') {
      // Pipelined bytes wait for the response; a flood is cut off.
      if (this.end - this.start > this.server.limits.maxHeadBytes * 4) this.socket.destroy();
      return;
    }
    this.pump();
    if (!this.trusted && (this.phase === 'head' || this.phase === 'body')) this.server.checkBudget();
  }

  /**
   * A piece of a streamed body with nothing held before it: handed to the
   * sink as it came, not copied into the connection's buffer first (an 8 MB
   * upload would have been copied once more for nothing).
   */
  private streamed(chunk: Uint8Array): void {
    const n = Math.min(this.expected - this.bodyLen, chunk.length);
    if (n > 0) {
      this.take(chunk.subarray(0, n));
      this.bodyProgress();
    }
    if (n < chunk.length) this.push(chunk.subarray(n));
    if (this.bodyLen >= this.expected && this.phase === 'body') this.dispatch();
  }

  private pump(): void {
    while (this.phase === 'head' || this.phase === 'body') {
      if (this.phase === 'head' && !this.readHead()) return;
      if (this.phase === 'body' && !this.readBody()) return;
    }
  }

  /** Returns true when it moved on to the body (or failed); false to wait for more bytes. */
  private readHead(): boolean {
    const limits = this.server.limits;
    if (this.end > this.start && this.scanFrom === 0 && this.waitingSince !== null) {
      // The first byte of a request: its whole head has headTimeoutMs from here.
      this.waitingSince = null;
      this.setDeadline(limits.headTimeoutMs, Due.Slow);
    }
    const buf = this.pending();
    const end = findHeadEnd(buf, this.scanFrom, buf.length);
    if (end < 0) {
      if (buf.length > limits.maxHeadBytes) this.fail(431, 'head-too-large', 'Request headers are too large.');
      this.scanFrom = Math.max(0, buf.length - 3);
      return false;
    }
    if (end > limits.maxHeadBytes) {
      this.fail(431, 'head-too-large', 'Request headers are too large.');
      return false;
    }
    this.scanFrom = 0;
    const parsed = parseHead(buf.subarray(0, end - 4));
    this.consume(end);
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
    const admission = this.server.app.admit?.(head, framing.kind !== 'none') ?? { kind: 'open' };
    if (admission.kind === 'refuse') {
      this.server.stats.refused++;
      this.server.stats.rejected++;
      // Answered from the head alone: the body (if any) is never read, so the connection closes.
      this.phase = 'handling';
      this.clearDeadline();
      this.respond(admission.response, head, false);
      return false;
    }
    const trusted = admission.kind === 'token';
    if (trusted && !this.trusted) {
      this.trusted = true;
      this.server.count();
    }
    this.requestTrusted = trusted;
    this.head = head;
    this.body = null;
    this.bodyLen = 0;
    const routeLimit = this.server.app.bodyLimit(head);
    this.bodyLimit = trusted ? routeLimit : Math.min(routeLimit, limits.untrustedBodyMax);
    if (framing.kind === 'length' && framing.length > this.bodyLimit) {
      this.fail(413, 'too-large', `The body may be at most ${this.bodyLimit} bytes.`);
      return false;
    }
    if (framing.kind !== 'none' && head.headers.get('expect')?.toLowerCase() === '100-continue') {
      this.socket.write(encode('HTTP/1.1 100 Continue\r\n\r\n'));
    }
    this.expected = framing.kind === 'length' ? framing.length : 0;
    this.answered = false;
    this.sink = framing.kind === 'none' ? null : (this.server.app.sink?.(head) ?? null);
    this.chunked = framing.kind === 'chunked' ? new ChunkedDecoder((b) => this.take(b)) : null;
    this.phase = 'body';
    if (trusted) this.setDeadline(limits.bodyIdleTimeoutMs, Due.Slow);
    else {
      // A minimum rate for a stranger's body: the whole of it within a base time plus its length at the rate.
      const size = framing.kind === 'length' ? framing.length : this.bodyLimit;
      this.setDeadline(limits.untrustedBodyBaseMs + Math.ceil((size * 1000) / limits.untrustedBodyRate), Due.Slow);
    }
    return true;
  }

  private take(bytes: Uint8Array): void {
    this.bodyLen += bytes.length;
    if (this.bodyLen > this.bodyLimit || this.answered) return;
    if (!this.sink) {
      (this.body ??= []).push(bytes.slice());
      return;
    }
    let early: HttpResponse | null;
    try {
      early = this.sink.write(bytes);
    } catch (err) {
      this.server.onError(`body sink for ${this.head!.method} ${this.head!.path} failed: ${String(err)}`);
      early = errorResponse(500, 'internal', 'The device could not complete the request.');
    }
    if (early) this.answerEarly(early);
  }

  /** The sink answered before its body ended: the answer goes now; the rest of the body is read and dropped. */
  private answerEarly(res: HttpResponse): void {
    this.answered = true;
    this.dropSink();
    this.server.stats.requests++;
    this.socket.write(serializeWhole(res));
  }

  /** The request will not reach its sink's end(): what the sink began is undone. */
  private dropSink(): void {
    const sink = this.sink;
    this.sink = null;
    if (!sink) return;
    try {
      sink.abort();
    } catch (err) {
      this.server.onError(`body sink for ${this.head?.method ?? '?'} ${this.head?.path ?? '?'} failed to abort: ${String(err)}`);
    }
  }

  /** Body bytes arrived: a trusted sender's silence deadline moves on (a stranger's does not). */
  private bodyProgress(): void {
    if (this.requestTrusted) this.setDeadline(this.server.limits.bodyIdleTimeoutMs, Due.Slow);
  }

  private readBody(): boolean {
    if (this.chunked) {
      const used = this.chunked.feed(this.pending());
      this.consume(used);
      if (this.chunked.error) {
        this.fail(400, 'bad-request', `Malformed chunked body: ${this.chunked.error}.`);
        return false;
      }
      if (this.bodyLen > this.bodyLimit) {
        this.fail(413, 'too-large', `The body may be at most ${this.bodyLimit} bytes.`);
        return false;
      }
      if (!this.chunked.done) {
        if (used) this.bodyProgress();
        return false;
      }
    } else {
      const need = this.expected - this.bodyLen;
      const n = Math.min(need, this.end - this.start);
      if (n > 0) {
        this.take(this.pending().subarray(0, n));
        this.consume(n);
        this.bodyProgress();
      }
      if (this.bodyLen < this.expected) return false;
    }
    this.dispatch();
    return false;
  }

  private dispatch(): void {
    const head = this.head!;
    if (this.answered) {
      // Answered early (Connection: close); the body it did not need has been read to its end.
      this.phase = 'closed';
      this.socket.end();
      this.server.remove(this);
      return;
    }
    if (this.sink) return this.dispatchSink(head, this.sink);
    const body = new Uint8Array(this.bodyLen);
    let o = 0;
    for (const b of this.body ?? []) {
      body.set(b, o);
      o += b.length;
    }
    this.body = null;
    this.chunked = null;
    this.phase = 'handling';
    this.clearDeadline();
    this.server.stats.requests++;
    const request: HttpRequest = { method: head.method, path: head.path, query: head.query, headers: head.headers, body, remote: this.socket.remote };
    this.answerWith(this.server.app.handle(request), head);
  }

  /** The body has reached its sink whole: the sink's end() is the answer. */
  private dispatchSink(head: RequestHead, sink: BodySink): void {
    this.sink = null;
    this.chunked = null;
    this.phase = 'handling';
    this.clearDeadline();
    this.server.stats.requests++;
    let answer: Promise<HttpResponse>;
    try {
      answer = Promise.resolve(sink.end());
    } catch (err) {
      answer = Promise.reject(err);
    }
    this.answerWith(answer, head, () => sink.abort());
  }

  private answerWith(answer: Promise<HttpResponse>, head: RequestHead, undo?: () => void): void {
    const keepAlive = wantsKeepAlive(head);
    answer.then(
      (res) => this.respond(res, head, keepAlive),
      (err: unknown) => {
        this.server.onError(`handler for ${head.method} ${head.path} failed: ${String(err)}`);
        undo?.();
        this.respond(errorResponse(500, 'internal', 'The device could not complete the request.'), head, false);
      },
    );
  }

  // ---------------------------------------------------------------------
  // Bytes out.

  private respond(res: HttpResponse, head: RequestHead, keepAlive: boolean): void {
    if (this.phase === 'closed') return;
    const isHead = head.method === 'HEAD';
    if (res.stream) {
      const length = res.stream.length ?? null;
      this.write(serializeHead(res, keepAlive, head.version, length));
      if (isHead) return this.finish(keepAlive);
      this.stream(res.stream.start, length === null, keepAlive);
      return;
    }
    const body = bodyBytes(res.body);
    const headBytes = serializeHead(res, keepAlive, head.version, body.length);
    this.write(isHead ? headBytes : concat(headBytes, body));
    this.finish(keepAlive);
  }

  /**
   * Writes, and watches that the client takes what it is sent: a streamed
   * answer with bytes still queued and no drain for sendStallMs is abandoned
   * (a reader that never reads would hold a socket and its buffers).
   */
  private write(bytes: Uint8Array): void {
    this.socket.write(bytes);
    if (this.socket.buffered > 0 && this.phase === 'handling' && this.due !== Due.Send) {
      this.lastDrainAt = this.server.clock.monoMs();
      this.setDeadline(this.server.limits.sendStallMs, Due.Send);
    }
  }

  private sendStalled(): void {
    if (this.phase !== 'handling' || this.socket.buffered === 0) return;
    const idle = this.server.clock.monoMs() - this.lastDrainAt;
    if (idle < this.server.limits.sendStallMs) return this.setDeadline(this.server.limits.sendStallMs - idle, Due.Send);
    this.server.stats.timedOut++;
    this.server.onError('an answer was abandoned: the client took none of it for too long');
    this.phase = 'closed';
    this.socket.destroy();
    this.server.remove(this);
  }

  drained(): void {
    this.lastDrainAt = this.server.clock.monoMs();
    this.writerDrain?.();
  }

  private stream(start: (w: BodyWriter) => void, chunked: boolean, keepAlive: boolean): void {
    let ended = false;
    const writer: BodyWriter = {
      onDrain: null,
      write: (chunk) => {
        if (ended || this.phase === 'closed') return false;
        const bytes = typeof chunk === 'string' ? encode(chunk) : chunk;
        if (!bytes.length) return true;
        this.write(chunked ? concat(encode(bytes.length.toString(16) + '\r\n'), concat(bytes, encode('\r\n'))) : bytes);
        return this.socket.buffered < HIGH_WATER;
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.writerDrain = null;
        if (chunked) this.socket.write(encode('0\r\n\r\n'));
        this.finish(keepAlive);
      },
      abort: (reason) => {
        ended = true;
        this.writerDrain = null;
        this.server.onError(`response aborted: ${reason}`);
        this.socket.destroy();
      },
    };
    this.writerDrain = () => writer.onDrain?.();
    start(writer);
  }

  private finish(keepAlive: boolean): void {
    if (this.phase === 'closed') return;
    if (!keepAlive || this.peerDone) {
      this.phase = 'closed';
      this.socket.end();
      this.server.remove(this);
      return;
    }
    this.head = null;
    this.phase = 'head';
    this.waitingSince = this.server.clock.monoMs();
    this.awaitRequest();
    if (this.end > this.start) this.pump();
  }

  private fail(status: number, code: string, message: string): void {
    if (this.phase === 'closed') return;
    this.dropSink();
    this.server.stats.rejected++;
    // After an early answer the client has had its one response: the connection just closes.
    if (!this.answered) this.socket.write(serializeWhole(errorResponse(status, code, message)));
    this.phase = 'closed';
    this.socket.end();
    this.server.remove(this);
  }
}

function wantsKeepAlive(head: RequestHead): boolean {
  const c = head.headers.get('connection')?.toLowerCase() ?? '';
  if (head.version === '1.0') return c.split(',').some((t) => t.trim() === 'keep-alive');
  return !c.split(',').some((t) => t.trim() === 'close');
}
