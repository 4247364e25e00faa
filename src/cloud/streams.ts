// The relay's tunnelled requests (docs/cloud-relay.md): each stream from its
// REQ, through its BODY frames and END, to the answer sent back as RES, BODY
// and END (a streamed answer piped with the socket's flow control); the
// limits on streams in flight and tracked; and the request ids of protocol v2
// (runs.ts), so a request whose connection went is answered on the relay's
// replay, never run twice. The connection itself is relay.ts's.

import type { BodyWriter, HttpResponse } from '../net/http/types.ts';
import { errorResponse } from '../net/http/errors.ts';
import { encode } from '../util/utf8.ts';
import { BODY_CHUNK, F, frame, jsonFrame, payloadJson, type Frame } from './frames.ts';
import type { TunnelDispatcher } from './dispatch.ts';
import { idempotent, MAX_RID, Runs, type Run } from './runs.ts';

export const MAX_STREAMS = 4;
/**
 * Streams tracked at once: a request refused at once is still tracked until
 * its END; a relay that never sends it does not make the device hold more.
 */
export const MAX_TRACKED = 2 * MAX_STREAMS;
/** A stream writer waits for the socket to drain above this many queued bytes. */
const HIGH_WATER = 32 * 1024;

/** The relay connection as the streams use it. */
export interface StreamLink {
  /** Online: WELCOME came on the connection there is. */
  online(): boolean;
  /** A socket to the relay is open. */
  connected(): boolean;
  /** Bytes queued on the socket. */
  buffered(): number;
  send(...frames: Uint8Array[]): void;
  /** Calls waiter once when the socket drains (forgotten if the connection goes). */
  onDrain(waiter: () => void): void;
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

export class RelayStreams {
  private streams = new Map<number, InStream>();
  private readonly runs: Runs;

  constructor(
    private readonly link: StreamLink,
    private readonly dispatcher: TunnelDispatcher,
    monoMs: () => number,
  ) {
    this.runs = new Runs(monoMs);
  }

  inFlight(): number {
    return this.streams.size + this.runs.orphans();
  }
  /** Relayed requests remembered for a replay (running, or answered and not yet confirmed by DONE). */
  remembered(): number {
    return this.runs.size;
  }

  /** RESET from the relay: nothing more is sent on the stream. */
  cancel(stream: number): void {
    const st = this.streams.get(stream);
    if (st) st.cancelled = true;
    this.streams.delete(stream);
  }

  /** DONE from the relay: the answer of rid arrived; it is kept no longer. */
  done(rid: string): void {
    this.runs.forget(rid);
  }

  /** The connection went: its streams get nothing more; handlers already running go on, their answers waiting for the relay's replay (runs.ts). */
  detach(): void {
    for (const st of this.streams.values()) st.cancelled = true;
    this.streams.clear();
    this.runs.detachAll();
  }

  // ---------------------------------------------------------------------
  // Tunnelled requests. A stream lives from its REQ until both the request
  // (END or RESET) and the response are complete; a refusal is answered at
  // once and the rest of its body is dropped.

  onRequest(f: Frame): void {
    if (!this.link.online() || f.stream === 0 || this.streams.has(f.stream)) return this.reset(f.stream, 'unexpected request');
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
    const a = this.dispatcher.admit(method, target);
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

  onBody(f: Frame): void {
    const st = this.streams.get(f.stream);
    if (!st || st.discard || st.reqDone) return;
    st.size += f.payload.length;
    if (st.size > st.limit) return this.refuse(f.stream, st, errorResponse(413, 'too-large', `The request body is over ${st.limit} bytes.`));
    st.chunks.push(f.payload);
  }

  onEnd(stream: number): void {
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
    void this.dispatcher.run(a, st.headers, st.method === 'HEAD' ? new Uint8Array(0) : body).then((res) => this.answer(stream, st, res));
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
    this.link.send(jsonFrame(F.RESET, stream, { reason }));
  }

  /** Sends a response on a stream: RES, BODY frames, END (a stream body is piped with the socket's flow control). */
  private respond(stream: number, st: InStream, res: HttpResponse): void {
    if (st.cancelled || !this.link.connected()) return;
    const headers: Array<[string, string]> = Object.entries(res.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'content-length');
    const done = (): void => {
      st.resDone = true;
      this.settle(stream, st);
    };
    if (!res.stream) {
      const body = res.body === undefined ? new Uint8Array(0) : typeof res.body === 'string' ? encode(res.body) : res.body;
      this.link.send(jsonFrame(F.RES, stream, { status: res.status, headers, length: body.length }), ...bodyFrames(stream, body), frame(F.END, stream));
      return done();
    }
    // The head waits for the first body bytes (or the end), to leave with them.
    let head: Uint8Array | null = jsonFrame(F.RES, stream, { status: res.status, headers, ...(res.stream.length !== undefined ? { length: res.stream.length } : {}) });
    const tunnel = this;
    const writer: BodyWriter = {
      onDrain: null,
      write(chunk) {
        if (st.cancelled || !tunnel.link.connected()) return true;
        const bytes = typeof chunk === 'string' ? encode(chunk) : chunk;
        tunnel.link.send(...(head ? [head] : []), ...bodyFrames(stream, bytes));
        head = null;
        if (tunnel.link.buffered() < HIGH_WATER) return true;
        tunnel.link.onDrain(() => writer.onDrain?.());
        return false;
      },
      end() {
        if (st.cancelled || st.resDone) return;
        tunnel.link.send(...(head ? [head] : []), frame(F.END, stream));
        head = null;
        done();
      },
      abort(reason) {
        if (st.cancelled || st.resDone) return;
        if (head) tunnel.link.send(head);
        head = null;
        tunnel.reset(stream, reason);
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
