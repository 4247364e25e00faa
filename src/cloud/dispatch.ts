// The tunnel path (spec, Authentication 8): what a request arriving through
// the cloud relay goes through before and after the device's own router.
//
//   1. The tunnel guard canonicalizes the target (percent-decoded until
//      stable, query dropped, slashes and dot segments folded, case folded)
//      and refuses the routes that exist to mint or hand out credentials
//      with 403, whatever the form (TUNNEL_DENIED).
//   2. The request is replayed on loopback with the device's own token
//      injected: it is dispatched straight into the router (the same gate,
//      interceptors and routes as the HTTP server), under its canonical
//      path, so what the guard judged is exactly what runs. Any token the
//      relay sent is dropped first, and the request is marked as tunnelled
//      (HttpRequest.via), so a route that mints a credential in one of its
//      actions refuses it. Dispatching into the router rather than opening
//      a socket to port 80 costs no connection slot of the LAN server (8 at
//      most) and needs no loopback interface on the device.
//   3. The answer passes one screen (src/auth/secret-screen.ts) for every
//      live secret the device knows (src/auth/secrets.ts: the token, sign-in
//      codes, launch keys, apPass, registered credentials) in every form
//      the device writes one in. A JSON body first loses every token and
//      apPass value at any depth (the spec's stripping). The status line,
//      every header and the whole body are screened; an answer carrying a
//      secret is withheld (403). A streamed body (file downloads, the screen
//      frame) of at most WHOLE_MAX bytes is read whole and screened alike; a
//      longer one is screened as it goes, with a hold-back so no part of a
//      secret leaves, and one found on the way ends the stream (the relay
//      resets it). JSON bodies are buffered up to JSON_MAX bytes to be
//      stripped; a larger one is withheld (502).

