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

import type { Clock, Net, PendingSocket, Timer } from '../hal/index.ts';
import type { Store } from '../core/store.ts';
import type { BodyWriter, HttpResponse } from '../net/http/types.ts';
import { errorResponse } from '../net/http/errors.ts';
import type { RandomFill } from '../util/ids.ts';
import { concatBytes } from '../util/bytes.ts';
import { fromBase64 } from '../util/encoding.ts';
import { decode, encode } from '../util/utf8.ts';
import { BODY_CHUNK, F, frame, FrameDecoder, jsonFrame, payloadJson, PROTOCOL_VERSION, type Frame } from './frames.ts';
import type { TunnelDispatcher } from './dispatch.ts';
import { idempotent, MAX_RID, Runs, type Run } from './runs.ts';
import { toHex } from '../util/encoding.ts';

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
export const MAX_STREAMS = 4;
/**
 * Streams tracked at once: a request refused at once is still tracked until
 * its END; a relay that never sends it does not make the device hold more.
 */
export const MAX_TRACKED = 2 * MAX_STREAMS;
export const LOOP_MS = 20_000;
/** A stream writer waits for the socket to drain above this many queued bytes. */
const HIGH_WATER = 32 * 1024;
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

interface InStream {
  discard: boolean;
  method: string;
  target: string;
  headers: Array<[string, string]>;
  limit: number;
  chunks: Uint8Array[];
  size: number;
  /** RESET by the relay, or the connection went: nothing more is sent. */
  cancelled: boolean;
  reqDone: boolean;
  resDone: boolean;
  admission: ReturnType<TunnelDispatcher['admit']> | null;
  /** The relay's request id (protocol v2), and its run once the request is whole. */
  rid: string | null;
  run: Run | null;
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
  private streams = new Map<number, InStream>();
  private drainWaiters = new Set<() => void>();
  private pairWaiter: { resolve(v: { code: string; expiresInMs: number }): void; reject(e: Error): void; timer: Timer } | null = null;
  private pairCode: { code: string; until: number } | null = null;
  private loops = new Map<number, { resolve(v: LoopResult | null): void; timer: Timer }>();
  private nextTag = 1;
  private readonly runs: Runs;
  /** This boot, as the relay is told in HELLO: a request handed to another boot may have been lost with it. */
  readonly boot: string;
  lastError: string | null = null;
  reconnects = 0;
  onlineSince: number | null = null;

