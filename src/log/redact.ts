// The one place log text is redacted: registered secrets are masked, and a
// heuristic strips what looks like a credential even when nobody registered it
// (Bearer tokens, api_key= and "key": values, user:pass@host).

import { replaceMatches } from '../util/replace.ts';

const MASK = '***';
const MIN_SECRET = 4;

export class Redactor {
  private secrets = new Set<string>();

  /** Registers a secret value; short values are ignored (they would mask noise). */
  add(secret: string | null | undefined): void {
    if (secret && secret.length >= MIN_SECRET) this.secrets.add(secret);
  }
  remove(secret: string | null | undefined): void {
    if (secret) this.secrets.delete(secret);
  }

  /** The registered secrets (the tunnel's screen looks for each: src/auth/secrets.ts, kind credential). */
  values(): string[] {
    return [...this.secrets];
  }

  /** Whether text carries a registered secret. */
  containsSecret(text: string): boolean {
    for (const s of this.secrets) if (text.includes(s)) return true;
    return false;
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a secret containing another is masked whole.
    const list = [...this.secrets].sort((a, b) => b.length - a.length);
    for (const s of list) out = out.split(s).join(MASK);
    return redactHeuristics(out);
  }
}

// Each: the expression (no g flag: module-level expressions are frozen on the
// device, src/util/replace.ts), its capture groups, and the masked text.
const HEURISTICS: Array<[RegExp, number, (c: ReadonlyArray<string | undefined>) => string]> = [
  // Authorization: Bearer <token>
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/i, 1, ([scheme]) => `${scheme} ${MASK}`],
  // api_key=..., apikey=..., key=..., token=..., secret=..., password=... in queries and forms
  [/\b((?:api[_-]?key|apikey|access[_-]?token|token|secret|password|passwd|pass|key|x-api-key|x-device-token)\s*[=:]\s*)("?)[^\s&"',;]+/i, 2, ([name, quote]) => `${name}${quote ?? ''}${MASK}`],
  // "api_key": "...", "token": "...", "key": "..." in JSON
  [/("(?:[a-z0-9_-]*(?:key|token|secret|password|passphrase|appass))"\s*:\s*")[^"]*(")/i, 2, ([open, close]) => `${open}${MASK}${close}`],
  // scheme://user:pass@host
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/i, 1, ([scheme]) => `${scheme}${MASK}@`],
];

export function redactHeuristics(text: string): string {
  let out = text;
  for (const [re, groups, build] of HEURISTICS) out = replaceMatches(out, re, groups, build);
  return out;
}
