// Network time: keeps the wall clock set from the time servers over SNTP
// (src/clock/sntp.ts) on a HAL UDP socket. It runs in Orchestrator mode: a
// round at boot, another as soon as the station gets an address while the
// clock is still unset (the boot round's queries went nowhere), then once a
// day. A round asks the servers in order until one answers well; a failed
// round is retried after 15 s, doubling to 5 minutes. TLS connections that
// check a certificate wait here for the clock (src/clock/tls-gate.ts): a
// certificate's dates mean nothing on a clock that reads 1970.
//
// RFC 4330's manners: a server is not asked again within 15 s of its last
// answer, and a Kiss-o'-Death DENY or RSTR drops that server until restart
// (RATE: the next try waits twice as long).

import type { Clock, Net, Timer, UdpSocket } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { civilFromDays } from '../util/civil.ts';
import { NTP_PORT, readSntpReply, sntpRequest, type SntpRequest } from './sntp.ts';

/** The time servers, asked in this order (docs/decisions.md, "Network time"). */
export const TIME_SERVERS: readonly string[] = ['pool.ntp.org', 'time.cloudflare.com', 'time.google.com'];
/** How long one server has to answer. */
export const QUERY_TIMEOUT_MS = 3_000;
/** A synced clock is set again this often. */
export const RESYNC_MS = 24 * 3600_000;
/** After a failed round: the first retry, doubling up to the last. */
export const RETRY_FIRST_MS = 15_000;
export const RETRY_MAX_MS = 5 * 60_000;
/** RFC 4330: never poll a server sooner than this after its answer. */
export const MIN_POLL_MS = 15_000;
/** How long a TLS connection that checks a certificate waits for the clock at most. */
export const TLS_CLOCK_WAIT_MS = 10_000;
/** How often waiting connections look at the clock (it may be set another way: by hand, a fault cleared). */
const WAITER_POLL_MS = 250;

interface Round {
  servers: string[];
  index: number;
  server: string;
  req: SntpRequest | null;
  socket: UdpSocket;
  timer: Timer | null;
  errors: string[];
  /** Some server answered (even with a refusal): the network is up. */
  answered: boolean;
}

export interface ClockState {
  synced: boolean;
  /** The wall clock (Unix ms) while synced, else null. */
  wallMs: number | null;
  /** The server that set the clock last (this boot), or null. */
  server: string | null;
  lastSyncAgoS: number | null;
  /** How far the last sync moved a clock that was already set (ms; null when it set an unset clock). */
  lastCorrectionMs: number | null;
  roundTripMs: number | null;
  /** A round is running now. */
  syncing: boolean;
  nextSyncInS: number | null;
  /** Why the last round failed (null after a good one). */
  lastError: string | null;
  /** TLS connections waiting for the clock now, refused for want of it since boot, and the last refusal. */
  tls: { waiting: number; refused: number; lastRefusal: string | null };
}

export interface ClockSyncDeps {
  net: Net;
  clock: Clock;
  random(bytes: Uint8Array): void;
  log: Log;
  servers?: readonly string[];
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** 'YYYY-MM-DD HH:MM:SS UTC' without Date. */
export function utcStamp(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  const [y, m, d] = civilFromDays(day);
  const s = Math.floor((ms - day * 86_400_000) / 1000);
  return `${y}-${pad(m)}-${pad(d)} ${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)} UTC`;
}

export class ClockSync {
  private readonly servers: readonly string[];
  private running = false;
  private round: Round | null = null;
  private next: Timer | null = null;
  private nextDue: number | null = null;
  private retries = 0;
  private slowDown = false;
  private readonly denied = new Set<string>();
  private lastAnswerMono: number | null = null;
  private lastSync: { mono: number; server: string; correction: number | null; roundTrip: number } | null = null;
  private lastError: string | null = null;
  private waiters: Array<{ done: (ok: boolean) => void; timer: Timer }> = [];
  private poller: Timer | null = null;
  /** Told when the running (or next) round ends: whether it set the clock. */
  private finishers: Array<(ok: boolean) => void> = [];
  private tlsWaiting = 0;
  private tlsRefused = 0;
  private lastRefusal: string | null = null;

  constructor(private readonly d: ClockSyncDeps) {
    this.servers = d.servers ?? TIME_SERVERS;
  }