  constructor(private readonly deps: RelayDeps) {
    this.runs = new Runs(() => deps.clock.monoMs());
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
    return this.streams.size + this.runs.orphans();
  }
  /** Relayed requests remembered for a replay (running, or answered and not yet confirmed by DONE). */
  remembered(): number {
    return this.runs.size;
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
    for (const st of this.streams.values()) st.cancelled = true;
    this.streams.clear();
    // Handlers already running go on: their answers wait for the relay's replay (runs.ts).
    this.runs.detachAll();
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
        return this.onRequest(f);
      case F.BODY:
        return this.onBody(f);
      case F.END:
        return this.onEnd(f.stream);
      case F.RESET: {
        const st = this.streams.get(f.stream);
        if (st) st.cancelled = true;
        this.streams.delete(f.stream);
        return;
      }
      case F.LOOPRES:
        return this.onLoopResult(f);
      case F.DONE: {
        const rid = payloadJson(f)?.['rid'];
        if (typeof rid === 'string') this.runs.forget(rid);
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

  // ---------------------------------------------------------------------
  // Tunnelled requests. A stream lives from its REQ until both the request
  // (END or RESET) and the response are complete; a refusal is answered at
  // once and the rest of its body is dropped.

  private onRequest(f: Frame): void {
    if (this.st !== 'online' || f.stream === 0 || this.streams.has(f.stream)) return this.reset(f.stream, 'unexpected request');
    if (this.streams.size >= MAX_TRACKED) return this.reset(f.stream, 'too many open streams');
    const p = payloadJson(f);
    const method = typeof p?.['method'] === 'string' ? (p['method'] as string).toUpperCase() : '';
    const target = typeof p?.['target'] === 'string' ? (p['target'] as string) : '';
    const length = typeof p?.['length'] === 'number' ? (p['length'] as number) : 0;
    const rid = typeof p?.['rid'] === 'string' && p['rid'] && (p['rid'] as string).length <= MAX_RID ? (p['rid'] as string) : null;
    const headers: Array<[string, string]> = [];
    if (Array.isArray(p?.['headers'])) for (const h of p['headers'] as unknown[]) if (Array.isArray(h) && typeof h[0] === 'string' && typeof h[1] === 'string') headers.push([h[0], h[1]]);
    const st: InStream = { discard: false, method, target, headers, limit: 0, chunks: [], size: 0, cancelled: false, reqDone: false, resDone: false, admission: null, rid, run: null };
    this.streams.set(f.stream, st);
    if (rid !== null && this.replayed(f.stream, st, rid)) return;
    if (!method || !target.startsWith('/')) return this.refuse(f.stream, st, errorResponse(400, 'bad-request', 'A malformed request came through the relay.'));
    if (this.inFlight() > MAX_STREAMS) return this.refuse(f.stream, st, errorResponse(503, 'busy', `The device serves at most ${MAX_STREAMS} relayed requests at once; try again.`));
    const a = this.deps.dispatcher.admit(method, target);
    st.admission = a;
    if (!a.ok) return this.refuse(f.stream, st, a.response);
    st.limit = a.limit;
    if (length > a.limit) return this.refuse(f.stream, st, errorResponse(413, 'too-large', `The request body is over ${a.limit} bytes.`));
  }

  /**
   * A request id seen before (the relay sends it again after a reconnect):
   * a handler still running answers on this stream when it is done; a kept
   * answer is sent again; an answer not kept is run again only for a method
   * that may run twice. True when the stream is taken care of.
   */
  private replayed(stream: number, st: InStream, rid: string): boolean {
    const run = this.runs.get(rid);
    if (!run) return false;
    st.discard = true;
    st.run = run;
    if (!run.done) {
      const before = run.stream !== null ? this.streams.get(run.stream) : undefined;
      if (before && run.stream !== stream) {
        // The relay moved the request to a new stream: the old one gets nothing more.
        before.cancelled = true;
        this.streams.delete(run.stream!);
        this.reset(run.stream!, 'replayed on another stream');
      }
      run.stream = stream;
      return true;
    }
    if (run.answer) {
      this.respond(stream, st, run.answer);
      return true;
    }
    if (idempotent(run.method)) {
      this.runs.forget(rid);
      st.discard = false;
      st.run = null;
      return false;
    }
    this.refuse(stream, st, errorResponse(502, 'answer-lost', 'The device ran this request, but its answer was lost with the relay connection; it is not run twice.'));
    return true;
  }

  private onBody(f: Frame): void {
    const st = this.streams.get(f.stream);
    if (!st || st.discard || st.reqDone) return;
    st.size += f.payload.length;
    if (st.size > st.limit) return this.refuse(f.stream, st, errorResponse(413, 'too-large', `The request body is over ${st.limit} bytes.`));
    st.chunks.push(f.payload);
  }

  private onEnd(stream: number): void {
    const st = this.streams.get(stream);
    if (!st || st.reqDone) return;
    st.reqDone = true;
    if (st.discard) return this.settle(stream, st);
    st.discard = true;
    const body = new Uint8Array(st.size);
    let at = 0;
    for (const c of st.chunks) {
      body.set(c, at);
      at += c.length;
    }
    st.chunks = [];
    const a = st.admission;
    if (!a || !a.ok) return;
    if (st.rid !== null) st.run = this.runs.start(st.rid, st.method, stream);
    void this.deps.dispatcher.run(a, st.headers, st.method === 'HEAD' ? new Uint8Array(0) : body).then((res) => this.answer(stream, st, res));
  }

  /**
   * A handler answered. Without a request id it goes to its stream. With
   * one, it goes to the stream now waiting for that id (the same stream, or
   * a replay's on a newer connection), and a whole answer is kept until the
   * relay's DONE, in case the connection goes before it arrives.
   */
  private answer(stream: number, st: InStream, res: HttpResponse): void {
    const run = st.run;
    if (!run) return this.respond(stream, st, res);
    const whole = res.stream ? null : { ...res, body: res.body === undefined ? new Uint8Array(0) : typeof res.body === 'string' ? encode(res.body) : res.body };
    this.runs.answered(run, whole);
    const to = run.stream;
    const waiting = to !== null ? this.streams.get(to) : undefined;
    if (to !== null && waiting && waiting.run === run && !waiting.cancelled) this.respond(to, waiting, whole ?? res);
  }

  /** Frees a stream once its request and its response are both complete. */
  private settle(stream: number, st: InStream): void {
    if (st.reqDone && st.resDone && this.streams.get(stream) === st) this.streams.delete(stream);
  }

  private refuse(stream: number, st: InStream, res: HttpResponse): void {
    st.discard = true;
    st.chunks = [];
    this.respond(stream, st, res);
  }

  private reset(stream: number, reason: string): void {
    this.send(jsonFrame(F.RESET, stream, { reason }));
  }

  /** Sends a response on a stream: RES, BODY frames, END (a stream body is piped with the socket's flow control). */
  private respond(stream: number, st: InStream, res: HttpResponse): void {
    if (st.cancelled || !this.sock) return;
    const headers: Array<[string, string]> = Object.entries(res.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'content-length');
    const done = (): void => {
      st.resDone = true;
      this.settle(stream, st);
    };
    if (!res.stream) {
      const body = res.body === undefined ? new Uint8Array(0) : typeof res.body === 'string' ? encode(res.body) : res.body;
      this.send(jsonFrame(F.RES, stream, { status: res.status, headers, length: body.length }), ...bodyFrames(stream, body), frame(F.END, stream));
      return done();
    }
    // The head waits for the first body bytes (or the end), to leave with them.
    let head: Uint8Array | null = jsonFrame(F.RES, stream, { status: res.status, headers, ...(res.stream.length !== undefined ? { length: res.stream.length } : {}) });
    const relay = this;
    const writer: BodyWriter = {
      onDrain: null,
      write(chunk) {
        if (st.cancelled || !relay.sock) return true;
        const bytes = typeof chunk === 'string' ? encode(chunk) : chunk;
        relay.send(...(head ? [head] : []), ...bodyFrames(stream, bytes));
        head = null;
        if ((relay.sock?.buffered ?? 0) < HIGH_WATER) return true;
        relay.drainWaiters.add(() => writer.onDrain?.());
        return false;
      },
      end() {
        if (st.cancelled || st.resDone) return;
        relay.send(...(head ? [head] : []), frame(F.END, stream));
        head = null;
        done();
      },
      abort(reason) {
        if (st.cancelled || st.resDone) return;
        if (head) relay.send(head);
        head = null;
        relay.reset(stream, reason);
        st.reqDone = true;
        done();
      },
    };
    try {
      res.stream.start(writer);
    } catch (e) {
      writer.abort(String(e));
    }
  }
}

function bodyFrames(stream: number, bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += BODY_CHUNK) out.push(frame(F.BODY, stream, bytes.subarray(at, Math.min(bytes.length, at + BODY_CHUNK))));
  return out;
}


function headerOf(res: HttpResponse, name: string): string | undefined {
  return Object.entries(res.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
}

/** The first `keep` bytes of an answer's body and its whole length. */
function bodyOf(res: HttpResponse, keep: number): Promise<{ bytes: Uint8Array; total: number }> {
  if (!res.stream) {
    const b = res.body === undefined ? new Uint8Array(0) : typeof res.body === 'string' ? encode(res.body) : res.body;
    return Promise.resolve({ bytes: b.slice(0, keep), total: b.length });
  }
  const stream = res.stream;
  return new Promise((resolve) => {
    const kept: Uint8Array[] = [];
    let have = 0;
    let total = 0;
    const finish = (): void => {
      const out = new Uint8Array(have);
      let at = 0;
      for (const c of kept) {
        out.set(c, at);
        at += c.length;
      }
      resolve({ bytes: out, total });
    };
    stream.start({
      onDrain: null,
      write(chunk) {
        const b = typeof chunk === 'string' ? encode(chunk) : chunk;
        total += b.length;
        if (have < keep) {
          const part = b.slice(0, keep - have);
          kept.push(part);
          have += part.length;
        }
        return true;
      },
      end: finish,
      abort: finish,
    });
  });
}

/** Text of a loop excerpt for the console (one line). */
export function excerptText(bytes: Uint8Array, max = 160): string {
  const t = decode(bytes);
  const out: string[] = [];
  let n = 0;
  for (const ch of t) {
    if (n++ >= max) {
      out.push('...');
      break;
    }
    const c = ch.codePointAt(0)!;
    out.push(c < 32 ? ' ' : ch);
  }
  return out.join('');
}
