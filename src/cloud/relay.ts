// The cloud relay client (spec, Authentication 8; protocol in
// docs/cloud-relay.md): one outbound TLS socket to the relay that ALWAYS
// validates the relay's certificate against the CA bundle, whatever
// tlsVerify says (the relay can ask the device anything the owner can, so
// its identity is never optional). Over it:
//
//   pairing   PAIR -> PAIRCODE (printed for the owner, who enters it on the
//             relay's service) -> PAIRED {id, cred}: the device credential is
//             persisted in NVS `cloud` and registered with the log redactor;
//   online    HELLO {id, cred, boot} -> WELCOME; then REQ/BODY/END streams
//             from the relay, each replayed through the tunnel path
//             (dispatch.ts) and answered with RES/BODY/END; PING/PONG
//             keepalive;
//   reconnects (protocol v2) each REQ carries the relay's request id: a
//             request whose connection goes keeps running and its answer
//             goes to the relay's replay of the same id on the next
//             connection (runs.ts), so none is lost and none runs twice; the
//             relay's DONE says an answer arrived;
//   reconnect a lost connection is retried with exponential backoff
//             (2 s doubling to 5 min, +-25% jitter), reset by a WELCOME;
//   off       BYE {unpair} and the credential forgotten (CLOUDOFF).
//
// Limits: 4 streams in flight (the fifth is answered 503; beyond 8 open, a
// stream is reset untracked), request bodies at most 64 KB and the route's
// own limit (413), frames of at most 32 KB.

//
// This file owns the connection: pairing, HELLO, keepalive, backoff and the
// frames that are not a tunnelled request's; the streams are streams.ts's.

import type { Clock, Net, PendingSocket, Timer } from '../hal/index.ts';
import type { Store } from '../core/store.ts';
import type { RandomFill } from '../util/ids.ts';
import { concatBytes } from '../util/bytes.ts';
import { fromBase64 } from '../util/encoding.ts';
import { encode } from '../util/utf8.ts';
import { F, frame, FrameDecoder, jsonFrame, payloadJson, PROTOCOL_VERSION, type Frame } from './frames.ts';
import type { TunnelDispatcher } from './dispatch.ts';
import { bodyOf, headerOf } from './loop.ts';
import { MAX_STREAMS, RelayStreams } from './streams.ts';
import { toHex } from '../util/encoding.ts';

export { MAX_STREAMS, MAX_TRACKED } from './streams.ts';

/**
 * The relay's host ({relay_host} of the spec): a neutral name in the
 * reserved .invalid domain, compiled in (like the update base). It is not a
 * setting: whoever answers as the relay can drive the device with its
 * token, so only a certificate for this name, from the embedded bundle,
 * is ever trusted. The simulator routes the name to a local relay.
 */
export const RELAY_HOST = 'relay.desk-assistant.invalid';
export const RELAY_PORT = 443;
export const CLOUD_NS = 'cloud';

export const CONNECT_MS = 15_000;
export const PING_IDLE_MS = 30_000;
export const SILENCE_MS = 90_000;
export const BACKOFF_FIRST_MS = 2_000;
export const BACKOFF_MAX_MS = 300_000;
export const LOOP_MS = 20_000;
/** Frames are written together up to about this many bytes per socket write. */
const WRITE_GROUP = 16 * 1024;
const TICK_MS = 5_000;
/** Relay refusals after which the credential is useless: pair again. */
const FORGET_REASONS = ['unknown-device', 'bad-credential', 'revoked'];

export type CloudState = 'off' | 'connecting' | 'pairing' | 'online' | 'waiting';

export interface RelayDeps {
  net: Net;
  clock: Clock;
  store: Store;
  random: RandomFill;
  caBundle(): string;
  log: { info(tag: string, m: string): void; warn(tag: string, m: string): void };
  /** Registers a secret with the log redactor. */
  secret(value: string): void;
  dispatcher: TunnelDispatcher;
  identity: { fw: string; board: string };
}

