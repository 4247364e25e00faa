// A growing reply cut into sentences for speech: text goes in as it streams,
// and a sentence comes out as soon as it is complete (its end mark and the
// space after it have arrived), so its speech can be asked for while the rest
// is still being written. A sentence ends at . ! ? or an ellipsis followed by
// a space or a line break (closing quotes and brackets stay with it), at
// 。！？ (no space follows them), or at a line break. Not ends: a decimal
// point (3.5), common abbreviations (e.g., Dr., etc.) and a single initial
// (J. Smith). A sentence shorter than MIN_BYTES (UTF-8: a CJK character
// says as much as three Latin ones) is held and joined to the next (a request
// per "Ok." costs more than it saves), except the first (the sooner it is
// spoken the better). A run without an end past MAX_CHARS is cut
// at its last comma, semicolon or space (a long list still starts speaking).

import { utf8Length } from '../util/utf8.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
// No g flag: the device's preload freezes module constants, and a global regex writes its lastIndex.
const END_MARK = /[.!?\u2026]["'\u201d\u2019)\]]*(?=[ \t\n\r])|[\u3002\uff01\uff1f]["'\u201d\u2019)\]\u300d\u300f]*|\n/;
/** Words after which a period does not end the sentence (lowercased, without the period). */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'etc', 'e.g', 'i.e', 'approx', 'no', 'fig', 'inc', 'ltd', 'co', 'min', 'max']);
// Letters as XS builds match them without Unicode property escapes (not compiled into the device's XS).
const LAST_WORD = /([A-Za-z\u00c0-\u024f.]+)\.["'\u201d\u2019)\]]*$/;
const WIDE_END = /[\u3002\uff01\uff1f]["'\u201d\u2019)\]\u300d\u300f]*$/;

export const MIN_BYTES = 12;
export const MAX_CHARS = 240;

export class SentenceSplitter {
  private buf = '';
  private given = 0;

  /** Adds streamed text; returns the sentences it completed (trimmed, in order). */
  push(text: string): string[] {
    this.buf += text;
    const out: string[] = [];
    for (;;) {
      const cut = this.nextEnd();
      if (cut < 0) break;
      const s = this.buf.slice(0, cut).trim();
      this.buf = this.buf.slice(cut);
      if (s) this.emit(s, out);
    }
    if (this.buf.length > MAX_CHARS) {
      const cut = softCut(this.buf, MAX_CHARS);
      const s = this.buf.slice(0, cut).trim();
      this.buf = this.buf.slice(cut);
      if (s) out.push(this.take(s));
    }
    return out;
  }

  /** The reply is complete: what is left, as the last sentence (or null). */
  flush(): string | null {
    const rest = this.buf.trim();
    const s = this.held && rest ? join(this.held, rest) : this.held || rest;
    this.buf = '';
    this.held = '';
    return s ? this.take(s) : null;
  }

  /** A short sentence waiting to be joined to the next. */
  private held = '';

  private emit(s: string, out: string[]): void {
    const joined = this.held ? join(this.held, s) : s;
    if (this.given > 0 && utf8Length(joined) < MIN_BYTES) {
      this.held = joined;
      return;
    }
    this.held = '';
    out.push(this.take(joined));
  }

  private take(s: string): string {
    this.given++;
    return s;
  }

  /** The index just after the first complete sentence in the buffer, or -1. */
  private nextEnd(): number {
    let from = 0;
    for (;;) {
      const m = END_MARK.exec(from ? this.buf.slice(from) : this.buf);
      if (!m) return -1;
      const end = from + m.index + m[0].length;
      if (m[0] === '\n' || !this.notAnEnd(this.buf.slice(0, end))) return end;
      from = end;
    }
  }

  /** A period after an abbreviation or a single initial. */
  private notAnEnd(upTo: string): boolean {
    const w = LAST_WORD.exec(upTo);
    if (!w) return false;
    const word = w[1]!.toLowerCase();
    // A single capital (an initial); "I." ends a sentence as often as not, so it does.
    return ABBREVIATIONS.has(word) || (word.length === 1 && word !== 'i' && w[1] !== word);
  }
}

/** Two sentences as one: a space between them, none after a CJK end mark. */
function join(a: string, b: string): string {
  return WIDE_END.test(a) ? a + b : `${a} ${b}`;
}

/** Where to cut a run without a sentence end: after its last comma, semicolon or space before max. */
function softCut(text: string, max: number): number {
  const mark = Math.max(text.lastIndexOf(', ', max - 2), text.lastIndexOf('; ', max - 2), text.lastIndexOf(': ', max - 2));
  if (mark > 0) return mark + 2;
  const space = text.lastIndexOf(' ', max - 1);
  return space > 0 ? space + 1 : max;
}
