// Runs ON XS (standalone): the firmware's HTTP server and router answering
// keep-alive requests over an in-memory socket, to measure the device-side
// cost of one request without the simulator's pipe. Prints JSON lines.
// Like boot(), it routes src/util/utf8.ts to the C hotspot when __native has
// it; `xsim --standalone http.js ts` keeps the TypeScript codec to compare.

import { Router } from '../../src/core/router.ts';
import type { Clock, Listener, Net, PendingSocket, Socket, Timer } from '../../src/hal/index.ts';
import { jsonResponse } from '../../src/net/http/errors.ts';
import { HttpServer } from '../../src/net/http/server.ts';
import { encode, useNativeUtf8 } from '../../src/util/utf8.ts';
import { hasNativeUtf8, utf8Native } from '../../modules/utf8/utf8.ts';

declare const __sim: { print(text: string): void; monoMs(): number; argv: string[] };
declare const __native: unknown;

const utf8C = typeof __native !== 'undefined' && hasNativeUtf8(__native) && __sim.argv[0] !== 'ts';
if (utf8C) useNativeUtf8(utf8Native(__native));

const clock: Clock = {
  monoMs: () => __sim.monoMs(),
  wallMs: () => 0,
  synced: () => false,
  setWall: () => {},
  setTimeout: (): Timer => ({ cancel() {} }),
  setInterval: (): Timer => ({ cancel() {} }),
};

let accept: ((s: Socket) => void) | null = null;
const net: Net = {
  listen(port, onAccept): Listener {
    accept = onAccept;
    return { port, close() {} };
  },
  connect(): PendingSocket {
    throw new Error('unused');
  },
  udp() {
    throw new Error('unused');
  },
  multicast() {
    throw new Error('unused');
  },
};

let received = 0;
const socket: Socket = {
  remote: 'bench',
  buffered: 0,
  onData: null,
  onDrain: null,
  onEnd: null,
  onClose: null,
  write(bytes) {
    received += bytes.length;
  },
  end() {},
  destroy() {},
};

const router = new Router((req) => req.headers.get('x-device-token') === '0123456789abcdef01234567');
for (let i = 0; i < 30; i++) router.add({ method: 'GET', path: `/api/route${i}`, handler: () => jsonResponse({ i }) });
const state = { version: 'v0.1.0', buildId: 'abc', board: 'panel-35', mode: 1, heap: { freeInternal: 180000, xsNow: 900000 }, files: { present: true, count: 0 }, wifi: { station: { state: 'connected', ip: '192.168.1.50' } } };
router.add({ method: 'GET', path: '/api/state', handler: () => jsonResponse(state) });
const server = new HttpServer(net, clock, router);
server.listen(80);
accept!(socket);

const request = encode('GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: bench\r\nAccept: */*\r\nX-Device-Token: 0123456789abcdef01234567\r\n\r\n');
const n = 2000;
let done = 0;
const t0 = __sim.monoMs();
const step = (): void => {
  socket.onData!(request);
  // The handler answers on a promise job; the next request follows it.
  void Promise.resolve().then(() => {
    done++;
    if (done < n) step();
    else __sim.print(JSON.stringify({ what: 'http-state', utf8: utf8C ? 'C' : 'TS', msPerRequest: (__sim.monoMs() - t0) / n, bytes: received / n }));
  });
};
step();
