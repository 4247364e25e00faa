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
//
// This file owns the listener and the table of connections: admitting a
// newcomer, making room (which connection goes), the trim after a burst, the
// strangers' byte budget and the one sweep timer for every deadline. A
// connection's own life is connection-base.ts and connection.ts; the limits,
// the app and the counters are server-types.ts.

import type { Clock, Listener, Net, Socket, Timer } from '../../hal/index.ts';
import type { ConnectionHost } from './connection-base.ts';
import { Connection } from './connection.ts';
import { errorResponse } from './errors.ts';
import { serializeWhole } from './response-bytes.ts';
import { DEFAULT_LIMITS, type HttpApp, type ServerLimits, type ServerStats } from './server-types.ts';

export { DEFAULT_LIMITS } from './server-types.ts';
export type { Admission, HttpApp, ServerLimits, ServerStats } from './server-types.ts';

export class HttpServer implements ConnectionHost {
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
