// Connector sign-in flows (spec, Authentication 9; Access credentials:
// connector launch key; Limits: connector consent window up to one hour).
//
// A flow starts only from an authenticated call (POST /api/connectors
// action=signin). It holds, in RAM only (a reboot or a token rotation voids
// every flow, as it voids sign-in codes):
//   key       the 128-bit launch key, carried only on the owner's verify link
//             (/oauth/go?k=<key>), so a phone without the device token can
//             continue the sign-in the owner started;
//   state     a second 128-bit value for the OAuth round trip, checked for
//             equality at the callback (it never appears on the verify link);
//   verifier  the PKCE code verifier (the challenge goes to the provider);
//   deadline  the consent window: at most one hour (shorter on request).
// Matching is constant-time and fails closed: an empty presented key, or an
// empty published one, never matches (src/util/ct.ts); expired flows are
// dropped before any comparison. One flow per connector: a new start
// replaces the older key.

import { ctEqual } from '../util/ct.ts';
import { launchKey128, randomBytes, type RandomFill } from '../util/ids.ts';
import { toBase64Url } from '../util/encoding.ts';
import { encode } from '../util/utf8.ts';

/** Spec, Limits: the connector consent window is up to one hour. */
export const CONSENT_WINDOW_MAX_MS = 60 * 60_000;
export const CONSENT_WINDOW_MIN_MS = 60_000;

export interface Flow {
  connector: string;
  key: string;
  state: string;
  verifier: string;
  redirectUri: string;
  /** Monotonic ms after which the flow is void. */
  deadline: number;
}

export class FlowTable {
  private flows = new Map<string, Flow>();

  constructor(private readonly now: () => number) {}

  /** Mints a flow for a connector (replacing its older one). windowMs is clamped to 1 minute - 1 hour. */
  start(connector: string, redirectUri: string, random: RandomFill, windowMs = CONSENT_WINDOW_MAX_MS): Flow {
    const window = Math.max(CONSENT_WINDOW_MIN_MS, Math.min(CONSENT_WINDOW_MAX_MS, Number.isFinite(windowMs) ? windowMs : CONSENT_WINDOW_MAX_MS));
    const flow: Flow = { connector, key: launchKey128(random), state: launchKey128(random), verifier: toBase64Url(randomBytes(random, 32)), redirectUri, deadline: this.now() + window };
    this.put(flow);
    return flow;
  }

  /** Keeps a flow (start() uses it; tests use it to publish odd keys). */
  put(flow: Flow): void {
    this.flows.set(flow.connector, flow);
  }

  private live(): Flow[] {
    const now = this.now();
    for (const [id, f] of this.flows) if (f.deadline <= now) this.flows.delete(id);
    return [...this.flows.values()];
  }

  /** The flow whose launch key is exactly `presented` (constant-time; empty never matches). */
  byKey(presented: unknown): Flow | null {
    let hit: Flow | null = null;
    for (const f of this.live()) if (ctEqual(presented, f.key) && hit === null) hit = f;
    return hit;
  }

  /** The flow whose state is exactly `presented`, removed (a state is used once). */
  takeByState(presented: unknown): Flow | null {
    let hit: Flow | null = null;
    for (const f of this.live()) if (ctEqual(presented, f.state) && hit === null) hit = f;
    if (hit) this.flows.delete(hit.connector);
    return hit;
  }

  /** The launch keys of the flows still open (the tunnel's screen looks for each). */
  liveKeys(): string[] {
    return this.live().map((f) => f.key);
  }

  pending(): Array<{ id: string; expiresInMs: number }> {
    const now = this.now();
    return this.live().map((f) => ({ id: f.connector, expiresInMs: f.deadline - now }));
  }

  has(connector: string): boolean {
    return this.live().some((f) => f.connector === connector);
  }

  drop(connector: string): void {
    this.flows.delete(connector);
  }

  clear(): void {
    this.flows.clear();
  }
}

/** The PKCE S256 challenge of a verifier. */
export function pkceChallenge(verifier: string, sha256: (bytes: Uint8Array) => Uint8Array): string {
  return toBase64Url(sha256(encode(verifier)));
}

/** A query component, percent-encoded (RFC 3986 unreserved characters kept). */
export function q(s: string): string {
  return encodeURIComponent(s);
}
