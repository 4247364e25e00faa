#!/usr/bin/env node
// The serial console client for engineers and scripts, over the `serialport`
// package: the simulator's pseudo-terminal (`npm start -- --console pty`
// prints its path) or a device's USB serial port. Opening the port resets
// the device, as on the real board, so the client waits until the firmware
// answers PING before it sends anything.
//
// Usage:
//   npm run console -- <port>                      interactive (a terminal)
//   npm run console -- <port> -c PING -c STATUS    run commands, print replies
//   printf 'PING\nSTATUS\n' | npm run console -- <port>
// Options: --timeout MS (per command, default 30000), --ready-timeout MS
// (default 15000), --no-wait (do not wait for PING first), --baud N.
// Exit codes (scripts): 0 every command ended OK, 1 some ended ERR, 2 usage
// or the port could not be opened, 3 no reply in time.
//
// The reply form (src/core/console.ts): a command's output lines, then one
// final line, "OK" or "ERR <reason>". An output line that would read as a
// final line is sent as "> " + line; replies here carry it unescaped.
// Tests use openConsole() from this module.
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SerialPort } from 'serialport';

const FINAL = /^(OK|ERR( .*)?)$/;
const ESCAPED = /^> (OK$|ERR)/;

export class ConsoleTimeout extends Error {}

class ConsoleClient {
  constructor(port) {
    this.port = port;
    this.text = '';
    this.waiters = [];
    this.listeners = [];
    port.on('data', (chunk) => {
      const s = chunk.toString('utf8');
      this.text += s;
      for (const l of this.listeners) l(s);
      for (const w of [...this.waiters]) w();
    });
  }

  /** Raw output as it arrives (interactive use). */
  onOutput(listener) {
    this.listeners.push(listener);
  }

  /** Writes raw bytes or text to the port. */
  write(data) {
    return new Promise((res, rej) => this.port.write(data, (e) => (e ? rej(e) : this.port.drain((d) => (d ? rej(d) : res())))));
  }

  /** Drops what has arrived and not been read. */
  discard() {
    this.text = '';
  }

  /** Resolves when test(text) holds for the unread output, or rejects after timeoutMs. */
  waitFor(test, timeoutMs) {
    return new Promise((res, rej) => {
      const check = () => {
        const r = test(this.text);
        if (r === undefined || r === null || r === false) return false;
        done();
        res(r);
        return true;
      };
      const timer = setTimeout(() => {
        done();
        rej(new ConsoleTimeout(`no reply within ${timeoutMs} ms; output so far: ${JSON.stringify(this.text.slice(-400))}`));
      }, timeoutMs);
      const waiter = () => void check();
      const done = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      this.waiters.push(waiter);
      check();
    });
  }

  /** Takes the next complete reply (through its final line) from the unread output, or null. */
  takeReply() {
    const lines = [];
    let at = 0;
    for (;;) {
      const nl = this.text.indexOf('\n', at);
      if (nl < 0) return null;
      const line = this.text.slice(at, nl).replace(/\r$/, '');
      at = nl + 1;
      if (FINAL.test(line)) {
        this.text = this.text.slice(at);
        return { lines, final: line, ok: line === 'OK', reason: line === 'OK' ? null : line.slice(4) };
      }
      lines.push(ESCAPED.test(line) ? line.slice(2) : line);
    }
  }

  /** Sends one command line and resolves with its reply: { lines, final, ok, reason }. */
  async command(line, { timeoutMs = 30_000 } = {}) {
    await this.write(line + '\r\n');
    return this.waitFor(() => this.takeReply(), timeoutMs);
  }

  /**
   * Waits until the firmware answers PING (after the reset that opening the
   * port causes, or any other restart), then drops every stray reply.
   */
  async waitReady({ timeoutMs = 15_000, quietMs = 150 } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.discard();
      await this.write('PING\r\n');
      try {
        await this.waitFor((t) => t.includes('PONG\r\nOK\r\n'), 300);
        break;
      } catch (e) {
        if (!(e instanceof ConsoleTimeout)) throw e;
        if (Date.now() > deadline) throw new ConsoleTimeout(`the device did not answer PING within ${timeoutMs} ms`);
      }
    }
    // A PING sent just before may be answered too: let it arrive, then forget it.
    await new Promise((r) => setTimeout(r, quietMs));
    this.discard();
  }

  close() {
    return new Promise((res) => (this.port.isOpen ? this.port.close(() => res()) : res()));
  }
}

/** Opens the port (which resets the device) and resolves with a client. */
export function openConsole(path, { baudRate = 115200 } = {}) {
  return new Promise((res, rej) => {
    const port = new SerialPort({ path, baudRate, autoOpen: false });
    port.open((e) => (e ? rej(e) : res(new ConsoleClient(port))));
  });
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        command: { type: 'string', short: 'c', multiple: true, default: [] },
        timeout: { type: 'string', default: '30000' },
        'ready-timeout': { type: 'string', default: '15000' },
        'no-wait': { type: 'boolean', default: false },
        baud: { type: 'string', default: '115200' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    process.stderr.write(`console: ${e.message}\n`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length !== 1) {
    process.stderr.write('usage: npm run console -- <port> [-c COMMAND]... [--timeout MS] [--ready-timeout MS] [--no-wait] [--baud N]\n');
    process.exit(values.help ? 0 : 2);
  }
  const path = positionals[0];
  let client;
  try {
    client = await openConsole(path, { baudRate: Number(values.baud) });
  } catch (e) {
    process.stderr.write(`console: cannot open ${path}: ${e.message}\n`);
    process.exit(2);
  }
  const interactive = values.command.length === 0 && process.stdin.isTTY;
  try {
    if (!values['no-wait']) {
      if (interactive) process.stderr.write(`console: ${path} open; the device resets when the port opens, waiting for it...\n`);
      await client.waitReady({ timeoutMs: Number(values['ready-timeout']) });
    }
  } catch (e) {
    process.stderr.write(`console: ${e.message}\n`);
    await client.close();
    process.exit(3);
  }

  if (interactive) {
    process.stderr.write('console: ready. Type commands (HELP lists them); Ctrl-D or Ctrl-C quits.\n');
    client.onOutput((s) => process.stdout.write(s.replace(/\r\n/g, '\n')));
    const rl = createInterface({ input: process.stdin, terminal: false });
    rl.on('line', (line) => void client.write(line + '\r\n').catch((e) => process.stderr.write(`console: ${e.message}\n`)));
    let quitting = false;
    const quit = async () => {
      quitting = true;
      await client.close();
      process.exit(0);
    };
    rl.on('close', quit);
    process.on('SIGINT', quit);
    client.port.on('close', () => {
      if (quitting) return;
      process.stderr.write('console: the port closed\n');
      process.exit(0);
    });
    return;
  }

  // Script mode: -c commands, or the lines of stdin (blank lines and # comments skipped).
  let commands = values.command;
  if (!commands.length) {
    const rl = createInterface({ input: process.stdin, terminal: false });
    commands = [];
    for await (const line of rl) if (line.trim() && !line.trim().startsWith('#')) commands.push(line.trim());
  }
  let failed = false;
  for (const line of commands) {
    try {
      const r = await client.command(line, { timeoutMs: Number(values.timeout) });
      for (const l of r.lines) process.stdout.write(l + '\n');
      process.stdout.write(r.final + '\n');
      if (!r.ok) failed = true;
    } catch (e) {
      process.stderr.write(`console: ${line}: ${e.message}\n`);
      await client.close();
      process.exit(e instanceof ConsoleTimeout ? 3 : 2);
    }
  }
  await client.close();
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
