// A fetch for the official SDK clients (openai's `fetch` option, Mistral's
// HTTPClient fetcher) that sends every host name to the provider emulator's
// port on 127.0.0.1, as the board's --route does for the firmware: TLS is
// validated against the given CA with the URL's host as the server name, and
// the Host header is the URL's, so the emulator answers as that service.
// The answer's body streams as it arrives (an SDK's streaming client reads
// each event when the emulator sends it, not at the end).

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export function routedFetch(port: number, ca: string): typeof fetch {
  return async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : Buffer.from(await req.arrayBuffer());
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    headers['host'] = url.host;
    headers['connection'] = 'close';
    const tls = url.protocol === 'https:';
    return new Promise<Response>((resolve, reject) => {
      const options = { host: '127.0.0.1', port, method: req.method, path: url.pathname + url.search, headers, ...(tls ? { servername: url.hostname, ca, rejectUnauthorized: true } : {}) };
      const r = (tls ? httpsRequest : httpRequest)(options, (res) => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        const status = res.statusCode ?? 0;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            res.on('data', (c: Buffer) => controller.enqueue(new Uint8Array(c)));
            res.on('end', () => controller.close());
            // A connection dropped mid-answer is an error of the body, as fetch reports it.
            res.on('aborted', () => controller.error(new TypeError('terminated')));
            res.on('error', (e) => controller.error(e));
          },
          cancel() {
            res.destroy();
          },
        });
        resolve(new Response(status === 204 ? null : body, { status, headers: h }));
      });
      r.on('error', reject);
      if (body) r.write(body);
      r.end();
    });
  };
}
