// Kept-alive connections of the outbound HTTP client, so a turn's requests to
// one host (a provider round, then each sentence's speech) share one TCP and
// TLS handshake instead of paying one each (on the device's mbedTLS an ECDHE
// handshake takes from a few hundred ms to seconds).
//
// Bounded: at most PER_HOST idle connections per origin and TOTAL in all (each
// TLS connection holds its record buffers, tens of KB on the device); the
// least recently used goes first. An idle connection is closed after IDLE_MS
// (shorter than the hosted services keep theirs, so the device usually closes
// first), and at once when the server closes it, sends anything while idle,
// or fails. The origin key carries the TLS settings too (a connection made
// without certificate checks is never handed to a request that wants them).

import type { Clock, PendingSocket, Timer } from '../../hal/index.ts';

/** Idle connections kept per origin. */
export const POOL_PER_HOST = 2;
/** Idle connections kept in all. */
export const POOL_TOTAL = 4;
/** An idle connection is closed after this long. */
export const POOL_IDLE_MS = 20_000;

interface Idle {
  key: string;
  socket: PendingSocket;
  since: number;
}

export interface PoolStats {
  /** Connections opened (each a TCP and, for https, a TLS handshake). */
  opened: number;
  /** Requests sent on a kept-alive connection. */
  reused: number;
  /** Requests sent again on a fresh connection after a kept-alive one turned out closed. */
  retried: number;
}

export class ConnectionPool {
  private idle: Idle[] = [];
  private timer: Timer | null = null;
  readonly stats: PoolStats = { opened: 0, reused: 0, retried: 0 };

  constructor(
    private readonly clock: Pick<Clock, 'monoMs' | 'setTimeout'>,
    private readonly limits = { perHost: POOL_PER_HOST, total: POOL_TOTAL, idleMs: POOL_IDLE_MS },
  ) {}

  /** Idle connections now (for tests and status). */
  size(key?: string): number {
    return key === undefined ? this.idle.length : this.idle.filter((i) => i.key === key).length;
  }

  /** The most recently used idle connection to key, taken out of the pool; null when there is none. */
  take(key: string): PendingSocket | null {
    const now = this.clock.monoMs();
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const e = this.idle[i]!;
      if (e.key !== key) continue;
      this.idle.splice(i, 1);
      if (now - e.since >= this.limits.idleMs) {
        e.socket.destroy();
        continue;
      }
      detach(e.socket);
      return e.socket;
    }
    return null;
  }

  /** A connection whose last answer was read whole and may carry another request. */
  give(key: string, socket: PendingSocket): void {
    if (this.limits.perHost <= 0 || this.limits.total <= 0) return socket.destroy();
    const entry: Idle = { key, socket, since: this.clock.monoMs() };
    const drop = (): void => this.remove(entry, true);
    // While idle, anything from the server ends the connection: a close, a half-close, stray bytes.
    socket.onData = drop;
    socket.onEnd = drop;
    socket.onClose = drop;
    socket.onDrain = null;
    socket.onConnect = null;
    this.idle.push(entry);
    const mine = this.idle.filter((i) => i.key === key);
    if (mine.length > this.limits.perHost) this.remove(mine[0]!, true);
    if (this.idle.length > this.limits.total) this.remove(this.idle[0]!, true);
    this.arm();
  }

  /** Closes every idle connection (shutdown, a Wi-Fi change). */
  closeAll(): void {
    for (const e of this.idle.splice(0)) {
      detach(e.socket);
      e.socket.destroy();
    }
    this.timer?.cancel();
    this.timer = null;
  }

  private remove(entry: Idle, close: boolean): void {
    const i = this.idle.indexOf(entry);
    if (i < 0) return;
    this.idle.splice(i, 1);
    detach(entry.socket);
    if (close) entry.socket.destroy();
  }

  /** One timer for the pool: it fires when the oldest idle connection expires. */
  private arm(): void {
    if (this.timer || !this.idle.length) return;
    const oldest = Math.min(...this.idle.map((e) => e.since));
    const wait = Math.max(1, oldest + this.limits.idleMs - this.clock.monoMs());
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      const now = this.clock.monoMs();
      for (const e of this.idle.slice()) if (now - e.since >= this.limits.idleMs) this.remove(e, true);
      this.arm();
    }, wait);
  }
}

function detach(s: PendingSocket): void {
  s.onData = null;
  s.onEnd = null;
  s.onClose = null;
  s.onDrain = null;
  s.onConnect = null;
}
