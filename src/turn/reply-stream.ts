// The reply read out of a turn object while it is still being written: the
// provider's stream hands on the turn's JSON text a piece at a time (orch_turn's
// arguments, or the structured answer's text: src/providers/stream.ts), and
// this scanner gives back the characters of its top-level "reply" string as
// they arrive, decoded (\n, \", \uXXXX; a surrogate pair split across pieces
// is held until both halves are in), wherever the key sits among the others.
// Anything before the object's opening brace (a Markdown fence) is skipped.
// It reads, it never judges: the whole object is still parsed and validated
// when it is complete (src/turn/parse.ts), and only that turn is applied.

const QUOTE = 34;
const BACKSLASH = 92;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
/** Top-level keys longer than this are not "reply" and are not kept whole. */
const KEY_MAX = 16;

export class ReplyScanner {
  /** Depth of objects and arrays: 0 before the opening brace, 1 at the turn object's members. */
  private depth = 0;
  private inString = false;
  private escape = false;
  /** \\u escape digits gathered so far (-1: not in one). */
  private hex = -1;
  private hexDigits = '';
  private pendingHigh = 0;
  /** At depth 1: the next string is a key (true) or a value (false). */
  private expectKey = true;
  private key = '';
  private keyOver = false;
  private stringIsKey = false;
  private inReply = false;
  /** The reply string has closed. */
  done = false;
  /** Characters of the reply given so far (what grew). */
  length = 0;
  /** A high surrogate that ended a piece: given with its low half from the next piece. */
  private carry = '';

  constructor(private readonly onReply: (text: string) => void) {}

  /** Reads the next piece of the turn's JSON text. */
  push(piece: string): void {
    if (this.done) return;
    let out = this.carry;
    this.carry = '';
    for (let i = 0; i < piece.length; i++) {
      const c = piece.charCodeAt(i);
      if (this.inString) {
        if (this.inReply) {
          // A run of plain characters is taken in one slice (the common case: no escapes).
          if (!this.escape && this.hex < 0 && c !== QUOTE && c !== BACKSLASH && !this.pendingHigh) {
            let j = i + 1;
            while (j < piece.length) {
              const d = piece.charCodeAt(j);
              if (d === QUOTE || d === BACKSLASH) break;
              j++;
            }
            out += piece.slice(i, j);
            i = j - 1;
            continue;
          }
          out += this.stringChar(c, piece[i]!);
          if (this.done) break;
        } else this.stringChar(c, piece[i]!);
        continue;
      }
      this.structural(c);
    }
    const last = out.charCodeAt(out.length - 1);
    if (!this.done && last >= 0xd800 && last <= 0xdbff) {
      this.carry = out.slice(-1);
      out = out.slice(0, -1);
    }
    if (out) {
      this.length += out.length;
      this.onReply(out);
    }
  }

  /** One character inside a string; returns what it adds to the reply ('' for none). */
  private stringChar(c: number, ch: string): string {
    if (this.hex >= 0) {
      this.hexDigits += ch;
      if (this.hexDigits.length < 4) return '';
      const unit = parseInt(this.hexDigits, 16);
      this.hex = -1;
      this.hexDigits = '';
      return this.unit(Number.isNaN(unit) ? 0xfffd : unit);
    }
    if (this.escape) {
      this.escape = false;
      if (ch === 'u') {
        this.hex = 0;
        return '';
      }
      return this.take(ESCAPES[ch] ?? ch);
    }
    if (c === BACKSLASH) {
      this.escape = true;
      return '';
    }
    if (c === QUOTE) {
      this.endString();
      return this.flushHigh();
    }
    return this.take(ch);
  }

  /** A UTF-16 unit from an escape: a high surrogate waits for its low half. */
  private unit(u: number): string {
    if (u >= 0xd800 && u <= 0xdbff) {
      const held = this.flushHigh();
      this.pendingHigh = u;
      return held;
    }
    if (u >= 0xdc00 && u <= 0xdfff && this.pendingHigh) {
      const pair = String.fromCharCode(this.pendingHigh, u);
      this.pendingHigh = 0;
      return this.keep(pair);
    }
    return this.take(String.fromCharCode(u));
  }

  private flushHigh(): string {
    if (!this.pendingHigh) return '';
    this.pendingHigh = 0;
    // A lone high surrogate: what UTF-8 would make of it.
    return this.keep('\ufffd');
  }

  private take(s: string): string {
    return this.flushHigh() + this.keep(s);
  }

  private keep(s: string): string {
    if (this.inReply) return s;
    if (this.stringIsKey && !this.keyOver) {
      if (this.key.length + s.length > KEY_MAX) this.keyOver = true;
      else this.key += s;
    }
    return '';
  }

  private endString(): void {
    this.inString = false;
    if (this.inReply) {
      this.inReply = false;
      this.done = true;
      return;
    }
    if (this.stringIsKey) this.expectKey = false;
  }

  /** A character outside strings: braces, brackets, colons and commas at the turn object's level. */
  private structural(c: number): void {
    if (c === QUOTE) {
      if (this.depth === 0) return;
      this.inString = true;
      this.escape = false;
      this.stringIsKey = this.depth === 1 && this.expectKey;
      if (this.stringIsKey) {
        this.key = '';
        this.keyOver = false;
      }
      // A string value of the "reply" member.
      this.inReply = this.depth === 1 && !this.expectKey && this.key === 'reply' && !this.keyOver;
      return;
    }
    if (c === 123 || c === 91) {
      // { [
      this.depth++;
      if (this.depth === 1) this.expectKey = true;
    } else if (c === 125 || c === 93) this.depth = Math.max(0, this.depth - 1);
    else if (c === 44 && this.depth === 1) {
      // , the next member's key
      this.expectKey = true;
      this.key = '';
    }
  }
}
