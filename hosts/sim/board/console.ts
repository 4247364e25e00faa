// The serial console: stdio (stdin bytes in, serial output on stdout; a TTY
// goes raw and Ctrl-C quits) or a pseudo-terminal through build/sim/simpty
// (its path printed; a client opening it resets the device, as the USB
// console does when the port opens).

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface ConsoleHandlers {
  /** Bytes typed by the engineer or a script. */
  input(bytes: Buffer): void;
  /** A client opened the terminal (pty only). */
  opened(): void;
  /** Ctrl-C on a raw TTY. */
  quit(): void;
  /** The helper died (pty only). */
  failed(message: string): void;
}

export interface SerialConsole {
  readonly description: string;
  write(bytes: Uint8Array): void;
  close(): void;
}

export class StdioConsole implements SerialConsole {
  readonly description = 'stdio';
  private raw = false;
  private readonly onData: (chunk: Buffer) => void;

  constructor(handlers: ConsoleHandlers) {
    const stdin = process.stdin;
    if (stdin.isTTY) {
      stdin.setRawMode(true);
      this.raw = true;
      // whatever ends the process, the terminal gets its line discipline back
      process.once('exit', () => {
        if (this.raw) stdin.setRawMode(false);
      });
    }
    this.onData = (chunk: Buffer) => {
      if (this.raw && chunk.includes(0x03)) {
        handlers.quit();
        return;
      }
      handlers.input(chunk);
    };
    stdin.on('data', this.onData);
    stdin.on('error', () => {});
    stdin.resume();
  }

  write(bytes: Uint8Array): void {
    process.stdout.write(bytes);
  }

  close(): void {
    process.stdin.off('data', this.onData);
    if (this.raw) process.stdin.setRawMode(false);
    this.raw = false;
    process.stdin.pause();
    process.stdin.unref?.();
  }
}

export class PtyConsole implements SerialConsole {
  private child: ChildProcess;
  private buf = Buffer.alloc(0);
  private closing = false;
  path = '';

  private constructor(helper: string, handlers: ConsoleHandlers, ready: (path: string) => void, failed: (message: string) => void) {
    this.child = spawn(helper, [], { stdio: ['pipe', 'pipe', 'inherit'] });
    let started = false;
    this.child.on('error', (e) => failed(`cannot start ${helper}: ${e.message}`));
    this.child.stdin!.on('error', () => {});
    this.child.on('exit', (code, signal) => {
      if (this.closing) return;
      const why = `the pty helper exited (${signal ?? code})`;
      if (started) handlers.failed(why);
      else failed(why);
    });
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      if (!started) {
        const nl = this.buf.indexOf(0x0a);
        if (nl < 0) return;
        const line = this.buf.subarray(0, nl).toString('utf8');
        this.buf = this.buf.subarray(nl + 1);
        const m = /^PTY (.+)$/.exec(line.trim());
        if (!m) {
          failed(`the pty helper said '${line}' instead of 'PTY <path>'`);
          return;
        }
        started = true;
        this.path = m[1]!;
        ready(this.path);
      }
      while (this.buf.length >= 3) {
        const type = this.buf[0]!;
        const length = this.buf.readUInt16LE(1);
        if (this.buf.length < 3 + length) break;
        const data = this.buf.subarray(3, 3 + length);
        this.buf = this.buf.subarray(3 + length);
        if (type === 1) handlers.input(Buffer.from(data));
        else if (type === 2) handlers.opened();
      }
    });
  }

  static start(helper: string, handlers: ConsoleHandlers): Promise<PtyConsole> {
    if (!existsSync(helper)) return Promise.reject(new Error(`the pty helper ${helper} does not exist (build it: node tools/build.mjs)`));
    return new Promise((resolve, reject) => {
      const c: PtyConsole = new PtyConsole(
        helper,
        handlers,
        () => resolve(c),
        (m) => reject(new Error(m)),
      );
    });
  }

  get description(): string {
    return this.path;
  }

  write(bytes: Uint8Array): void {
    if (!this.closing) this.child.stdin!.write(bytes);
  }

  close(): void {
    this.closing = true;
    this.child.stdin!.end();
    this.child.kill('SIGTERM');
  }
}
