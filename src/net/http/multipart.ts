// multipart/form-data (RFC 7578 over RFC 2046 5.1.1) read as it arrives: a
// body fed in chunks cut anywhere (inside the boundary, a part's headers or
// its CRLFs) gives each part's head, then its bytes, then its end, holding
// back only what could still be the start of a boundary. Uploads stream to
// the card through it (src/core/upload-route.ts); parseMultipart in body.ts
// is the same reader fed one whole body, so both read alike and fail in the
// same words.

import { decode } from '../../util/utf8.ts';

export interface PartHead {
  /** The form field's name (Content-Disposition name). */
  name: string;
  /** The file's name for a file part; null for a plain field. */
  filename: string | null;
  contentType: string;
}

/** What a reader hands its parts to, in body order. Bytes are valid only during the call. */
export interface PartSink {
  begin(head: PartHead): void;
  data(bytes: Uint8Array): void;
  end(): void;
}

/** The longest header block of one part: a part's head is a few hundred bytes from any browser or curl. */
export const PART_HEAD_MAX = 8192;
const EMPTY = new Uint8Array(0);
const CRLFCRLF = ascii('\r\n\r\n');

function ascii(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  outer: for (let i = from; i <= hay.length - needle.length; i++) {
    if (hay[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** How many bytes at the end of hay[from..] are a proper prefix of needle (they may finish it in the next chunk). */
function heldBack(hay: Uint8Array, from: number, needle: Uint8Array): number {
  const first = needle[0];
  for (let i = Math.max(from, hay.length - needle.length + 1); i < hay.length; i++) {
    if (hay[i] !== first) continue;
    let j = 1;
    while (i + j < hay.length && hay[i + j] === needle[j]) j++;
    if (i + j === hay.length) return hay.length - i;
  }
  return 0;
}

// The parameters read from a header value, as module constants (XS compiles a literal each time it is evaluated).
const PARAMS = {
  name: /;\s*name=("([^"]*)"|[^;\s]*)/i,
  filename: /;\s*filename=("([^"]*)"|[^;\s]*)/i,
  boundary: /;\s*boundary=("([^"]*)"|[^;\s]*)/i,
};

/** A parameter of a header value (key="x" or key=x), or null. */
export function headerParam(header: string, key: keyof typeof PARAMS): string | null {
  const m = PARAMS[key].exec(header);
  if (!m) return null;
  return m[2] ?? m[1] ?? null;
}

const enum State {
  Preamble,
  /** Right after a boundary: "--" ends the body, CRLF opens a part. */
  AfterBoundary,
  Head,
  Data,
  Done,
}

export class MultipartReader {
  /** Why the body cannot be read (set once; nothing more is handed on). */
  error: string | null = null;
  private state = State.Preamble;
  /** "--boundary": the first one may follow a preamble. */
  private readonly dashBoundary: Uint8Array;
  /** CRLF "--boundary": what ends a part's bytes. */
  private readonly delimiter: Uint8Array;
  private carry = EMPTY;
  private head: Uint8Array[] = [];
  private headLen = 0;
  /** A part whose head gives no name fails when its end is found (as a whole-body reader would). */
  private nameless = false;
  private fed = 0;
  private base = 0;
  private at = 0;

  constructor(
    boundary: string,
    private readonly sink: PartSink,
  ) {
    this.dashBoundary = ascii(`--${boundary}`);
    this.delimiter = ascii(`\r\n--${boundary}`);
    if (!boundary || boundary.length > 70) this.error = 'bad multipart boundary';
  }

  /** The body has ended with its closing boundary. */
  get done(): boolean {
    return this.state === State.Done;
  }

  /** Body bytes read so far up to where the reader stands (in a callback: just after what it handed on). */
  get position(): number {
    return this.base + this.at;
  }

  feed(chunk: Uint8Array): void {
    if (this.error || this.state === State.Done) return;
    let buf = chunk;
    if (this.carry.length) {
      buf = new Uint8Array(this.carry.length + chunk.length);
      buf.set(this.carry);
      buf.set(chunk, this.carry.length);
    }
    this.base = this.fed - this.carry.length;
    this.fed += chunk.length;
    this.carry = EMPTY;
    this.at = 0;
    while (this.at < buf.length && !this.error && !this.done) this.step(buf);
  }

  /** The body ended: an error when it stopped short of its closing boundary. */
  finish(): void {
    if (this.error || this.state === State.Done) return;
    this.error =
      this.state === State.Preamble
        ? 'multipart boundary not found'
        : this.state === State.Head
          ? 'malformed multipart part'
          : this.state === State.Data
            ? 'unterminated multipart body'
            : 'malformed multipart body';
  }

  private keep(buf: Uint8Array, from: number): void {
    this.carry = buf.slice(from);
    this.at = buf.length;
  }

  private step(buf: Uint8Array): void {
    switch (this.state) {
      case State.Preamble: {
        const i = indexOf(buf, this.dashBoundary, this.at);
        if (i < 0) return this.keep(buf, buf.length - heldBack(buf, this.at, this.dashBoundary));
        this.at = i + this.dashBoundary.length;
        this.state = State.AfterBoundary;
        return;
      }
      case State.AfterBoundary: {
        if (buf.length - this.at < 2) return this.keep(buf, this.at);
        const a = buf[this.at]!;
        const b = buf[this.at + 1]!;
        if (a === 45 && b === 45) {
          this.state = State.Done;
          return;
        }
        if (a !== 13 || b !== 10) {
          this.error = 'malformed multipart body';
          return;
        }
        this.at += 2;
        this.state = State.Head;
        this.head = [];
        this.headLen = 0;
        return;
      }
      case State.Head:
        return this.readHead(buf);
      case State.Data: {
        const i = indexOf(buf, this.delimiter, this.at);
        const end = i >= 0 ? i : buf.length - heldBack(buf, this.at, this.delimiter);
        if (end > this.at && !this.nameless) this.sink.data(buf.subarray(this.at, end));
        if (i < 0) return this.keep(buf, end);
        this.at = i + this.delimiter.length;
        if (this.nameless) {
          this.error = 'multipart part without a name';
          return;
        }
        this.sink.end();
        this.state = State.AfterBoundary;
        return;
      }
      default:
        this.at = buf.length;
    }
  }

  private readHead(buf: Uint8Array): void {
    // The head so far plus what arrived, searched from just before the seam for CRLFCRLF.
    const room = PART_HEAD_MAX + 4 - this.headLen;
    const piece = buf.subarray(this.at, Math.min(buf.length, this.at + room));
    const joined = this.head.length ? concat([...this.head, piece]) : piece;
    const end = indexOf(joined, CRLFCRLF, Math.max(0, this.headLen - 3));
    if (end < 0) {
      if (joined.length >= PART_HEAD_MAX + 4) {
        this.error = 'malformed multipart part';
        return;
      }
      this.head = [joined.slice()];
      this.headLen = joined.length;
      this.at += piece.length;
      return;
    }
    this.at += end + 4 - this.headLen;
    this.head = [];
    this.headLen = 0;
    this.openPart(joined.subarray(0, end));
  }

  private openPart(headBytes: Uint8Array): void {
    let disposition = '';
    let contentType = 'text/plain';
    for (const line of decode(headBytes).split('\r\n')) {
      const colon = line.indexOf(':');
      const k = line.slice(0, colon).trim().toLowerCase();
      const v = line.slice(colon + 1).trim();
      if (k === 'content-disposition') disposition = v;
      if (k === 'content-type') contentType = v;
    }
    const name = headerParam(disposition, 'name');
    this.state = State.Data;
    this.nameless = name === null;
    if (name === null) return;
    this.sink.begin({ name, filename: headerParam(disposition, 'filename'), contentType });
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
