// The control socket for tests and tools: <device>/control.sock, a unix
// socket speaking JSON lines. A request {id, op, ...args} gets one response
// {id, ok:true, ...} or {id, ok:false, code, message}. The ops are listed in
// CONTROL_OPS below (and in docs/sim-protocol.md).

import { existsSync, unlinkSync, writeFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import type { ResetReason } from '../../../src/hal/index.ts';
import type { Board } from './board.ts';
import { controlSocketPath } from './control-client.ts';
import type { WifiNetwork } from './device.ts';
import { BoardError, errorText, fail } from './errors.ts';
import type { Json } from './service.ts';
import { int, str } from './service.ts';
import { touchEvent } from './touch.ts';

type ControlOp = (board: Board, args: Json) => Json | Promise<Json>;

const WAIT_MAX_MS = 10 * 60 * 1000;

export const CONTROL_OPS: Record<string, ControlOp> = {
  status: (b) => b.status(),
  reboot: async (b, args) => {
    const reason = (args['reason'] ?? 'external') as ResetReason;
    await b.reset(reason, 'reset');
    return {};
  },
  wake: async (b) => {
    if (b.state !== 'sleeping') fail('EINVAL', 'the device is not in deep sleep');
    await b.reset('deep-sleep', 'wake');
    return {};
  },
  'power.cut': async (b) => {
    await b.reset('power-on', 'power-cut');
    return {};
  },
  'runtime.kill': (b, args) => {
    const signal = (args['signal'] ?? 'SIGKILL') as NodeJS.Signals;
    if (typeof signal !== 'string' || !/^SIG[A-Z0-9]+$/.test(signal)) fail('EINVAL', 'signal must be a name like SIGKILL');
    if (!b.killRuntime(signal)) fail('EINVAL', 'the runtime is not running');
    return {};
  },
  'sd.remove': (b) => {
    b.sd.remove();
    return { sd: b.sd.status() };
  },
  'sd.insert': (b) => {
    b.sd.insert();
    return { sd: b.sd.status() };
  },
  'sd.removeAfter': (b, args) => {
    if (args['off'] === true) {
      b.sd.removeAfter(null);
      return { sd: b.sd.status() };
    }
    const count = (k: string): number | null => (args[k] === undefined || args[k] === null ? null : int(args, k, 0));
    b.sd.removeAfter({ match: str(args, 'match'), writes: count('writes'), bytes: count('bytes') });
    return { sd: b.sd.status() };
  },
  'sd.size': (b, args) => {
    b.sd.setSize(int(args, 'bytes', 0));
    return { sd: b.sd.status() };
  },
  'battery.set': (b, args) => ({ battery: b.battery.set(args) }),
  touch: (b, args) => {
    const event = touchEvent(b.descriptor(), args['kind'], args['x'], args['y']);
    if (!b.emit('touch', { event })) fail('EINVAL', 'the runtime is not running');
    return { event };
  },
  button: (b, args) => {
    const name = str(args, 'name');
    if (!b.descriptor().buttons.some((x) => x.name === name)) fail('EINVAL', `${b.descriptor().type} has no button '${name}'`);
    const down = args['down'] === true;
    if (!b.emit('button', { name, down })) fail('EINVAL', 'the runtime is not running');
    return { name, down };
  },
  'display.snapshot': (b, args) => {
    const p = args['path'] === undefined ? b.device.path('display.png') : str(args, 'path');
    const path = b.display.snapshot(isAbsolute(p) ? p : b.device.path(p));
    return { path, width: b.display.width, height: b.display.height, sha256: b.display.sha256() };
  },
  'ring.state': (b) => b.ring.state(),
  'clock.warp': (b, args) => {
    const ms = args['ms'];
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) fail('EINVAL', 'ms must be a number >= 0');
    if (!b.warp(ms)) fail('EINVAL', 'the runtime is not running');
    return {};
  },
  'time.server': (b, args) => b.time.set(args),
  'ap.dns': (b) => {
    const net = b.setupNetwork();
    if (!net['up']) fail('ENOENT', 'the setup network is down: no phone can reach the device on it');
    if (net['dnsPort'] === null) fail('ENOENT', 'nothing answers DNS (port 53) on the setup network');
    return { address: net['address'], port: net['dnsPort'] };
  },
  'wifi.networks': (b, args) => {
    if (!Array.isArray(args['list'])) fail('EINVAL', 'list must be an array of {ssid, passphrase, rssi?, channel?}');
    b.radio.setNetworks(args['list'] as WifiNetwork[]);
    return { networks: b.device.config.wifi.networks };
  },
  'wifi.linkDown': (b) => ({ dropped: b.radio.linkDown() }),
  'mdns.resolve': async (b, args) => {
    const found = b.radio.online() ? await b.lan.resolve(str(args, 'hostname')) : null;
    if (!found) fail('ENOENT', `no answer for ${str(args, 'hostname')} on the home network`);
    return found;
  },
  'net.route': (b, args) => {
    const host = str(args, 'host');
    const port = int(args, 'port', 1, 65535);
    const to = str(args, 'to');
    const m = /^([^:]+):(\d+)$/.exec(to);
    if (!m) fail('EINVAL', "to must be 'host:port'");
    b.tcp.addRoute(host, port, { host: m[1]!, port: Number(m[2]) });
    return { routes: b.tcp.status()['routes'] as Json };
  },
  'heap.pressure': (b, args) => {
    b.system.setPressure(int(args, 'bytes', 0));
    return { heap: b.system.heap() };
  },
  'mic.feed': (b, args) => {
    const wav = args['wav'] === null || args['wav'] === undefined ? null : resolve(str(args, 'wav'));
    try {
      b.mic.feed(wav);
    } catch (e) {
      fail('EINVAL', errorText(e));
    }
    return { wav };
  },
  'serial.input': (b, args) => {
    const bytes = args['hex'] !== undefined ? Buffer.from(str(args, 'hex'), 'hex') : Buffer.from(str(args, 'text'), 'utf8');
    b.serialInput(bytes);
    return { bytes: bytes.length };
  },
  'ble.connect': (b, args) => b.ble.control('ble.connect', args),
  'ble.pair': (b, args) => b.ble.control('ble.pair', args),
  'ble.read': (b, args) => b.ble.control('ble.read', args),
  'ble.write': (b, args) => b.ble.control('ble.write', args),
  'ble.disconnect': (b, args) => b.ble.control('ble.disconnect', args),
  'ble.notifications': (b, args) => b.ble.control('ble.notifications', args),
  wait: (b, args) => {
    const kind = args['for'];
    if (kind !== 'ready' && kind !== 'boot' && kind !== 'exit' && kind !== 'log') fail('EINVAL', "for must be 'ready', 'boot', 'exit' or 'log'");
    const timeoutMs = args['timeoutMs'] === undefined ? 30_000 : int(args, 'timeoutMs', 0, WAIT_MAX_MS);
    const after = args['after'] === undefined ? undefined : int(args, 'after', 0);
    const match = args['match'] === undefined ? undefined : str(args, 'match');
    return b.wait(kind, timeoutMs, after, match);
  },
};

