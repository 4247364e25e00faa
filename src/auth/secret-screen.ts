// The screen a tunnelled answer passes before it leaves through the cloud
// relay (spec, Authentication 8; docs/decisions.md, "One screen for every
// secret through the tunnel"): it looks for every live secret
// (src/auth/secrets.ts) in every form the device writes one in:
//
//   plain             the value as it is
//   JSON-escaped      as JSON.stringify writes it inside a string
//   URL-encoded       encodeURIComponent, and the form encoding (space as +)
//   HTML-escaped      & < > " ' as entities (the device's pages)
//   grouped           a sign-in code as people read it, XXXX-XXXX-XXXX (and
//                     with spaces), each in the encodings above
//
// Matching ignores ASCII case: a code is accepted back in any case, and a
// hex token in capitals is still the token. It runs on bytes (a PNG, a file
// download, a JSON body alike), in one pass that skips ahead (Wu and Manber's
// multi-pattern search): a window of SCREEN_MIN bytes moves on by as much as
// its last two bytes allow (up to 7 at a time), and only a window whose end
// could end a secret's first SCREEN_MIN bytes has its hash looked up, the
// candidates then compared whole. On XS (the simulator's, on a PC) a
// megabyte takes about 70 ms, where a byte-by-byte rolling hash took 550
// to 700 (npm run bench; docs/decisions.md, "One screen for every secret
// through the tunnel"). A body that
// arrives in pieces is screened with a hold-back: the last (longest form - 1)
// bytes of what has been seen wait for the next piece, so no byte of a secret
// leaves before the window holding all of it has been checked.

import { stringify } from '../util/json.ts';
import { replaceEachMatch, replaceEvery } from '../util/replace.ts';
import { encode } from '../util/utf8.ts';
import { groupSignInCode } from '../util/ids.ts';
import { SCREEN_MIN, type LiveSecret, type SecretKind } from './secrets.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SPACE_ESCAPES = /%20/;
const DASHES = /-/;
const HTML_SPECIAL = /([&<>"'])/;
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const K = SCREEN_MIN;
const BASE = 31;
/** Two-byte blocks are hashed into this many shift entries (a shared entry only shortens a shift). */
const SHIFT_BITS = 12;
const SHIFT_MASK = (1 << SHIFT_BITS) - 1;

function block(a: number, b: number): number {
  return (Math.imul(a, 33) ^ b) & SHIFT_MASK;
}
/** ASCII case folding by table (bytes above 0x7f stay as they are). */
const LOWER = ((): Uint8Array => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) t[i] = i >= 0x41 && i <= 0x5a ? i + 0x20 : i;
  return t;
})();

/** Every text form of one secret the device could write (before case folding). */
export function secretForms(s: LiveSecret): string[] {
  const bases = [s.value];
  if (s.kind === 'signin-code') {
    const grouped = groupSignInCode(s.value);
    bases.push(grouped, replaceEvery(grouped, DASHES, ' '));
  }
  const out = new Set<string>();
  for (const b of bases) {
    const url = encodeURIComponent(b);
    out.add(b);
    out.add(stringify(b).slice(1, -1));
    out.add(url);
    out.add(replaceEvery(url, SPACE_ESCAPES, '+'));
    out.add(replaceEachMatch(b, HTML_SPECIAL, (c) => HTML_ENTITIES[c] ?? c));
  }
  return [...out];
}

interface Needle {
  bytes: Uint8Array; // case folded
  kind: SecretKind;
}

export type ScreenStep = { ok: true; pass: Uint8Array } | { ok: false; kind: SecretKind };

export class SecretScreen {
  /** Needles by the hash of their first K bytes. */
  private table = new Map<number, Needle[]>();
  /** How far a window may move on, by its last two bytes (0: it may end a needle's first K bytes). */
  private shift = new Uint8Array(1 << SHIFT_BITS).fill(K - 1);
  /** The longest form's length in bytes (0: nothing to look for). */
  readonly longest: number = 0;

  constructor(secrets: readonly LiveSecret[]) {
    let longest = 0;
    for (const s of secrets) {
      for (const form of secretForms(s)) {
        const bytes = encode(form).map((b) => LOWER[b]!);
        if (bytes.length < K) continue;
        const h = hashAt(bytes, 0);
        for (let j = 1; j < K; j++) {
          const at = block(bytes[j - 1]!, bytes[j]!);
          if (K - 1 - j < this.shift[at]!) this.shift[at] = K - 1 - j;
        }
        const list = this.table.get(h);
        if (list) list.push({ bytes, kind: s.kind });
        else this.table.set(h, [{ bytes, kind: s.kind }]);
        if (bytes.length > longest) longest = bytes.length;
      }
    }
    this.longest = longest;
  }

  /** The kind of a secret found in bytes, or null. */
  find(bytes: Uint8Array): SecretKind | null {
    const n = bytes.length;
    if (n < K || this.longest === 0) return null;
    const shift = this.shift;
    // pos is the last byte of the window [pos - K + 1, pos].
    for (let pos = K - 1; pos < n; ) {
      const s = shift[block(LOWER[bytes[pos - 1]!]!, LOWER[bytes[pos]!]!)]!;
      if (s !== 0) {
        pos += s;
        continue;
      }
      const start = pos - K + 1;
      const hits = this.table.get(hashAt(bytes, start));
      if (hits) for (const nd of hits) if (matchesAt(bytes, start, nd.bytes)) return nd.kind;
      pos++;
    }
    return null;
  }

  findText(text: string): SecretKind | null {
    return this.longest === 0 ? null : this.find(encode(text));
  }

  /** A screen for a body that arrives in pieces (see the header: the hold-back). */
  stream(): StreamScreen {
    return new StreamScreen(this);
  }
}

export class StreamScreen {
  private carry: Uint8Array = new Uint8Array(0);

  constructor(private readonly screen: SecretScreen) {}

  /** The bytes of this piece (and of earlier ones held back) that may leave now, or the kind found. */
  push(chunk: Uint8Array): ScreenStep {
    const keep = Math.max(0, this.screen.longest - 1);
    if (keep === 0) return { ok: true, pass: chunk };
    const buf = new Uint8Array(this.carry.length + chunk.length);
    buf.set(this.carry, 0);
    buf.set(chunk, this.carry.length);
    const kind = this.screen.find(buf);
    if (kind) return { ok: false, kind };
    // Every secret that starts before the cut ends inside buf, so it would have been found.
    const cut = Math.max(0, buf.length - keep);
    this.carry = buf.slice(cut);
    return { ok: true, pass: buf.subarray(0, cut) };
  }

  /** The body is complete: what was held back (already screened with the last piece). */
  end(): Uint8Array {
    const rest = this.carry;
    this.carry = new Uint8Array(0);
    return rest;
  }
}

function hashAt(bytes: Uint8Array, from: number): number {
  let h = 0;
  for (let i = from; i < from + K; i++) h = (Math.imul(h, BASE) + LOWER[bytes[i]!]!) | 0;
  return h;
}

function matchesAt(bytes: Uint8Array, at: number, needle: Uint8Array): boolean {
  if (at + needle.length > bytes.length) return false;
  for (let j = 0; j < needle.length; j++) if (LOWER[bytes[at + j]!] !== needle[j]) return false;
  return true;
}