  /** Orchestrator mode: the first round now. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.startRound();
  }

  stop(): void {
    this.running = false;
    this.endRound();
    this.next?.cancel();
    this.next = null;
    this.nextDue = null;
  }

  /** The station has an address: an unset clock is asked for at once. */
  networkUp(): void {
    if (!this.running || this.d.clock.synced()) return;
    // A round that heard nothing yet was sent before there was a network: start again.
    if (this.round && !this.round.answered) this.startRound();
    else if (!this.round) this.soon();
  }

  /** Sync now (console TIMESYNC; within RFC 4330's 15 s): resolves when the round ends, true when it set the clock. */
  syncNow(): Promise<boolean> {
    if (!this.running) return Promise.resolve(false);
    const ended = new Promise<boolean>((resolve) => this.finishers.push(resolve));
    if (!this.round) this.soon();
    return ended;
  }

  /**
   * Resolves true once the clock is synced, false after maxMs. An unset
   * clock with no round running is asked for now (within RFC 4330's 15 s).
   */
  whenSynced(maxMs: number): Promise<boolean> {
    if (this.d.clock.synced()) return Promise.resolve(true);
    if (this.running && !this.round) this.soon();
    return new Promise((resolve) => {
      const w = {
        done: (ok: boolean) => {
          w.timer.cancel();
          this.waiters = this.waiters.filter((x) => x !== w);
          if (!this.waiters.length) {
            this.poller?.cancel();
            this.poller = null;
          }
          resolve(ok);
        },
        timer: this.d.clock.setTimeout(() => w.done(this.d.clock.synced()), maxMs),
      };
      this.waiters.push(w);
      this.poller ??= this.d.clock.setInterval(() => this.releaseWaiters(), WAITER_POLL_MS);
    });
  }

  /** The TLS gate's bookkeeping: a connection starts or stops waiting. */
  tlsWait(delta: 1 | -1): void {
    this.tlsWaiting = Math.max(0, this.tlsWaiting + delta);
  }

  /** The TLS gate gave up on the clock for host: the reason, logged and kept for the state. */
  tlsRefuse(host: string, waitedMs: number): string {
    // Short enough for a console line; why the servers did not answer is the state's lastError.
    const reason = `ETLS: the clock is not set (no network time within ${Math.round(waitedMs / 1000)} s), so the certificate of ${host} cannot be checked`;
    this.tlsRefused++;
    this.lastRefusal = reason;
    this.d.log.warn('clock', `TLS to ${host} refused: the clock is not set`);
    return reason;
  }

  state(): ClockState {
    const { clock } = this.d;
    const now = clock.monoMs();
    const synced = clock.synced();
    return {
      synced,
      wallMs: synced ? Math.floor(clock.wallMs()) : null,
      server: this.lastSync?.server ?? null,
      lastSyncAgoS: this.lastSync ? Math.floor((now - this.lastSync.mono) / 1000) : null,
      lastCorrectionMs: this.lastSync?.correction ?? null,
      roundTripMs: this.lastSync ? Math.round(this.lastSync.roundTrip) : null,
      syncing: this.round !== null,
      nextSyncInS: this.nextDue === null ? null : Math.max(0, Math.ceil((this.nextDue - now) / 1000)),
      lastError: this.lastError,
      tls: { waiting: this.tlsWaiting, refused: this.tlsRefused, lastRefusal: this.lastRefusal },
    };
  }

  // ---- rounds ----

  /** A round as soon as RFC 4330 allows (15 s after the last answer), moving a later one (a retry, the daily re-sync) forward. */
  private soon(): void {
    const wait = this.lastAnswerMono === null ? 0 : Math.max(0, this.lastAnswerMono + MIN_POLL_MS - this.d.clock.monoMs());
    if (this.nextDue !== null && this.nextDue <= this.d.clock.monoMs() + wait) return;
    this.schedule(wait);
  }

  private settle(ok: boolean): void {
    const told = this.finishers;
    this.finishers = [];
    for (const f of told) f(ok);
  }

  private schedule(ms: number): void {
    this.next?.cancel();
    this.nextDue = this.d.clock.monoMs() + ms;
    this.next = this.d.clock.setTimeout(() => {
      this.next = null;
      this.nextDue = null;
      if (this.running) this.startRound();
    }, ms);
  }