export interface LoopResult {
  via: 'relay' | 'local';
  status: number;
  type: string;
  bytes: number;
  /** The answer's first bytes (at most 4 KB). */
  excerpt: Uint8Array;
}


export class CloudRelay {
  private sock: PendingSocket | null = null;
  private decoder = new FrameDecoder();
  private purpose: 'hello' | 'pair' | null = null;
  private st: CloudState = 'off';
  private retry: Timer | null = null;
  private tick: Timer | null = null;
  private backoff = BACKOFF_FIRST_MS;
  private retryAt = 0;
  private lastRx = 0;
  private lastTx = 0;
  private drainWaiters = new Set<() => void>();
  private pairWaiter: { resolve(v: { code: string; expiresInMs: number }): void; reject(e: Error): void; timer: Timer } | null = null;
  private pairCode: { code: string; until: number } | null = null;
  private loops = new Map<number, { resolve(v: LoopResult | null): void; timer: Timer }>();
  private nextTag = 1;
  private readonly tunnel: RelayStreams;
  /** This boot, as the relay is told in HELLO: a request handed to another boot may have been lost with it. */
  readonly boot: string;
  lastError: string | null = null;
  reconnects = 0;
  onlineSince: number | null = null;

  constructor(private readonly deps: RelayDeps) {
    this.tunnel = new RelayStreams(
      {
        online: () => this.st === 'online',
        connected: () => this.sock !== null,
        buffered: () => this.sock?.buffered ?? 0,
        send: (...frames) => this.send(...frames),
        onDrain: (waiter) => this.drainWaiters.add(waiter),
      },
      deps.dispatcher,
      () => deps.clock.monoMs(),
    );
    const b = new Uint8Array(8);
    deps.random(b);
    this.boot = toHex(b);
  }

  state(): CloudState {
    return this.st;
  }
  paired(): boolean {
    return this.deviceId() !== null && this.deps.store.strOrNull('cred') !== null;
  }
  deviceId(): string | null {
    return this.deps.store.strOrNull('id');
  }
  inFlight(): number {
    return this.tunnel.inFlight();
  }
  /** Relayed requests remembered for a replay (running, or answered and not yet confirmed by DONE). */
  remembered(): number {
    return this.tunnel.remembered();
  }
  pendingCode(): { code: string; expiresInMs: number } | null {
    if (!this.pairCode || this.st !== 'pairing') return null;
    return { code: this.pairCode.code, expiresInMs: Math.max(0, this.pairCode.until - this.deps.clock.monoMs()) };
  }
  retryInMs(): number | null {
    return this.st === 'waiting' ? this.retryAt - this.deps.clock.monoMs() : null;
  }
  /**
   * At boot (Orchestrator mode): a paired device goes online. A device
   * already connected (paired in the seconds before this ran) keeps its
   * connection: a second one would make the relay drop the first, and with
   * it the requests on their way.
   */
  start(): void {
    const cred = this.deps.store.strOrNull('cred');
    if (cred) this.deps.secret(cred);
    if (this.paired() && this.st === 'off' && !this.sock) this.connect('hello');
  }

  stop(): void {
    this.closeSocket(null);
    this.retry?.cancel();
    this.retry = null;
    this.st = 'off';
  }

  /** Starts pairing: resolves with the code the owner enters on the relay's service. */
  pair(): Promise<{ code: string; expiresInMs: number }> {
    if (this.paired()) return Promise.reject(new Error('already paired (CLOUDOFF first to pair again)'));
    const pending = this.pendingCode();
    if (pending && pending.expiresInMs > 0) return Promise.resolve(pending);
    this.closeSocket(null);
    return new Promise((resolve, reject) => {
      const timer = this.deps.clock.setTimeout(() => this.failPair('the relay did not answer in time'), CONNECT_MS);
      this.pairWaiter = { resolve, reject, timer };
      this.connect('pair');
    });
  }