export class ControlServer {
  private server: Server | null = null;
  private clients = new Set<Socket>();
  readonly path: string;
  private pointer: string | null;

  constructor(private readonly board: Board) {
    const p = controlSocketPath(board.device.dir);
    this.path = p.path;
    this.pointer = p.pointer;
  }

  /** Listens; refuses when another board answers on the socket (the device folder is in use). */
  async start(): Promise<void> {
    if (existsSync(this.path)) {
      const alive = await new Promise<boolean>((res) => {
        const s = connect(this.path);
        s.once('connect', () => {
          s.destroy();
          res(true);
        });
        s.once('error', () => res(false));
      });
      if (alive) throw new Error(`another board is running on ${this.board.device.dir} (its control socket ${this.path} answers)`);
      unlinkSync(this.path);
    }
    if (this.pointer) writeFileSync(this.pointer, this.path + '\n');
    const server = createServer((socket) => this.serve(socket));
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(this.path, () => {
        server.off('error', rej);
        res();
      });
    });
    this.server = server;
  }

  private serve(socket: Socket): void {
    this.clients.add(socket);
    let buf = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) void this.handle(socket, line);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => this.clients.delete(socket));
  }

  private async handle(socket: Socket, line: string): Promise<void> {
    let id: unknown = null;
    let out: Json;
    try {
      const req = JSON.parse(line) as Json;
      if (typeof req !== 'object' || req === null) throw new BoardError('EINVAL', 'a request is a JSON object');
      id = req['id'] ?? null;
      const op = req['op'];
      const fn = typeof op === 'string' ? CONTROL_OPS[op] : undefined;
      if (!fn) throw new BoardError('ENOTSUP', `unknown control op '${String(op)}' (known: ${Object.keys(CONTROL_OPS).join(', ')})`);
      out = { id, ok: true, ...(await fn(this.board, req)) };
    } catch (e) {
      const err = e instanceof BoardError ? e : new BoardError(e instanceof TypeError || e instanceof SyntaxError ? 'EINVAL' : 'EIO', errorText(e));
      out = { id, ok: false, code: err.code, message: err.message };
    }
    if (!socket.destroyed) socket.write(JSON.stringify(out) + '\n');
  }

  close(): void {
    for (const c of this.clients) c.destroy();
    this.server?.close();
    try {
      unlinkSync(this.path);
    } catch {
      // gone
    }
    if (this.pointer) rmSync(this.pointer, { force: true });
  }
}
