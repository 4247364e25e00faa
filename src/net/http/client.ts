// The outbound HTTP/1.1 client over HAL sockets: connections kept alive and
// reused per origin (pool.ts: bounded, closed when idle; a request that finds
// its kept-alive connection closed under it is sent again once on a fresh one
// when that is safe: an idempotent method, or a caller's idempotent POST), the
// request serialized into one buffer and written once (exchange.ts), TLS
// under the device's tlsVerify policy and CA bundle, deadlines (the whole
// exchange, and optionally the silence between bytes of the answer), a body
// cap, and an optional streaming body. A large request body (a voice
// recording read from the card) comes from a BodySource instead: its length
// is known up front (Content-Length), and it is pulled a chunk at a time
// while the socket's queue is below SEND_HIGH_WATER, resuming on onDrain,
// so the XS heap holds one chunk of it at a time. Failures are typed results,
// so callers can tell a timeout from a refused connection.

import type { Clock, Net, PendingSocket } from '../../hal/index.ts';
import { encode } from '../../util/utf8.ts';
import { parseUrl } from '../url.ts';
import { replaceEvery } from '../../util/replace.ts';
import { Exchange, type ExchangeEnd } from './exchange.ts';
import { ConnectionPool } from './pool.ts';
import type { ClientRequest, ClientResult, TlsPolicy } from './client-types.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAK = /[\r\n]/;
const IPV6_BRACKETS = /^\[|\]$/;

export type { BodySource, ClientErrorKind, ClientRequest, ClientResponse, ClientResult, TlsPolicy } from './client-types.ts';

const DEFAULT_TIMEOUT = 30_000;
/** Methods RFC 9110 calls idempotent: sent again on a fresh connection when a kept-alive one was found closed. */
const IDEMPOTENT = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'];
export { SEND_HIGH_WATER } from './exchange.ts';

export class HttpClient {
  /** The kept-alive connections (stats: connections opened, reused, retried). */
  readonly pool: ConnectionPool;

  constructor(
    private readonly net: Net,
    private readonly clock: Clock,
    private readonly tls: TlsPolicy,
    /** The User-Agent the device sends. */
    private readonly agent = 'desk-assistant',
    pool?: ConnectionPool,
  ) {
    this.pool = pool ?? new ConnectionPool(clock);
  }

  request(req: ClientRequest): Promise<ClientResult> {
    const parsed = parseUrl(req.url);
    if (!parsed.ok) return Promise.resolve({ ok: false, error: 'bad-url', message: parsed.error });
    const url = parsed.url;
    const body = req.body === undefined ? new Uint8Array(0) : typeof req.body === 'string' ? encode(req.body) : req.body;
    if (req.bodySource && req.body !== undefined) return Promise.resolve({ ok: false, error: 'bad-url', message: 'a request has body or bodySource, not both' });
    const length = req.bodySource ? req.bodySource.length : body.length;
    const keepAlive = req.keepAlive !== false;
    // HTTP/1.1 keeps a connection by default: only a request that will not reuse it says close.
    const headers: Record<string, string> = { Host: url.authority, 'User-Agent': this.agent, ...(keepAlive ? {} : { Connection: 'close' }), ...req.headers };
    if (length || !['GET', 'HEAD', 'DELETE'].includes(req.method)) headers['Content-Length'] = String(length);
    let head = `${req.method} ${url.target} HTTP/1.1\r\n`;
    for (const [k, v] of Object.entries(headers)) {
      if (LINE_BREAK.test(k + v)) return Promise.resolve({ ok: false, error: 'bad-url', message: `header ${k} contains a line break` });
      head += `${k}: ${v}\r\n`;
    }
    const headBytes = encode(head + '\r\n');
    const wire = new Uint8Array(headBytes.length + body.length);
    wire.set(headBytes);
    wire.set(body, headBytes.length);
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT;
    const host = replaceEvery(url.host, IPV6_BRACKETS, '');
    const verify = req.alwaysVerify === true || this.tls.verify();
    const tls = url.scheme === 'https' ? { serverName: host, verify, caBundle: this.tls.caBundle() } : undefined;
    const connect = (): PendingSocket => {
      this.pool.stats.opened++;
      return this.net.connect({ host, port: url.port, ...(tls ? { tls } : {}), timeoutMs: Math.min(req.connectTimeoutMs ?? 10_000, timeoutMs) });
    };
    const key = `${url.scheme}://${host}:${url.port}${tls ? (verify ? '|v' : '|n') : ''}`;
    return this.send(req, wire, key, connect, keepAlive, timeoutMs);
  }

  /** Opens no connection; closes the idle ones (a Wi-Fi change, shutdown). */
  closeIdle(): void {
    this.pool.closeAll();
  }

  private async send(req: ClientRequest, wire: Uint8Array, key: string, connect: () => PendingSocket, keepAlive: boolean, timeoutMs: number): Promise<ClientResult> {
    const t0 = this.clock.monoMs();
    const pooled = keepAlive ? this.pool.take(key) : null;
    if (pooled) this.pool.stats.reused++;
    const end = await this.once(req, wire, pooled ?? connect(), pooled !== null, timeoutMs, keepAlive ? key : null);
    if (!('stale' in end)) return end;
    // The server had closed the kept-alive connection: nothing of the request was answered.
    if (!this.retryable(req)) return { ok: false, error: 'connect', message: `the kept-alive connection was closed before an answer (${end.message}); not sent again: the request is not idempotent` };
    this.pool.stats.retried++;
    req.bodySource?.rewind?.();
    const left = Math.max(1, timeoutMs - (this.clock.monoMs() - t0));
    const again = await this.once(req, wire, connect(), false, left, keepAlive ? key : null);
    return 'stale' in again ? { ok: false, error: 'connect', message: again.message } : again;
  }

  /**
   * Whether a request may be sent again after a kept-alive connection closed under it: an idempotent
   * method, or one its caller marks idempotent (a provider round, speech, a transcription: none
   * changes anything on the server), and a body that can be sent again (a pulled body only if it rewinds).
   */
  private retryable(req: ClientRequest): boolean {
    if (!IDEMPOTENT.includes(req.method) && req.idempotent !== true) return false;
    return !req.bodySource || typeof req.bodySource.rewind === 'function';
  }

  private once(req: ClientRequest, wire: Uint8Array, socket: PendingSocket, reused: boolean, timeoutMs: number, key: string | null): Promise<ExchangeEnd> {
    return new Promise<ExchangeEnd>((resolve) => {
      new Exchange(this.clock, req, wire, timeoutMs, reused, resolve, key === null ? null : (s) => this.pool.give(key, s)).start(socket);
    });
  }
}
