// A connection's state and the parts of its life that are the same whatever
// it is doing: the bytes received and not yet consumed, the one deadline the
// server's sweep keeps for it (idle, a slow head or body, an answer nobody
// takes), being closed (to make room, by the peer, by a deadline, for a
// malformed request) and writing with a watch on a stalled client. Reading a
// request and answering it are connection.ts's.

import type { Clock, Socket } from '../../hal/index.ts';
import { errorResponse } from './errors.ts';
import type { ChunkedDecoder, RequestHead } from './parse.ts';
import { serializeWhole } from './response-bytes.ts';
import type { HttpApp, ServerLimits, ServerStats } from './server-types.ts';
import type { BodySink } from './types.ts';

/** The server as its connections see it (src/net/http/server.ts). */
export interface ConnectionHost {
  readonly clock: Clock;
  readonly app: HttpApp;
  readonly limits: ServerLimits;
  readonly stats: ServerStats;
  readonly onError: (message: string) => void;
  /** A connection is gone (closed by either side). */
  remove(c: ConnectionBase): void;
  /** Sets the sweep for a deadline at `at` (monotonic ms), if it is the earliest. */
  wake(at: number): void;
  /** Counts the open and trusted connections again. */
  count(): void;
  /** Closes strangers' connections while they hold more request bytes than their budget. */
  checkBudget(): void;
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
type OwnedSocket = Socket & { [CONNECTION]?: ConnectionBase };
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

export abstract class ConnectionBase {
  // Received bytes not yet consumed, in one array that grows by doubling: a head
  // dribbled a byte at a time costs copies in proportion to its size, not its square.
  protected buf = EMPTY;
  protected start = 0;
  protected end = 0;
  protected phase: Phase = 'head';
  protected head: RequestHead | null = null;
  protected body: Uint8Array[] | null = null;
  /** The route takes this body as it arrives (an upload): nothing of it is held here. */
  protected sink: BodySink | null = null;
  /** The sink answered before the body ended: the rest is read and dropped, then the connection closes. */
  protected answered = false;
  protected bodyLen = 0;
  protected bodyLimit = 0;
  protected expected = 0;
  protected chunked: ChunkedDecoder | null = null;
  protected scanFrom = 0;
  protected peerDone = false;
  /** When it began waiting, with nothing received, for a request (null while one is under way). */
  protected waitingSince: number | null;
  /** The head showed the valid token (on this connection, ever). */
  trusted = false;
  /** The request being read showed it. */
  protected requestTrusted = false;
  /** Monotonic ms when `due` happens (the server's one sweep timer looks). */
  deadline = Infinity;
  private due = Due.None;
  private lastDrainAt = 0;
  protected writerDrain: (() => void) | null = null;

  constructor(
    protected readonly server: ConnectionHost,
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

  protected pending(): Uint8Array {
    return this.buf.subarray(this.start, this.end);
  }

  protected push(chunk: Uint8Array): void {
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

  protected consume(n: number): void {
    this.start += n;
    if (this.start < this.end) return;
    this.start = this.end = 0;
    // A large buffer is not kept for an idle connection.
    if (this.buf.length > 4096) this.buf = EMPTY;
  }

  // ---------------------------------------------------------------------
  // Deadlines: one per connection, kept by the server's sweep.

  protected setDeadline(ms: number, due: Due): void {
    this.deadline = this.server.clock.monoMs() + ms;
    this.due = due;
    this.server.wake(this.deadline);
  }

  protected clearDeadline(): void {
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
  protected awaitRequest(): void {
    this.setDeadline(this.trusted ? this.server.limits.keepAliveIdleMs : this.server.limits.untrustedIdleMs, Due.Idle);
  }

  /** A head or body must arrive within ms (408 after). */
  protected slowAfter(ms: number): void {
    this.setDeadline(ms, Due.Slow);
  }

  // ---------------------------------------------------------------------
  // Closing.

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

  /** The request will not reach its sink's end(): what the sink began is undone. */
  protected dropSink(): void {
    const sink = this.sink;
    this.sink = null;
    if (!sink) return;
    try {
      sink.abort();
    } catch (err) {
      this.server.onError(`body sink for ${this.head?.method ?? '?'} ${this.head?.path ?? '?'} failed to abort: ${String(err)}`);
    }
  }

  protected fail(status: number, code: string, message: string): void {
    if (this.phase === 'closed') return;
    this.dropSink();
    this.server.stats.rejected++;
    // After an early answer the client has had its one response: the connection just closes.
    if (!this.answered) this.socket.write(serializeWhole(errorResponse(status, code, message)));
    this.phase = 'closed';
    this.socket.end();
    this.server.remove(this);
  }

  // ---------------------------------------------------------------------
  // Bytes out, watched.

  /**
   * Writes, and watches that the client takes what it is sent: a streamed
   * answer with bytes still queued and no drain for sendStallMs is abandoned
   * (a reader that never reads would hold a socket and its buffers).
   */
  protected write(bytes: Uint8Array): void {
    this.socket.write(bytes);
    if (this.socket.buffered > 0 && this.phase === 'handling' && this.due !== Due.Send) {
      this.lastDrainAt = this.server.clock.monoMs();
      this.setDeadline(this.server.limits.sendStallMs, Due.Send);
    }
  }

  protected sendStalled(): void {
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

  /** Request bytes arrived (connection.ts reads them). */
  abstract data(chunk: Uint8Array): void;
}