  /** Unpairs: tells the relay to forget the device (when connected) and forgets the credential. */
  off(): boolean {
    const was = this.paired() || this.st !== 'off';
    if (this.sock && this.st === 'online') this.send(jsonFrame(F.BYE, 0, { unpair: true }));
    this.failPair('pairing cancelled');
    this.closeSocket(null, true);
    this.retry?.cancel();
    this.retry = null;
    this.deps.store.setMany([
      ['id', undefined],
      ['cred', undefined],
    ]);
    this.st = 'off';
    this.pairCode = null;
    this.backoff = BACKOFF_FIRST_MS;
    this.deps.log.info('cloud', 'cloud relay off: the device credential is forgotten');
    return was;
  }

  /**
   * The loopback self-test: through the relay when online (the relay replays
   * the request to the device as the owner's would be), else through the
   * tunnel path alone.
   */
  async loop(target: string): Promise<LoopResult> {
    if (this.st === 'online' && this.sock) {
      const tag = this.nextTag++;
      const got = await new Promise<LoopResult | null>((resolve) => {
        const timer = this.deps.clock.setTimeout(() => {
          this.loops.delete(tag);
          resolve(null);
        }, LOOP_MS);
        this.loops.set(tag, { resolve, timer });
        this.send(jsonFrame(F.LOOP, 0, { tag, method: 'GET', target }));
      });
      if (got === null) throw new Error('the relay did not return the request in time');
      return got;
    }
    const res = await this.deps.dispatcher.dispatch('GET', target);
    const body = await bodyOf(res, 4096);
    return { via: 'local', status: res.status, type: headerOf(res, 'content-type') ?? '', bytes: body.total, excerpt: body.bytes };
  }

  // ---------------------------------------------------------------------
  // The connection.

  private connect(purpose: 'hello' | 'pair'): void {
    // One connection at a time: the streams of an older one would clash with the new one's.
    if (this.sock) this.closeSocket(null);
    this.retry?.cancel();
    this.retry = null;
    this.purpose = purpose;
    this.st = purpose === 'pair' ? 'pairing' : 'connecting';
    this.decoder = new FrameDecoder();
    const s = this.deps.net.connect({
      host: RELAY_HOST,
      port: RELAY_PORT,
      // Always verified (spec, Authentication 8): tlsVerify does not apply here.
      tls: { serverName: RELAY_HOST, verify: true, caBundle: this.deps.caBundle() },
      timeoutMs: CONNECT_MS,
    });
    this.sock = s;
    s.onConnect = () => {
      if (this.sock !== s) return;
      this.lastRx = this.deps.clock.monoMs();
      const id = { v: PROTOCOL_VERSION, fw: this.deps.identity.fw, board: this.deps.identity.board, boot: this.boot, streams: MAX_STREAMS };
      if (purpose === 'pair') this.send(jsonFrame(F.PAIR, 0, id));
      else this.send(jsonFrame(F.HELLO, 0, { ...id, id: this.deviceId(), cred: this.deps.store.strOrNull('cred') }));
    };
    s.onData = (chunk) => {
      if (this.sock !== s) return;
      this.lastRx = this.deps.clock.monoMs();
      for (const f of this.decoder.feed(chunk)) this.frameIn(f);
      if (this.decoder.error && this.sock === s) this.drop(`protocol: ${this.decoder.error}`);
    };
    s.onDrain = () => {
      const waiting = [...this.drainWaiters];
      this.drainWaiters.clear();
      for (const w of waiting) w();
    };
    s.onEnd = () => {
      if (this.sock === s) this.drop('the relay closed the connection');
    };
    s.onClose = (error) => {
      if (this.sock === s) this.drop(error ?? 'the relay closed the connection');
    };
    if (!this.tick) this.tick = this.deps.clock.setInterval(() => this.keepalive(), TICK_MS);
    // The connect attempt and the greeting share one deadline.
    this.deps.clock.setTimeout(() => {
      if (this.sock === s && (this.st === 'connecting' || (this.st === 'pairing' && !this.pairCode))) this.drop('the relay did not answer in time');
    }, CONNECT_MS);
  }

