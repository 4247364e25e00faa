// Server-Sent Events (the WHATWG event stream format, text/event-stream) read
// incrementally from a response body's bytes as they arrive: the providers'
// streamed rounds. Lines end with CRLF, LF or CR (a CR at the end of one chunk
// and the LF at the start of the next are one line end); a blank line
// dispatches the event; `event:` names it (default "message"), `data:` lines
// are joined with LF; comments (`:`) and `id:`/`retry:` are read and ignored;
// a leading byte-order mark is dropped; an event left unterminated when the
// stream ends is dropped (as the spec says).
//
// Bytes are split into lines first (LF and CR are ASCII, so they never fall
// inside a multi-byte character) and each whole line is decoded with
// src/util/utf8.ts: a character split across two chunks is decoded once, whole.
// Bounded: a line longer than lineMax bytes, or an event whose data passes
// eventMax bytes, stops the parser with an error (the caller abandons the
// request); the parser holds at most one line and one event.

import { decode } from '../../util/utf8.ts';

const LF = 10;
const CR = 13;

/** A line of the stream may be at most this long by default (bytes). */
export const SSE_LINE_MAX = 256 * 1024;
/** An event's data may be at most this long by default (bytes). */
export const SSE_EVENT_MAX = 256 * 1024;

export interface SseLimits {
  lineMax: number;
  eventMax: number;
}

export class SseParser {
  /** Why the parser stopped (an over-long line or event); nothing is dispatched after. */
  error: string | null = null;
  /** Events dispatched so far. */
  events = 0;
  private pieces: Uint8Array[] = [];
  private pending = 0;
  private skipLf = false;
  private first = true;
  private type = '';
  private data: string[] = [];
  private dataBytes = 0;
  private readonly lineMax: number;
  private readonly eventMax: number;

  constructor(
    private readonly onEvent: (event: string, data: string) => void,
    limits: Partial<SseLimits> = {},
  ) {
    this.lineMax = limits.lineMax ?? SSE_LINE_MAX;
    this.eventMax = limits.eventMax ?? SSE_EVENT_MAX;
  }

  /** Reads the next bytes of the stream. */
  feed(bytes: Uint8Array): void {
    let at = 0;
    const n = bytes.length;
    while (at < n && this.error === null) {
      if (this.skipLf) {
        this.skipLf = false;
        if (bytes[at] === LF) {
          at++;
          continue;
        }
      }
      // The next line end: the nearer of LF and CR (native scans, no byte loop in the interpreter).
      const lf = bytes.indexOf(LF, at);
      const cr = bytes.indexOf(CR, at);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) {
        this.keep(bytes.subarray(at));
        return;
      }
      this.keep(bytes.subarray(at, end));
      if (this.error !== null) return;
      if (bytes[end] === CR) this.skipLf = true;
      at = end + 1;
      this.line();
    }
  }

  /** The stream ended: an event without its blank line is dropped. */
  end(): void {
    this.pieces = [];
    this.pending = 0;
    this.type = '';
    this.data = [];
    this.dataBytes = 0;
  }

  private keep(part: Uint8Array): void {
    if (!part.length) return;
    if (this.pending + part.length > this.lineMax) {
      this.error = `an event stream line over ${this.lineMax} bytes`;
      return;
    }
    // A copy: the caller may reuse its chunk.
    this.pieces.push(part.slice());
    this.pending += part.length;
  }

  private line(): void {
    let bytes: Uint8Array;
    if (this.pieces.length === 1) bytes = this.pieces[0]!;
    else {
      bytes = new Uint8Array(this.pending);
      let o = 0;
      for (const p of this.pieces) {
        bytes.set(p, o);
        o += p.length;
      }
    }
    const size = this.pending;
    this.pieces = [];
    this.pending = 0;
    let text = size ? decode(bytes) : '';
    if (this.first) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text === '') return this.dispatch();
    if (text.charCodeAt(0) === 58) return; // ':' a comment
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') {
      this.dataBytes += size + 1;
      if (this.dataBytes > this.eventMax) {
        this.error = `an event over ${this.eventMax} bytes`;
        return;
      }
      this.data.push(value);
    }
    // id and retry steer a browser's reconnection, which a round never does; other fields are ignored (spec).
  }

  private dispatch(): void {
    if (!this.data.length) {
      this.type = '';
      return;
    }
    const type = this.type || 'message';
    const data = this.data.length === 1 ? this.data[0]! : this.data.join('\n');
    this.type = '';
    this.data = [];
    this.dataBytes = 0;
    this.events++;
    this.onEvent(type, data);
  }
}
