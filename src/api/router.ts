// The router: each subsystem registers its routes here; the token gate runs
// before dispatch for every route not marked open. Unknown paths answer 401
// to a caller without the token, so the route list is not probeable.

import type { HttpApp } from '../net/http/server.ts';
import type { RequestHead } from '../net/http/parse.ts';
import type { HttpHandler, HttpRequest, HttpResponse } from '../net/http/types.ts';
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
}

export type Gate = (req: HttpRequest) => boolean;

/**
 * Answers a request before routing and the gate, or returns null to pass.
 * Only bootstrap flows use this (the setup network's token handout), each
 * under its own condition.
 */
export type Interceptor = (req: HttpRequest) => HttpResponse | null;

export const DEFAULT_BODY_LIMIT = 16 * 1024;
const UNKNOWN_BODY_LIMIT = 4 * 1024;

export class Router implements HttpApp {
  private routes: Route[] = [];
  private interceptors: Interceptor[] = [];

  constructor(private readonly gate: Gate) {}

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

  private allowed(route: Route | null, req: HttpRequest): boolean {
    return (route !== null && this.openTo(route)) || this.gate(req);
  }

  async handle(req: HttpRequest): Promise<HttpResponse> {
    for (const intercept of this.interceptors) {
      const early = intercept(req);
      if (early) return early;
    }
    const { route, pathKnown } = this.find(req.method, req.path);
    if (!this.allowed(route, req)) return errorResponse(401, 'unauthorized', 'A valid device access token is required.');
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