  private keepalive(): void {
    if (!this.sock) {
      this.tick?.cancel();
      this.tick = null;
      return;
    }
    const now = this.deps.clock.monoMs();
    if (now - this.lastRx > SILENCE_MS) return this.drop('the relay went silent');
    if ((this.st === 'online' || this.st === 'pairing') && now - this.lastTx >= PING_IDLE_MS) this.send(frame(F.PING, 0, encode(String(now))));
  }

  /**
   * Writes frames in one socket write: a response's head, body and end leave
   * together, so TCP's small-packet delay (Nagle's algorithm against the
   * peer's delayed acknowledgement, about 40 ms) never holds the end back.
   */
  private send(...frames: Uint8Array[]): void {
    if (!this.sock || !frames.length) return;
    this.lastTx = this.deps.clock.monoMs();
    // Grouped into writes of about WRITE_GROUP bytes, so a large body is never copied whole.
    let group: Uint8Array[] = [];
    let size = 0;
    for (const f of frames) {
      if (size && size + f.length > WRITE_GROUP) {
        this.sock.write(group.length === 1 ? group[0]! : concatBytes(group));
        group = [];
        size = 0;
      }
      group.push(f);
      size += f.length;
    }
    this.sock.write(group.length === 1 ? group[0]! : concatBytes(group));
  }

  private closeSocket(reason: string | null, quiet = false): void {
    const s = this.sock;
    this.sock = null;
    this.purpose = null;
    this.tick?.cancel();
    this.tick = null;
    if (s) {
      if (quiet) s.end();
      else s.destroy();
    }
    // Handlers already running go on: their answers wait for the relay's replay (runs.ts).
    this.tunnel.detach();
    this.drainWaiters.clear();
    for (const [tag, l] of this.loops) {
      l.timer.cancel();
      l.resolve(null);
      this.loops.delete(tag);
    }
    if (reason) this.lastError = reason;
    this.onlineSince = null;
  }

  /** The connection is gone: pairing fails; a paired device retries with backoff. */
  private drop(reason: string): void {
    const was = this.st;
    this.closeSocket(reason);
    this.deps.log.warn('cloud', `relay connection lost (${was}): ${reason}`);
    if (was === 'pairing') {
      this.failPair(reason);
      this.st = 'off';
      this.pairCode = null;
      return;
    }
    if (!this.paired()) {
      this.st = 'off';
      return;
    }
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    this.st = 'waiting';
    const r = new Uint8Array(1);
    this.deps.random(r);
    const jitter = 0.75 + (r[0]! / 255) * 0.5;
    const wait = Math.round(this.backoff * jitter);
    this.backoff = Math.min(BACKOFF_MAX_MS, this.backoff * 2);
    this.retryAt = this.deps.clock.monoMs() + wait;
    this.reconnects++;
    this.retry = this.deps.clock.setTimeout(() => {
      this.retry = null;
      if (this.st === 'waiting' && this.paired()) this.connect('hello');
    }, wait);
  }

  private failPair(reason: string): void {
    const w = this.pairWaiter;
    if (!w) return;
    this.pairWaiter = null;
    w.timer.cancel();
    w.reject(new Error(reason));
  }

  // ---------------------------------------------------------------------
  // Frames from the relay.

