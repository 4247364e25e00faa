// Raw HTTP over the in-memory network for unit tests: send bytes to the
// firmware's listener and parse what comes back.

import { flushJobs } from './clock.ts';
import type { MemNet, MemSocket } from './memnet.ts';

export interface ParsedResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  raw: string;
}

/** Parses every complete response in text (keep-alive streams hold several). */
export function parseResponses(text: string): ParsedResponse[] {
  const out: ParsedResponse[] = [];
  let rest = text;
  while (rest.length) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(statusLine!.split(' ')[1]);
    const headers = new Map<string, string>();
    for (const l of lines) {
      const i = l.indexOf(':');
      headers.set(l.slice(0, i).toLowerCase(), l.slice(i + 1).trim());
    }
    let body = '';
    let consumed = end + 4;
    if (headers.has('content-length')) {
      const n = Number(headers.get('content-length'));
      const bytes = new TextEncoder().encode(rest.slice(consumed));
      body = new TextDecoder().decode(bytes.slice(0, n));
      consumed += body.length;
    } else if (headers.get('transfer-encoding') === 'chunked') {
      let at = consumed;
      for (;;) {
        const lineEnd = rest.indexOf('\r\n', at);
        if (lineEnd < 0) break;
        const size = parseInt(rest.slice(at, lineEnd), 16);
        at = lineEnd + 2;
        if (size === 0) {
          at += 2;
          break;
        }
        body += rest.slice(at, at + size);
        at += size + 2;
      }
      consumed = at;
    }
    if (statusLine!.startsWith('HTTP/1.1 100')) {
      rest = rest.slice(consumed);
      continue;
    }
    out.push({ status, headers, body, raw: rest.slice(0, consumed) });
    rest = rest.slice(consumed);
  }
  return out;
}

/**
 * Sends raw bytes and waits (in promise-job rounds, no wall-clock time) until
 * the connection closes or `responses` complete responses have arrived.
 */
export async function exchange(
  net: MemNet,
  port: number,
  raw: string | Uint8Array,
  responses = Infinity,
): Promise<{ socket: MemSocket; responses: ParsedResponse[] }> {
  const socket = net.client(port);
  socket.send(raw);
  for (let round = 0; round < 200; round++) {
    await flushJobs();
    if (socket.closed || parseResponses(socket.text()).length >= responses) break;
  }
  return { socket, responses: parseResponses(socket.text()) };
}

/** One request, one response (Connection: close). */
export async function request(
  net: MemNet,
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<ParsedResponse> {
  const body = options.body ?? '';
  const headers: Record<string, string> = { Host: 'device', Connection: 'close', ...options.headers };
  if (body) headers['Content-Length'] = String(new TextEncoder().encode(body).length);
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  const { responses } = await exchange(net, port, head + body);
  const res = responses[0];
  if (!res) throw new Error(`no response to ${method} ${path}`);
  return res;
}
