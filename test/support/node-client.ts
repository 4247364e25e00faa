// A Node stand-in for the firmware's HttpClient.request, for tests that run
// the provider wire against the provider emulator in Node: every host name
// is sent to the emulator's port on 127.0.0.1 (as the board's --route does),
// TLS is validated against the given CA with the URL's host as the server
// name, and failures come back typed like the firmware client's.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ClientRequest, ClientResult, HttpClient } from '../../src/net/http/client.ts';

export function nodeClient(port: number, ca: string): Pick<HttpClient, 'request'> & { sent: ClientRequest[] } {
  const sent: ClientRequest[] = [];
  return {
    sent,
    request(req: ClientRequest): Promise<ClientResult> {
      sent.push(req);
      return new Promise((resolve) => {
        let url: URL;
        try {
          url = new URL(req.url);
        } catch {
          return resolve({ ok: false, error: 'bad-url', message: 'not a URL' });
        }
        const tls = url.protocol === 'https:';
        let done = false;
        const finish = (r: ClientResult): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          resolve(r);
        };
        const options = {
          host: '127.0.0.1',
          port,
          method: req.method,
          path: url.pathname + url.search,
          headers: { ...req.headers, host: url.host, connection: 'close' },
          ...(tls ? { servername: url.hostname, ca, rejectUnauthorized: true } : {}),
        };
        const r = (tls ? httpsRequest : httpRequest)(options, (res) => {
          const chunks: Buffer[] = [];
          const headers = new Map<string, string>();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
          // Streaming callers (onHead, onBody) as the firmware client calls them; false aborts.
          if (req.onHead && req.onHead(res.statusCode ?? 0, headers) === false) {
            finish({ ok: false, error: 'aborted', message: 'refused by the caller' });
            return void r.destroy();
          }
          res.on('data', (c: Buffer) => {
            if (!req.onBody) return void chunks.push(c);
            if (req.onBody(new Uint8Array(c)) === false) {
              finish({ ok: false, error: 'aborted', message: 'refused by the caller' });
              r.destroy();
            }
          });
          res.on('end', () => {
            finish({ ok: true, response: { status: res.statusCode ?? 0, headers, body: new Uint8Array(Buffer.concat(chunks)) } });
          });
          res.on('error', (e) => finish({ ok: false, error: 'protocol', message: e.message }));
        });
        const timer = setTimeout(() => {
          finish({ ok: false, error: 'timeout', message: `no complete answer within ${req.timeoutMs} ms` });
          r.destroy();
        }, req.timeoutMs ?? 30_000);
        r.on('error', (e: NodeJS.ErrnoException) => {
          const tlsError = /certificate|self.signed|SSL|TLS|issuer/i.test(`${e.code ?? ''} ${e.message}`);
          finish({ ok: false, error: tlsError ? 'tls' : e.code === 'ECONNREFUSED' ? 'connect' : 'protocol', message: `${e.code ?? ''} ${e.message}`.trim() });
        });
        if (req.body !== undefined) r.write(typeof req.body === 'string' ? req.body : Buffer.from(req.body));
        r.end();
      });
    },
  };
}