  private frameIn(f: Frame): void {
    switch (f.type) {
      case F.PAIRCODE:
        return this.onPairCode(f);
      case F.PAIRED:
        return this.onPaired(f);
      case F.WELCOME:
        this.st = 'online';
        this.backoff = BACKOFF_FIRST_MS;
        this.lastError = null;
        this.onlineSince = this.deps.clock.monoMs();
        this.deps.log.info('cloud', `online through the cloud relay as ${this.deviceId() ?? '?'}`);
        return;
      case F.DENIED:
        return this.onDenied(f);
      case F.PING:
        return this.send(frame(F.PONG, 0, f.payload));
      case F.PONG:
        return;
      case F.REQ:
        return this.tunnel.onRequest(f);
      case F.BODY:
        return this.tunnel.onBody(f);
      case F.END:
        return this.tunnel.onEnd(f.stream);
      case F.RESET:
        return this.tunnel.cancel(f.stream);
      case F.LOOPRES:
        return this.onLoopResult(f);
      case F.DONE: {
        const rid = payloadJson(f)?.['rid'];
        if (typeof rid === 'string') this.tunnel.done(rid);
        return;
      }
      default:
        // Unknown frame types are ignored: a newer relay may send more.
        return;
    }
  }

  private onPairCode(f: Frame): void {
    const p = payloadJson(f);
    const code = typeof p?.['code'] === 'string' ? (p['code'] as string) : '';
    const ms = typeof p?.['expiresInMs'] === 'number' ? (p['expiresInMs'] as number) : 600_000;
    if (!code || this.purpose !== 'pair') return this.drop('protocol: a pairing code out of place');
    this.pairCode = { code, until: this.deps.clock.monoMs() + ms };
    this.deps.log.info('cloud', 'pairing: the code is waiting for the owner');
    const w = this.pairWaiter;
    this.pairWaiter = null;
    w?.timer.cancel();
    w?.resolve({ code, expiresInMs: ms });
  }

  private onPaired(f: Frame): void {
    const p = payloadJson(f);
    const id = typeof p?.['id'] === 'string' ? (p['id'] as string) : '';
    const cred = typeof p?.['cred'] === 'string' ? (p['cred'] as string) : '';
    if (this.purpose !== 'pair' || !id || !cred || id.length > 64 || cred.length > 128) return this.drop('protocol: a bad pairing answer');
    this.deps.secret(cred);
    try {
      this.deps.store.setMany([
        ['id', id],
        ['cred', cred],
      ]);
    } catch (e) {
      return this.drop(`the pairing could not be saved (${String(e)})`);
    }
    this.purpose = 'hello';
    this.pairCode = null;
    this.st = 'connecting';
    this.deps.log.info('cloud', `paired with the cloud relay as ${id}`);
  }

  private onDenied(f: Frame): void {
    const reason = typeof payloadJson(f)?.['reason'] === 'string' ? (payloadJson(f)!['reason'] as string) : 'refused';
    if (this.purpose === 'hello' && FORGET_REASONS.includes(reason)) {
      this.closeSocket(`the relay refused this device (${reason}): pair again`);
      this.deps.store.setMany([
        ['id', undefined],
        ['cred', undefined],
      ]);
      this.st = 'off';
      this.deps.log.warn('cloud', `the relay refused the device credential (${reason}); it is forgotten`);
      return;
    }
    this.drop(`the relay refused: ${reason}`);
  }

  private onLoopResult(f: Frame): void {
    const p = payloadJson(f);
    const tag = typeof p?.['tag'] === 'number' ? (p['tag'] as number) : -1;
    const l = this.loops.get(tag);
    if (!l || !p) return;
    this.loops.delete(tag);
    l.timer.cancel();
    const headers = Array.isArray(p['headers']) ? (p['headers'] as unknown[]) : [];
    const type = headers.find((h): h is [string, string] => Array.isArray(h) && String(h[0]).toLowerCase() === 'content-type')?.[1] ?? '';
    l.resolve({
      via: 'relay',
      status: typeof p['status'] === 'number' ? (p['status'] as number) : 0,
      type,
      bytes: typeof p['bytes'] === 'number' ? (p['bytes'] as number) : 0,
      excerpt: typeof p['body'] === 'string' ? (fromBase64(p['body'] as string) ?? new Uint8Array(0)) : new Uint8Array(0),
    });
  }
}

export { excerptText } from './loop.ts';
