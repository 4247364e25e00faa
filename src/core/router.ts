// The router: each subsystem registers its routes here; the token gate runs
// before dispatch for every route not marked open. Unknown paths answer 401
// to a caller without the token, so the route list is not probeable.

import type { Admission, HttpApp } from '../net/http/server.ts';
import type { RequestHead } from '../net/http/parse.ts';
import type { BodySink, HttpHandler, HttpRequest, HttpResponse } from '../net/http/types.ts';
import { errorResponse } from '../net/http/errors.ts';

/** Who may call a route: anyone, token holders, or anyone while a condition holds. */
export type Access = 'open' | 'token' | { openWhile: () => boolean };

export interface Route {
  method: string;
  path: string;
  /** Match every path under `path` (which then ends with '/'). */
  prefix?: boolean;
  access?: Access;
  /** Largest body accepted (default 16 KB). */
  bodyLimit?: number;
  handler: HttpHandler;
  /**
   * Takes the body as it arrives (an upload streamed to the card): the HTTP
   * server uses it for a request whose head passes the gate; a body read
   * whole (a form carrying the token, the cloud tunnel) goes to handler.
   */
  upload?: (head: HttpRequest) => BodySink;
}

/**
 * The token gate. presented(), when given, says whether a head offers a
 * token at all (the header): then the body is never consulted, so a request
 * whose head offers a wrong one is refused before its body is read.
 */
export type Gate = ((req: HttpRequest) => boolean) & { presented?(headers: Map<string, string>): boolean };

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const FORM_TYPE = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;
const NO_BODY = new Uint8Array(0);
const UNAUTHORIZED = 'A valid device access token is required.';

/**
 * Answers a request before routing and the gate, or returns null to pass.
 * Only bootstrap flows use this (the setup network's token handout), each
 * under its own condition.
 */
export type Interceptor = (req: HttpRequest) => HttpResponse | null;

export const DEFAULT_BODY_LIMIT = 16 * 1024;
const UNKNOWN_BODY_LIMIT = 4 * 1024;

/** The gate before one is given: no token passes. */
const CLOSED: Gate = () => false;

export class Router implements HttpApp {
  private routes: Route[] = [];
  private interceptors: Interceptor[] = [];

  private gate: Gate;
  private guarded = false;

  /** Until a gate is given (the auth subsystem's, when it mounts), no request passes that a route does not open. */
  constructor(gate: Gate = CLOSED) {
    this.gate = gate;
  }

  /** The token gate, given once by the subsystem that owns the token (src/auth/). */
  guard(gate: Gate): void {
    if (this.guarded) throw new Error('the router\'s gate is given twice');
    this.gate = gate;
    this.guarded = true;
  }

  add(route: Route): void {
    if (this.routes.some((r) => r.method === route.method && r.path === route.path && !!r.prefix === !!route.prefix))
      throw new Error(`route ${route.method} ${route.path} registered twice`);
    this.routes.push(route);
  }

  intercept(interceptor: Interceptor): void {
    this.interceptors.push(interceptor);
  }

  /** Whether a route exists for this path (any method): bootstrap flows leave known routes alone. */
  knows(path: string): boolean {
    return this.matches(path).length > 0;
  }

  private matches(path: string): Route[] {
    return this.routes.filter((r) => (r.prefix ? path.startsWith(r.path) : r.path === path));
  }

  private find(method: string, path: string): { route: Route | null; pathKnown: boolean } {
    const candidates = this.matches(path);
    const route = candidates.find((r) => r.method === method || (method === 'HEAD' && r.method === 'GET')) ?? null;
    return { route, pathKnown: candidates.length > 0 };
  }

  bodyLimit(head: RequestHead): number {
    const { route } = this.find(head.method, head.path);
    return route ? (route.bodyLimit ?? DEFAULT_BODY_LIMIT) : UNKNOWN_BODY_LIMIT;
  }

  /**
   * The sink of a streamed route for a request whose head alone passes the
   * gate (and no bootstrap interceptor answers it); otherwise null, and the
   * body is read whole and handled as any other.
   */
  sink(head: RequestHead): BodySink | null {
    const { route } = this.find(head.method, head.path);
    if (!route?.upload) return null;
    const bare: HttpRequest = { method: head.method, path: head.path, query: head.query, headers: head.headers, body: NO_BODY, remote: '' };
    for (const intercept of this.interceptors) if (intercept(bare)) return null;
    return this.allowed(route, bare) ? route.upload(bare) : null;
  }

  /**
   * Judges a request from its head alone, for the HTTP server's connection
   * policy: the valid token in the head (trusted), a route open to anyone (or
   * a bootstrap interceptor that answers it), a form body that may carry the
   * token, or a request the gate will refuse whatever its body says (then it
   * is refused at once and its body is never read). The answer never differs
   * from what handle() would give: this only decides it sooner.
   */
  admit(head: RequestHead, hasBody: boolean): Admission {
    const bare: HttpRequest = { method: head.method, path: head.path, query: head.query, headers: head.headers, body: NO_BODY, remote: '' };
    if (this.gate(bare)) return { kind: 'token' };
    const { route } = this.find(head.method, head.path);
    if (route !== null && this.openTo(route)) return { kind: 'open' };
    for (const intercept of this.interceptors) if (intercept(bare)) return { kind: 'open' };
    if (hasBody && !this.gate.presented?.(head.headers) && FORM_TYPE.test(head.headers.get('content-type') ?? '')) return { kind: 'form' };
    return { kind: 'refuse', response: errorResponse(401, 'unauthorized', UNAUTHORIZED) };
  }

  private allowed(route: Route | null, req: HttpRequest): boolean {
    return (route !== null && this.openTo(route)) || this.gate(req);
  }

  async handle(req: HttpRequest): Promise<HttpResponse> {
    for (const intercept of this.interceptors) {
      const early = intercept(req);
      if (early) return early;
    }
    const { route, pathKnown } = this.find(req.method, req.path);
    if (!this.allowed(route, req)) return errorResponse(401, 'unauthorized', UNAUTHORIZED);
    if (!route) {
      if (pathKnown) return errorResponse(405, 'method-not-allowed', `${req.method} is not supported on ${req.path}.`);
      return errorResponse(404, 'not-found', `No such route: ${req.path}.`);
    }
    return route.handler(req);
  }

  private openTo(route: Route): boolean {
    const access = route.access ?? 'token';
    return access === 'open' || (access !== 'token' && access.openWhile());
  }

  /** Registered routes, for documentation and the gate test. */
  list(): ReadonlyArray<Readonly<Route>> {
    return this.routes;
  }
}
