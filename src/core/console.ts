// The serial test console: line editing (CR, LF or CRLF; backspace), a
// bounded line, case-insensitive verbs registered by each subsystem, and a
// scriptable reply form: a command's output lines, then exactly one final
// line "OK" or "ERR <reason>". No output line can be mistaken for the final
// one: a line that reads "OK" or starts with "ERR" is sent as "> " + line.
// A command declares how many arguments it takes (maxArgs); the console
// refuses more with a usage error, so extra words are never ignored.
// Lines wait their turn in a bounded queue (MAX_QUEUE; beyond it a line is
// answered "ERR busy" at once and not run), except an immediate command's (a
// stop), which runs as soon as its line arrives, while another command runs.

import type { Serial } from '../hal/index.ts';
import { decode } from '../util/utf8.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const WHITESPACE_RUN = /\s+/;
const WHITESPACE = /\s/;
const LINE_BREAKS = /[\r\n]+/;
const LOOKS_FINAL = /^(OK$|ERR)/;

export const MAX_LINE = 512;
/** Lines waiting behind a running command (a script flooding the port cannot grow RAM without bound). */
export const MAX_QUEUE = 32;

/** Thrown by a command to end with ERR <reason>. */
export class CommandError extends Error {}

export interface CommandCall {
  /** Everything after the verb, trimmed. */
  args: string;
  /** args split on whitespace. */
  argv: string[];
  /** Prints one line of output. */
  out(line: string): void;
}

export interface Command {
  /** The verb as the spec writes it, e.g. 'PING' or 'WEBTOK?'. */
  verb: string;
  /** Argument synopsis for HELP, e.g. '<0 or 1>'. */
  usage?: string;
  help: string;
  /** Test builds only (the default); false = also in release builds. */
  testOnly?: boolean;
  /**
   * The most arguments the command takes (0: none). More are answered
   * "ERR usage: ..." by the console before run() is called, so a stray
   * word is never silently ignored. Absent: the command judges its own.
   */
  maxArgs?: number;
  /**
   * Runs as soon as its line arrives, even while another command runs (a
   * stop for the command that runs): it must not wait on anything.
   */
  immediate?: boolean;
  run(call: CommandCall): void | Promise<void>;
}

export class Console {
  private commands = new Map<string, Command>();
  private line: number[] = [];
  private overflow = false;
  private lastWasCr = false;
  private queue: string[] = [];
  private busy = false;

  constructor(
    private readonly serial: Serial,
    private readonly testBuild: boolean,
    private readonly onError: (message: string) => void = () => {},
  ) {
    this.register({
      verb: 'HELP',
      help: 'list the commands',
      testOnly: false,
      maxArgs: 0,
      run: (c) => {
        for (const cmd of [...this.commands.values()].sort((a, b) => (a.verb < b.verb ? -1 : 1)))
          c.out(`${cmd.verb}${cmd.usage ? ' ' + cmd.usage : ''} - ${cmd.help}`);
      },
    });
  }

  register(command: Command): void {
    if ((command.testOnly ?? true) && !this.testBuild) return;
    const key = command.verb.toUpperCase();
    if (this.commands.has(key)) throw new Error(`console command ${key} registered twice`);
    this.commands.set(key, command);
  }

  has(verb: string): boolean {
    return this.commands.has(verb.toUpperCase());
  }

  start(): void {
    this.serial.onData = (bytes) => this.feed(bytes);
  }

  /** Bytes from the port; complete lines are queued and run in order. */
  feed(bytes: Uint8Array): void {
    for (const b of bytes) {
      if (b === 13 || b === 10) {
        if (b === 10 && this.lastWasCr) {
          this.lastWasCr = false;
          continue;
        }
        this.lastWasCr = b === 13;
        this.endLine();
        continue;
      }
      this.lastWasCr = false;
      if (b === 8 || b === 127) {
        this.line.pop();
        continue;
      }
      if (b < 32 && b !== 9) continue; // control characters are noise on a console
      if (this.line.length >= MAX_LINE) {
        this.overflow = true;
        continue;
      }
      this.line.push(b);
    }
  }

  private endLine(): void {
    const overflow = this.overflow;
    const text = decode(Uint8Array.from(this.line)).trim();
    this.line = [];
    this.overflow = false;
    if (overflow) {
      this.serial.write(`ERR line longer than ${MAX_LINE} bytes\r\n`);
      return;
    }
    if (!text) return;
    if (this.queue.length >= MAX_QUEUE) {
      this.serial.write(`ERR busy: ${MAX_QUEUE} lines are already waiting; this one was not run\r\n`);
      return;
    }
    const space = text.search(WHITESPACE);
    if (this.busy && this.commands.get((space < 0 ? text : text.slice(0, space)).toUpperCase())?.immediate) {
      void this.execute(text);
      return;
    }
    this.queue.push(text);
    if (!this.busy) void this.drain();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.queue.length) await this.execute(this.queue.shift()!);
    this.busy = false;
  }

  /** Runs one command line and returns its whole reply (for tests and TEST scripts). */
  async execute(text: string): Promise<string> {
    const space = text.search(WHITESPACE);
    const verb = (space < 0 ? text : text.slice(0, space)).toUpperCase();
    const args = space < 0 ? '' : text.slice(space + 1).trim();
    let reply = '';
    const send = (line: string): void => {
      reply += line;
      this.serial.write(line);
    };
    const out = (line: string): void => {
      const l = replaceEvery(line, LINE_BREAKS, ' ');
      send((LOOKS_FINAL.test(l) ? '> ' + l : l) + '\r\n');
    };
    const end = (line: string): void => send(replaceEvery(line, LINE_BREAKS, ' ') + '\r\n');
    const cmd = this.commands.get(verb);
    if (!cmd) {
      end(`ERR unknown command ${verb.length > 40 ? verb.slice(0, 40) + '...' : verb} (try HELP)`);
      return reply;
    }
    const argv = args ? args.split(WHITESPACE_RUN) : [];
    if (cmd.maxArgs !== undefined && argv.length > cmd.maxArgs) {
      const most = cmd.maxArgs === 0 ? 'no arguments' : `at most ${cmd.maxArgs} argument${cmd.maxArgs === 1 ? '' : 's'}`;
      end(`ERR usage: ${cmd.verb}${cmd.usage ? ' ' + cmd.usage : ''} (${most})`);
      return reply;
    }
    try {
      await cmd.run({ args, argv, out });
      end('OK');
    } catch (e) {
      if (e instanceof CommandError) end(`ERR ${e.message}`);
      else {
        this.onError(`console ${verb} failed: ${String(e)}`);
        end(`ERR ${verb} failed`);
      }
    }
    return reply;
  }
}