  private startRound(): void {
    this.endRound();
    this.next?.cancel();
    this.next = null;
    this.nextDue = null;
    const servers = this.servers.filter((s) => !this.denied.has(s));
    if (!servers.length) {
      this.lastError = "every time server refused this device (Kiss-o'-Death); they are asked again after a restart";
      this.settle(false);
      return;
    }
    let socket: UdpSocket;
    try {
      socket = this.d.net.udp(0);
    } catch (e) {
      this.failed(`no UDP socket (${e instanceof Error ? e.message : String(e)})`);
      return;
    }
    const round: Round = { servers, index: 0, server: '', req: null, socket, timer: null, errors: [], answered: false };
    this.round = round;
    socket.onMessage = (bytes) => this.heard(round, bytes);
    this.ask(round);
  }

  private endRound(): void {
    const r = this.round;
    if (!r) return;
    this.round = null;
    r.timer?.cancel();
    r.socket.onMessage = null;
    try {
      r.socket.close();
    } catch {
      // already closed by the host
    }
  }

  private ask(round: Round): void {
    while (this.round === round) {
      const server = round.servers[round.index++];
      if (server === undefined) {
        const errors = round.errors.join('; ');
        this.endRound();
        this.failed(errors);
        return;
      }
      round.server = server;
      round.req = sntpRequest(this.d.random, this.d.clock.monoMs());
      try {
        round.socket.send(round.req.packet, server, NTP_PORT);
      } catch (e) {
        round.errors.push(`${server}: not sent (${e instanceof Error ? e.message : String(e)})`);
        continue;
      }
      round.timer = this.d.clock.setTimeout(() => {
        round.timer = null;
        round.errors.push(`${server}: no answer within ${QUERY_TIMEOUT_MS / 1000} s`);
        this.ask(round);
      }, QUERY_TIMEOUT_MS);
      return;
    }
  }

  private heard(round: Round, bytes: Uint8Array): void {
    if (this.round !== round || !round.req) return;
    const { clock } = this.d;
    const t4 = clock.monoMs();
    const r = readSntpReply(round.req, bytes, t4);
    if (!r.ok && r.kind === 'ignore') return;
    round.answered = true;
    this.lastAnswerMono = t4;
    round.timer?.cancel();
    round.timer = null;
    const server = round.server;
    if (!r.ok) {
      if (r.kind === 'kiss') {
        if (r.code === 'DENY' || r.code === 'RSTR') this.denied.add(server);
        if (r.code === 'RATE') this.slowDown = true;
      }
      round.errors.push(`${server}: ${r.reason}`);
      round.req = null;
      this.ask(round);
      return;
    }
    this.endRound();
    const wasSet = clock.synced();
    const before = clock.wallMs();
    // The time at T4, carried to now (the same loop turn, a few µs on).
    const wall = r.wallMs + (clock.monoMs() - t4);
    clock.setWall(wall);
    const correction = wasSet ? Math.round(wall - before) : null;
    this.lastSync = { mono: clock.monoMs(), server, correction, roundTrip: r.roundTripMs };
    this.lastError = null;
    this.retries = 0;
    this.slowDown = false;
    // Short: the log ring is 1280 bytes (the round trip is in the state).
    const moved = correction === null ? '' : `, moved ${correction >= 0 ? '+' : ''}${correction} ms`;
    this.d.log.info('clock', `set from ${server}: ${utcStamp(wall)}${moved}`);
    this.schedule(RESYNC_MS);
    this.releaseWaiters();
    this.settle(true);
  }

  private failed(why: string): void {
    this.lastError = why;
    let ms = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(this.retries, 8));
    if (this.slowDown) ms = Math.min(RETRY_MAX_MS * 2, ms * 2);
    // The first failure in a row is logged; the later ones only change the state (the log ring is small).
    if (this.retries === 0) this.d.log.warn('clock', `no network time (${why}); trying again, first in ${Math.round(ms / 1000)} s`);
    this.retries++;
    if (this.running) this.schedule(ms);
    this.settle(false);
  }

  private releaseWaiters(): void {
    if (!this.d.clock.synced()) return;
    for (const w of [...this.waiters]) w.done(true);
  }
}
