// What the HTTP server is given and what it counts: its limits (the ones a
// device can afford, and the stricter ones for connections without the token),
// the app it serves (admission from a request head, body limits, body sinks,
// the handler) and its statistics.

import type { RequestHead } from './parse.ts';
import type { BodySink, HttpRequest, HttpResponse } from './types.ts';

export interface ServerLimits {
  /** Request line plus headers. */
  maxHeadBytes: number;
  /** Connections at once (each holds an lwIP TCP control block on the device). */
  maxConnections: number;
  /**
   * Above this many, untrusted connections are closed (oldest first) after
   * trimDelayMs: the room between it and maxConnections absorbs a burst of
   * new connections, so the owner's newest one is not pushed out before its
   * head has had time to arrive.
   */
  steadyConnections: number;
  trimDelayMs: number;
  /** From the first byte of a request to the end of its head. */
  headTimeoutMs: number;
  /** Trusted: the longest silence while a body is arriving. */
  bodyIdleTimeoutMs: number;
  /** Trusted: a keep-alive connection with no request in flight is closed after this. */
  keepAliveIdleMs: number;
  /** Untrusted: from connecting (or the last answer) to the first byte of a request. */
  untrustedIdleMs: number;
  /** Untrusted: the largest body read (and never more than the route's own limit). */
  untrustedBodyMax: number;
  /** Untrusted: request bytes held at once by all of them together (heads and bodies being read). */
  untrustedBytesMax: number;
  /** Untrusted: a body must be complete within this plus its length at untrustedBodyRate. */
  untrustedBodyBaseMs: number;
  /** Untrusted: the slowest body accepted, in bytes per second. */
  untrustedBodyRate: number;
  /** An answer the client does not take (nothing drains) for this long is abandoned. */
  sendStallMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxHeadBytes: 8192,
  maxConnections: 64,
  steadyConnections: 8,
  trimDelayMs: 50,
  headTimeoutMs: 5_000,
  bodyIdleTimeoutMs: 10_000,
  keepAliveIdleMs: 30_000,
  untrustedIdleMs: 5_000,
  untrustedBodyMax: 8 * 1024,
  untrustedBytesMax: 64 * 1024,
  untrustedBodyBaseMs: 2_000,
  untrustedBodyRate: 2048,
  sendStallMs: 20_000,
};

/**
 * What a request may expect, judged from its head alone: `token` (the head
 * carries the valid token: the connection is trusted), `open` (a route anyone
 * may call), `form` (no token in the head, but the form body may carry it),
 * or `refuse` (it cannot pass the gate: answered now, its body never read).
 */
export type Admission = { kind: 'token' } | { kind: 'open' } | { kind: 'form' } | { kind: 'refuse'; response: HttpResponse };

export interface HttpApp {
  /** Largest body accepted for this request (bytes). */
  bodyLimit(head: RequestHead): number;
  /** The admission of a request head, and whether a body follows it (absent: every request is `open`). */
  admit?(head: RequestHead, hasBody: boolean): Admission;
  /** A sink that takes this request's body as it arrives (absent or null: the body is read whole, then handle()). */
  sink?(head: RequestHead): BodySink | null;
  handle(request: HttpRequest): Promise<HttpResponse>;
}

export interface ServerStats {
  open: number;
  /** Open connections whose head showed the valid token. */
  trusted: number;
  accepted: number;
  requests: number;
  /** Answered with an error status by the server itself (400, 408, 413, 431, 503) or refused at the head (401). */
  rejected: number;
  /** Connections closed to make room for a newcomer. */
  evicted: number;
  /** Requests refused from their head alone (401 before the body). */
  refused: number;
  /** Connections closed by a deadline (idle, head, body rate, a stalled answer). */
  timedOut: number;
}
