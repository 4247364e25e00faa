// The tunnel guard (spec, Authentication 8): what a request arriving through
// the cloud relay may reach, and what of a JSON response's keys may leave
// through it. Paths are canonicalized before the check (percent-decoded
// until stable, query dropped, repeated and trailing slashes removed, case
// folded) so encoded, doubled or decorated variants of a denied route are
// denied too. What else leaves is the screen's business: every tunnelled
// answer is screened for every live secret (src/auth/secret-screen.ts).

import { percentDecode } from '../net/http/parse.ts';
import { replaceEvery } from '../util/replace.ts';
import { stringify } from '../util/json.ts';
import type { HttpRequest } from '../net/http/types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const QUERY_OR_FRAGMENT = /[?#]/;
const BACKSLASHES = /\\/;
const REPEATED_SLASHES = /\/{2,}/;
const JSON_TYPE = /^application\/json\b/i;

/**
 * Routes never reachable through the tunnel: minting or handing out a
 * credential is what they are for (the spec's four, and the Wi-Fi handoff,
 * whose answer is a sign-in link: the wizard on the setup network
 * acknowledges, never an owner from outside). Refused before they run, so
 * nothing is minted, rotated or dropped; the screen would only withhold the
 * answer after the fact.
 */
export const TUNNEL_DENIED = ['/api/connect', '/api/token/regen', '/api/signin/code', '/api/signin/exchange', '/api/wifi/handoff'];

/** JSON keys whose values never leave through the tunnel. */
export const TUNNEL_STRIPPED_KEYS = ['token', 'apPass'];

const MAX_ROUNDS = 8;

/** Canonical form of a request target, or null when it cannot be decoded. */
export function canonicalPath(target: string): string | null {
  let path = target;
  const q = path.search(QUERY_OR_FRAGMENT);
  if (q >= 0) path = path.slice(0, q);
  for (let i = 0; i < MAX_ROUNDS; i++) {
    const next = percentDecode(path);
    if (next === null) return null;
    const cut = next.search(QUERY_OR_FRAGMENT);
    const trimmed = cut >= 0 ? next.slice(0, cut) : next;
    if (trimmed === path) break;
    path = trimmed;
    if (i === MAX_ROUNDS - 1) return null; // still changing: refuse rather than guess
  }
  path = replaceEvery(replaceEvery(path, BACKSLASHES, '/'), REPEATED_SLASHES, '/');
  // Resolve dot segments so /api/x/../connect is seen as /api/connect.
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return ('/' + out.join('/')).toLowerCase();
}

export type TunnelVerdict = { allowed: true; path: string } | { allowed: false; reason: string };

export function tunnelAllows(target: string): TunnelVerdict {
  const path = canonicalPath(target);
  if (path === null) return { allowed: false, reason: 'undecodable path' };
  if (TUNNEL_DENIED.includes(path)) return { allowed: false, reason: `${path} is not available through the relay` };
  return { allowed: true, path };
}

/**
 * Whether a request came through the cloud tunnel: a route that mints a
 * credential in one of its actions (a connector sign-in's launch key)
 * refuses that action for it.
 */
export function viaTunnel(req: HttpRequest): boolean {
  return req.via === 'tunnel';
}

/** Removes token and apPass values from a JSON document, at any depth. */
export function stripSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSecrets);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (TUNNEL_STRIPPED_KEYS.some((s) => s.toLowerCase() === k.toLowerCase())) continue;
      out[k] = stripSecrets(v);
    }
    return out;
  }
  return value;
}

/** Applies stripSecrets to a JSON response body; other bodies pass unchanged. */
export function stripResponseBody(contentType: string | undefined, body: string): string {
  if (!contentType || !JSON_TYPE.test(contentType)) return body;
  try {
    return stringify(stripSecrets(JSON.parse(body)));
  } catch {
    // Not parseable as JSON although labelled so: nothing we can vouch for leaves.
    return stringify({ error: 'internal', message: 'The device answered with a body it could not check.' });
  }
}