import type { Router } from '../core/router.ts';
import { SecretScreen, stripResponseBody, TOKEN_HEADER, tunnelAllows, type LiveSecret } from '../auth/index.ts';
import { errorResponse } from '../net/http/errors.ts';
import type { RequestHead } from '../net/http/parse.ts';
import { STATUS_TEXT, type BodyWriter, type HttpRequest, type HttpResponse } from '../net/http/types.ts';
import { decode, encode } from '../util/utf8.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const JSON_TYPE = /^application\/json\b/i;
const QUERY_OR_FRAGMENT = /[?#]/;

/** A tunnelled request body is at most this (and at most the route's own limit). */
export const TUNNEL_BODY_MAX = 64 * 1024;
/** JSON answers are buffered up to this to strip them. */
export const JSON_MAX = 256 * 1024;
/** A streamed answer of at most this many bytes (by its length) is screened whole, so a secret in it gets a clean 403. */
export const WHOLE_MAX = 32 * 1024;

/** Request headers never taken from the relay. */
const DROPPED = ['x-device-token', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'te', 'upgrade', 'trailer', 'proxy-authorization', 'proxy-connection'];

export interface TunnelDeps {
  router: Pick<Router, 'handle' | 'bodyLimit'>;
  /** The device's own access token (injected on the replay). */
  token(): string;
  /** Every live secret the answer is screened for (ctx.secrets.live()). */
  secrets(): LiveSecret[];
}

export type Admission = { ok: true; method: string; path: string; query: string; limit: number } | { ok: false; response: HttpResponse };

export interface TunnelStats {
  served: number;
  denied: number;
  withheld: number;
}

export class TunnelDispatcher {
  readonly stats: TunnelStats = { served: 0, denied: 0, withheld: 0 };
  /** The screen for the live secrets last seen: built again only when they change (a code minted or expired). */
  private cached: { key: string; screen: SecretScreen } | null = null;

  constructor(private readonly deps: TunnelDeps) {}

  /** Step 1: the guard, before any body is read. */
  admit(method: string, target: string): Admission {
    const verdict = tunnelAllows(target);
    if (!verdict.allowed) {
      this.stats.denied++;
      return { ok: false, response: errorResponse(403, 'forbidden', `Not available through the cloud relay (${verdict.reason}).`) };
    }
    const cut = target.search(QUERY_OR_FRAGMENT);
    let query = '';
    if (cut >= 0 && target[cut] === '?') {
      const rest = target.slice(cut + 1);
      const hash = rest.indexOf('#');
      query = hash >= 0 ? rest.slice(0, hash) : rest;
    }
    const head: RequestHead = { method, path: verdict.path, query, version: '1.1', headers: new Map() };
    return { ok: true, method, path: verdict.path, query, limit: Math.min(TUNNEL_BODY_MAX, this.deps.router.bodyLimit(head)) };
  }

  /** Steps 2 and 3 for an admitted request. */
  async run(a: Extract<Admission, { ok: true }>, headers: ReadonlyArray<readonly [string, string]>, body: Uint8Array): Promise<HttpResponse> {
    const map = new Map<string, string>();
    for (const [k, v] of headers) {
      const name = k.toLowerCase();
      if (DROPPED.includes(name)) continue;
      map.set(name, map.has(name) ? `${map.get(name)}, ${v}` : v);
    }
    map.set(TOKEN_HEADER, this.deps.token());
    const req: HttpRequest = { method: a.method, path: a.path, query: a.query, headers: map, body, remote: 'cloud-relay', via: 'tunnel' };
    let res: HttpResponse;
    try {
      res = await this.deps.router.handle(req);
    } catch {
      res = errorResponse(500, 'internal', 'The device failed to answer.');
    }
    this.stats.served++;
    return this.screen(res, a.method === 'HEAD');
  }

  /** Admission and replay in one call (CLOUDLOOP's local path, tests). */
  async dispatch(method: string, target: string, headers: ReadonlyArray<readonly [string, string]> = [], body: Uint8Array = new Uint8Array(0)): Promise<HttpResponse> {
    const a = this.admit(method, target);
    if (!a.ok) return a.response;
    if (body.length > a.limit) return errorResponse(413, 'too-large', `The request body is over ${a.limit} bytes.`);
    return this.run(a, headers, body);
  }

  private withheld(status: number, why: string): HttpResponse {
    this.stats.withheld++;
    return errorResponse(status, status === 403 ? 'forbidden' : 'withheld', why);
  }

  private async screen(res: HttpResponse, head: boolean): Promise<HttpResponse> {
    let screen: SecretScreen;
    try {
      screen = this.screenFor(this.deps.secrets());
    } catch {
      // An owner of a secret could not say what is live: nothing we can vouch for leaves.
      return this.withheld(403, 'The device could not check this answer for credentials, so it is not sent through the cloud relay.');
    }
    const headers = { ...(res.headers ?? {}) };
    const statusLine = `HTTP/1.1 ${res.status} ${STATUS_TEXT[res.status] ?? ''}`;
    if (screen.findText(statusLine) || Object.entries(headers).some(([k, v]) => screen.findText(`${k}: ${v}`) !== null)) return this.carried();
    if (head) return { status: res.status, headers, body: new Uint8Array(0) };
    const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    if (type && JSON_TYPE.test(type)) {
      let bytes: Uint8Array | null;
      if (res.stream) bytes = await collect(res.stream, JSON_MAX);
      else bytes = typeof res.body === 'string' ? encode(res.body) : (res.body ?? new Uint8Array(0));
      if (bytes === null || bytes.length > JSON_MAX) return this.withheld(502, `The answer is a JSON document over ${JSON_MAX} bytes, too large to check for the cloud relay.`);
      const body = encode(stripResponseBody(type, decode(bytes)));
      return screen.find(body) ? this.carried() : { status: res.status, headers, body };
    }
    if (!res.stream || (res.stream.length !== undefined && res.stream.length <= WHOLE_MAX)) {
      const body = res.stream ? await collect(res.stream, WHOLE_MAX) : typeof res.body === 'string' ? encode(res.body) : (res.body ?? new Uint8Array(0));
      if (body === null) return this.withheld(502, 'The answer could not be read whole to check it for the cloud relay.');
      return screen.find(body) ? this.carried() : { status: res.status, headers, body };
    }
    return { status: res.status, headers, stream: this.screenedStream(res.stream, screen) };
  }

  private screenFor(secrets: LiveSecret[]): SecretScreen {
    const key = secrets.map((s) => `${s.kind}:${s.value}`).join('\n');
    if (this.cached?.key !== key) this.cached = { key, screen: new SecretScreen(secrets) };
    return this.cached.screen;
  }

  private carried(): HttpResponse {
    return this.withheld(403, 'The answer carried a credential and is not sent through the cloud relay.');
  }

  /** A streamed body passed through the screen piece by piece; a secret found ends it (aborted). */
  private screenedStream(source: NonNullable<HttpResponse['stream']>, screen: SecretScreen): NonNullable<HttpResponse['stream']> {
    const stats = this.stats;
    return {
      ...(source.length !== undefined ? { length: source.length } : {}),
      start(out: BodyWriter) {
        const pieces = screen.stream();
        let stopped = false;
        const stop = (): boolean => {
          stopped = true;
          stats.withheld++;
          out.abort('the answer carried a credential; the rest is not sent through the cloud relay');
          return true;
        };
        const inner: BodyWriter = {
          onDrain: null,
          write(chunk) {
            if (stopped) return true;
            const step = pieces.push(typeof chunk === 'string' ? encode(chunk) : chunk);
            if (!step.ok) return stop();
            return step.pass.length ? out.write(step.pass) : true;
          },
          end() {
            if (stopped) return;
            const rest = pieces.end();
            if (rest.length) out.write(rest);
            out.end();
          },
          abort(reason) {
            if (stopped) return;
            stopped = true;
            out.abort(reason);
          },
        };
        // The consumer's drain reaches the producer, which set its wait on inner.
        out.onDrain = () => inner.onDrain?.();
        source.start(inner);
      },
    };
  }
}

/** Reads a streamed body into one buffer (null past max or when the stream aborts). */
function collect(stream: NonNullable<HttpResponse['stream']>, max: number): Promise<Uint8Array | null> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    const finish = (v: Uint8Array | null): void => {
      if (done) return;
      done = true;
      resolve(v);
    };
    const writer: BodyWriter = {
      onDrain: null,
      write(chunk) {
        if (done) return true;
        const b = typeof chunk === 'string' ? encode(chunk) : chunk.slice();
        size += b.length;
        if (size > max) finish(null);
        else chunks.push(b);
        return true;
      },
      end() {
        const out = new Uint8Array(size);
        let at = 0;
        for (const c of chunks) {
          out.set(c, at);
          at += c.length;
        }
        finish(out);
      },
      abort() {
        finish(null);
      },
    };
    try {
      stream.start(writer);
    } catch {
      finish(null);
    }
  });
}
