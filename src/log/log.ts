// The firmware log: every line is redacted once, here, then kept in a small
// ring (GET /api/log, 1280 bytes) and written to the host's log output.

import type { Clock, System } from '../hal/index.ts';
import { utf8Length } from '../util/utf8.ts';
import { capBytes } from '../util/cap.ts';
import { Redactor } from './redact.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const LINE_BREAKS = /[\r\n]+/;

export const LOG_RING_BYTES = 1280;

export type LogLevel = 'info' | 'warn' | 'error';

export class Log {
  readonly redactor = new Redactor();
  private lines: string[] = [];
  private bytes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly system: System,
    private readonly capacity = LOG_RING_BYTES,
  ) {}

  info(tag: string, message: string): void {
    this.write('info', tag, message);
  }
  warn(tag: string, message: string): void {
    this.write('warn', tag, message);
  }
  error(tag: string, message: string): void {
    this.write('error', tag, message);
  }

  write(level: LogLevel, tag: string, message: string): void {
    const t = (this.clock.monoMs() / 1000).toFixed(3);
    const prefix = level === 'info' ? '' : level === 'warn' ? 'W ' : 'E ';
    const line = capBytes(this.redactor.redact(replaceEvery(`[${t}] ${prefix}${tag}: ${message}`, LINE_BREAKS, ' ')), this.capacity - 1);
    this.system.log(line);
    this.lines.push(line);
    this.bytes += utf8Length(line) + 1;
    while (this.bytes > this.capacity && this.lines.length) {
      const dropped = this.lines.shift()!;
      this.bytes -= utf8Length(dropped) + 1;
    }
  }

  /** The ring's lines, oldest first, each ending in a newline. */
  text(): string {
    return this.lines.map((l) => l + '\n').join('');
  }
}
