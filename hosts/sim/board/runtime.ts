// One runtime process (build/sim/xsim) for one boot: spawning it with the
// pipe on fd 3, reading frames from it and writing replies, events and warps
// to it, splitting its fd 1 (firmware log) and fd 2 (diagnostics) into lines,
// and reporting how it ended.

import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { encodeFrame, FrameDecoder, type Frame } from './frames.ts';

export interface RuntimeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The process could not be started at all. */
  spawnError?: string;
}

export interface RuntimeHandlers {
  frame(frame: Frame): void;
  logLine(line: string): void;
  diagLine(line: string): void;
  /** The pipe carried something malformed. */
  protocolError(message: string): void;
  /** Called once, after the process exited and all its output was read. */
  exit(exit: RuntimeExit): void;
}

/** Above this many bytes queued towards the runtime, producers should pause. */
const HIGH_WATER = 8 * 1024 * 1024;

function lineSplitter(sink: (line: string) => void): { push(chunk: Buffer): void; end(): void } {
  let rest = '';
  return {
    push(chunk) {
      const text = rest + chunk.toString('utf8');
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) sink(l.endsWith('\r') ? l.slice(0, -1) : l);
    },
    end() {
      if (rest) sink(rest);
      rest = '';
    },
  };
}

export class RuntimeProcess {
  readonly child: ChildProcess;
  private pipe: Socket;
  private decoder = new FrameDecoder();
  private drainWaiters: Array<() => void> = [];
  private exited = false;
  readonly startedAt = performance.now();

  constructor(binary: string, args: string[], cwd: string, handlers: RuntimeHandlers) {
    this.child = spawn(binary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    this.pipe = this.child.stdio[3] as Socket;
    const out = lineSplitter(handlers.logLine);
    const err = lineSplitter(handlers.diagLine);
    this.child.stdout!.on('data', (c: Buffer) => out.push(c));
    this.child.stderr!.on('data', (c: Buffer) => err.push(c));
    this.child.stdout!.on('end', () => out.end());
    this.child.stderr!.on('end', () => err.end());
    this.pipe.on('data', (c: Buffer) => {
      let frames: Frame[];
      try {
        frames = this.decoder.push(c);
      } catch (e) {
        handlers.protocolError((e as Error).message);
        this.kill('SIGKILL');
        return;
      }
      for (const f of frames) handlers.frame(f);
    });
    this.pipe.on('error', () => {
      // EPIPE/ECONNRESET when the runtime dies: its exit tells the story
    });
    this.pipe.on('drain', () => {
      const waiting = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiting) w();
    });
    this.child.on('error', (e) => {
      // spawn failure (ENOENT, EACCES): reported as an exit without a code
      if (this.exited || this.child.pid !== undefined) return;
      this.exited = true;
      handlers.exit({ code: null, signal: null, spawnError: `cannot start the runtime ${binary}: ${e.message}` });
    });
    this.child.on('close', (code, signal) => {
      if (this.exited) return;
      this.exited = true;
      const waiting = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiting) w();
      handlers.exit({ code, signal });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  write(kind: number, id: number, json: string, bin?: Uint8Array): void {
    if (this.exited || this.pipe.destroyed) return;
    const parts = encodeFrame(kind, id, json, bin);
    // one write (one syscall) for small frames; big payloads are not copied
    if (parts.length === 2 || parts[2]!.length < 64 * 1024) this.pipe.write(Buffer.concat(parts));
    else {
      this.pipe.cork();
      for (const part of parts) this.pipe.write(part);
      this.pipe.uncork();
    }
  }

  get congested(): boolean {
    return !this.exited && this.pipe.writableLength > HIGH_WATER;
  }

  onDrain(fn: () => void): void {
    if (!this.congested) fn();
    else this.drainWaiters.push(fn);
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.exited) return;
    try {
      this.child.kill(signal);
    } catch {
      // gone already
    }
  }
}
