// One HTTP connection reading requests and answering them: the request head
// (admission from it: trusted with the token, refused at once when it cannot
// pass the gate), the body whole or streamed into the route's sink, keep-alive
// and pipelining, and the answer whole or streamed (chunked when its length is
// not known). Its state, deadlines and closing are connection-base.ts's.

import { encode } from '../../util/utf8.ts';
import { ConnectionBase } from './connection-base.ts';
import { errorResponse } from './errors.ts';
import { bodyFraming, ChunkedDecoder, findHeadEnd, parseHead, type RequestHead } from './parse.ts';
import { bodyBytes, concat, serializeHead, serializeWhole } from './response-bytes.ts';
import type { BodySink, BodyWriter, HttpRequest, HttpResponse } from './types.ts';

const HIGH_WATER = 16 * 1024;

export class Connection extends ConnectionBase {
  // ---------------------------------------------------------------------
  // Bytes in.

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
  protected streamed(chunk: Uint8Array): void {
    const n = Math.min(this.expected - this.bodyLen, chunk.length);
    if (n > 0) {
      this.take(chunk.subarray(0, n));
      this.bodyProgress();
    }
    if (n < chunk.length) this.push(chunk.subarray(n));
    if (this.bodyLen >= this.expected && this.phase === 'body') this.dispatch();
  }

  protected pump(): void {
    while (this.phase === 'head' || this.phase === 'body') {
      if (this.phase === 'head' && !this.readHead()) return;
      if (this.phase === 'body' && !this.readBody()) return;
    }
  }

  /** Returns true when it moved on to the body (or failed); false to wait for more bytes. */
  protected readHead(): boolean {
    const limits = this.server.limits;
    if (this.end > this.start && this.scanFrom === 0 && this.waitingSince !== null) {
      // The first byte of a request: its whole head has headTimeoutMs from here.
      this.waitingSince = null;
      this.slowAfter(limits.headTimeoutMs);
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
    if (trusted) this.slowAfter(limits.bodyIdleTimeoutMs);
    else {
      // A minimum rate for a stranger's body: the whole of it within a base time plus its length at the rate.
      const size = framing.kind === 'length' ? framing.length : this.bodyLimit;
      this.slowAfter(limits.untrustedBodyBaseMs + Math.ceil((size * 1000) / limits.untrustedBodyRate));
    }
    return true;
  }

  protected take(bytes: Uint8Array): void {
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
  protected answerEarly(res: HttpResponse): void {
    this.answered = true;
    this.dropSink();
    this.server.stats.requests++;
    this.socket.write(serializeWhole(res));
  }

  /** Body bytes arrived: a trusted sender's silence deadline moves on (a stranger's does not). */
  protected bodyProgress(): void {
    if (this.requestTrusted) this.slowAfter(this.server.limits.bodyIdleTimeoutMs);
  }

  protected readBody(): boolean {
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

  protected dispatch(): void {
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
  protected dispatchSink(head: RequestHead, sink: BodySink): void {
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

  protected answerWith(answer: Promise<HttpResponse>, head: RequestHead, undo?: () => void): void {
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

  protected respond(res: HttpResponse, head: RequestHead, keepAlive: boolean): void {
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

  protected stream(start: (w: BodyWriter) => void, chunked: boolean, keepAlive: boolean): void {
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

  protected finish(keepAlive: boolean): void {
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
}

function wantsKeepAlive(head: RequestHead): boolean {
  const c = head.headers.get('connection')?.toLowerCase() ?? '';
  if (head.version === '1.0') return c.split(',').some((t) => t.trim() === 'keep-alive');
  return !c.split(',').some((t) => t.trim() === 'close');
}
