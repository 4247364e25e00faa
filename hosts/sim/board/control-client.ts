// A tiny client for the board's control socket (tests and tools):
//   const ctl = await connectControl('.sim/default');
//   await ctl.request('wait', { for: 'ready', timeoutMs: 5000 });
//   const status = await ctl.request('status');
// request() resolves with the response's fields, or rejects with a
// ControlError carrying the board's error code.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export type ControlJson = Record<string, unknown>;

/** Unix socket paths are limited (108 bytes on Linux); longer ones live in the temp folder. */
const SUN_PATH_MAX = 100;

export function controlSocketPath(deviceDir: string): { path: string; pointer: string | null } {
  const direct = join(resolve(deviceDir), 'control.sock');
  if (Buffer.byteLength(direct) <= SUN_PATH_MAX) return { path: direct, pointer: null };
  const hash = createHash('sha256').update(resolve(deviceDir)).digest('hex').slice(0, 16);
  return { path: join(tmpdir(), `desk-sim-${hash}.sock`), pointer: join(resolve(deviceDir), 'control.sock.path') };
}

export class ControlError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ControlClient {
  request<T extends ControlJson = ControlJson>(op: string, args?: ControlJson): Promise<T>;
  close(): void;
}

function tryConnect(path: string): Promise<Socket> {
  return new Promise((res, rej) => {
    const s = connect(path);
    s.once('connect', () => {
      s.removeAllListeners('error');
      res(s);
    });
    s.once('error', rej);
  });
}

/** Connects, retrying for up to waitMs while the board starts. */
export async function connectControl(deviceDir: string, options: { waitMs?: number } = {}): Promise<ControlClient> {
  const { path } = controlSocketPath(deviceDir);
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  let socket: Socket | null = null;
  let lastError: unknown = null;
  while (!socket) {
    if (existsSync(path)) {
      try {
        socket = await tryConnect(path);
        break;
      } catch (e) {
        lastError = e;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`no board answers on ${path}${lastError ? ` (${(lastError as Error).message})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const s = socket;
  let nextId = 1;
  let buf = '';
  const pending = new Map<number, { resolve(v: ControlJson): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  s.setEncoding('utf8');
  s.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let msg: ControlJson;
      try {
        msg = JSON.parse(line) as ControlJson;
      } catch {
        continue;
      }
      const p = pending.get(msg['id'] as number);
      if (!p) continue;
      pending.delete(msg['id'] as number);
      clearTimeout(p.timer);
      if (msg['ok'] === true) {
        const { id: _id, ok: _ok, ...rest } = msg;
        p.resolve(rest);
      } else p.reject(new ControlError(String(msg['code'] ?? 'EIO'), String(msg['message'] ?? 'control request failed')));
    }
  });
  const failAll = (why: string): void => {
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(new ControlError('ECONN', why));
    }
    pending.clear();
  };
  s.on('error', (e) => failAll(e.message));
  s.on('close', () => failAll('the control socket closed'));
  return {
    request<T extends ControlJson = ControlJson>(op: string, args: ControlJson = {}): Promise<T> {
      const id = nextId++;
      const waitMs = typeof args['timeoutMs'] === 'number' ? args['timeoutMs'] : 0;
      return new Promise<T>((res, rej) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          rej(new ControlError('ETIMEDOUT', `control op ${op}: no answer`));
        }, waitMs + 30_000);
        pending.set(id, { resolve: res as (v: ControlJson) => void, reject: rej, timer });
        s.write(JSON.stringify({ ...args, id, op }) + '\n');
      });
    },
    close() {
      failAll('closed');
      s.destroy();
    },
  };
}
