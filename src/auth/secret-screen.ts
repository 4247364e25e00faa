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
// download, a JSON body alike), in one pass: a rolling hash of SCREEN_MIN
// bytes picks the candidates, which are then compared whole. A body that
// arrives in pieces is screened with a hold-back: the last (longest form - 1)
// bytes of what has been seen wait for the next piece, so no byte of a secret
// leaves before the window holding all of it has been checked.

import { encode } from '../util/utf8.ts';
import { groupSignInCode } from '../util/ids.ts';
import { SCREEN_MIN, type LiveSecret, type SecretKind } from './secrets.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SPACE_ESCAPES = /%20/g;
const DASHES = /-/g;
const HTML_SPECIAL = /[&<>"']/g;
const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const K = SCREEN_MIN;
const BASE = 31;
/** BASE^(K-1) in 32-bit arithmetic: the weight of the byte leaving the window. */
const POW = ((): number => {
  let p = 1;
  for (let i = 1; i < K; i++) p = Math.imul(p, BASE);
  return p;
})();
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
    bases.push(grouped, grouped.replace(DASHES, ' '));
  }
  const out = new Set<string>();
  for (const b of bases) {
    const url = encodeURIComponent(b);
    out.add(b);
    out.add(JSON.stringify(b).slice(1, -1));
    out.add(url);
    out.add(url.replace(SPACE_ESCAPES, '+'));
    out.add(b.replace(HTML_SPECIAL, (c) => HTML_ENTITIES[c] ?? c));
  }
  return [...out];
}

interface Needle {
  bytes: Uint8Array; // case folded
  kind: SecretKind;
}

export type ScreenStep = { ok: true; pass: Uint8Array } | { ok: false; kind: SecretKind };

export class SecretScreen {
  private table = new Map<number, Needle[]>();
  /** The longest form's length in bytes (0: nothing to look for). */
  readonly longest: number = 0;

  constructor(secrets: readonly LiveSecret[]) {
    let longest = 0;
    for (const s of secrets) {
      for (const form of secretForms(s)) {
        const bytes = encode(form).map((b) => LOWER[b]!);
        if (bytes.length < K) continue;
        const h = hashAt(bytes, 0);
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
    let h = hashAt(bytes, 0);
    for (let i = 0; ; i++) {
      const hits = this.table.get(h);
      if (hits) for (const nd of hits) if (matchesAt(bytes, i, nd.bytes)) return nd.kind;
      if (i + K >= n) return null;
      h = (Math.imul(h - Math.imul(LOWER[bytes[i]!]!, POW), BASE) + LOWER[bytes[i + K]!]!) | 0;
    }
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
