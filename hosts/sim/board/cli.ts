// The simulated board's command line (bundled to build/sim/board.mjs):
//
//   node build/sim/board.mjs [--board ring-tft|panel-28|panel-35|panel-40]
//     [--device-dir DIR] [--http-port N|0] [--console stdio|pty] [--mode 0|1]
//     [--sd-size BYTES] [--flash auto|always|never] [--image PATH] [--fonts PATH|none]
//     [--route host:port=127.0.0.1:port]... [--mdns-port N] [--mdns-address 127.x.y.z]
//     [--heap-max BYTES] [--quiet] [--watchdog-ms MS] [--runtime PATH]
//
// Prints "Console: ...", then "HTTP: ..." (and "Sign-in: ...") when the
// firmware reports ready. SIGINT/SIGTERM (or Ctrl-C on a raw TTY) stop the
// runtime and exit 0, removing nothing from the device folder.

import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEVICE_TYPES, type DeviceType } from '../../../src/hal/index.ts';
import { Board } from './board.ts';
import { PtyConsole, StdioConsole, type ConsoleHandlers, type SerialConsole } from './console.ts';
import { ControlServer } from './control.ts';
import { defaultPtyHelperPath, defaultRuntimePath, repoRoot } from './paths.ts';
import { parseRoute } from './tcp.ts';

const USAGE = `usage: node build/sim/board.mjs [--board ${DEVICE_TYPES.join('|')}] [--device-dir DIR] [--http-port N|0]
       [--console stdio|pty] [--mode 0|1] [--sd-size BYTES] [--flash auto|always|never] [--image PATH] [--fonts PATH|none]
       [--route host:port=127.0.0.1:port]... [--mdns-port N] [--mdns-address 127.x.y.z]
       [--heap-max BYTES] [--quiet] [--watchdog-ms MS] [--runtime PATH]`;

function die(message: string, code = 2): never {
  process.stderr.write(`board: ${message}\n`);
  process.exit(code);
}

function number(value: string | undefined, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) die(`${name} must be a whole number\n${USAGE}`);
  const n = Number(value);
  if (n < min || n > max) die(`${name} must be from ${min} to ${max}`);
  return n;
}

/** A loopback address other than 127.0.0.1 (the clients' own): the device's on the mDNS bridge. */
function loopbackAddress(value: string): string {
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (!m || m.slice(1).some((p) => Number(p) > 255) || value === '127.0.0.1') die(`--mdns-address must be a loopback address other than 127.0.0.1 (127.0.0.2, say)`);
  return value;
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        board: { type: 'string' },
        'device-dir': { type: 'string', default: '.sim/default' },
        'http-port': { type: 'string', default: '8080' },
        console: { type: 'string', default: 'stdio' },
        mode: { type: 'string' },
        'sd-size': { type: 'string' },
        flash: { type: 'string', default: 'auto' },
        image: { type: 'string' },
        fonts: { type: 'string' },
        route: { type: 'string', multiple: true, default: [] },
        'mdns-port': { type: 'string' },
        'mdns-address': { type: 'string', default: '127.0.0.2' },
        'heap-max': { type: 'string' },
        quiet: { type: 'boolean', default: false },
        'watchdog-ms': { type: 'string', default: '8000' },
        runtime: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    die(`${(e as Error).message}\n${USAGE}`);
  }
  if (values['help']) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const board = values['board'] as string | undefined;
  if (board !== undefined && !DEVICE_TYPES.includes(board as DeviceType)) die(`--board must be one of ${DEVICE_TYPES.join(', ')}`);
  const consoleKind = values['console'] as string;
  if (consoleKind !== 'stdio' && consoleKind !== 'pty') die('--console must be stdio or pty');
  const flash = values['flash'] as string;
  if (flash !== 'auto' && flash !== 'always' && flash !== 'never') die('--flash must be auto, always or never');
  const mode = number(values['mode'] as string | undefined, '--mode', 0, 1) as 0 | 1 | undefined;
  const routes = values['route'] as string[];
  for (const r of routes) {
    try {
      parseRoute(r);
    } catch (e) {
      die((e as Error).message);
    }
  }
  const quiet = values['quiet'] === true;

  let b: Board;
  try {
    b = new Board({
      deviceDir: resolve(values['device-dir'] as string),
      board: board as DeviceType | undefined,
      httpPort: number(values['http-port'] as string, '--http-port', 0, 65535)!,
      mode,
      sdSize: number(values['sd-size'] as string | undefined, '--sd-size', 0),
      flash,
      image: resolve((values['image'] as string | undefined) ?? resolve(repoRoot(), 'build/fw/firmware.img')),
      // the fonts partition's pack: beside the image unless named; none leaves the partition erased
      fonts: values['fonts'] === 'none' ? null : resolve((values['fonts'] as string | undefined) ?? resolve(repoRoot(), 'build/fw/fonts.bin')),
      routes,
      mdnsPort: number(values['mdns-port'] as string | undefined, '--mdns-port', 1, 65535) ?? null,
      mdnsAddress: loopbackAddress(values['mdns-address'] as string),
      heapMax: number(values['heap-max'] as string | undefined, '--heap-max', 64 * 1024),
      quiet,
      watchdogMs: number(values['watchdog-ms'] as string, '--watchdog-ms', 100)!,
      runtime: values['runtime'] ? resolve(values['runtime'] as string) : defaultRuntimePath(),
      print: (line) => process.stdout.write(line + '\n'),
      warn: (line) => process.stderr.write(line + '\n'),
    });
    b.prepare();
  } catch (e) {
    die((e as Error).message, 1);
  }

  const control = new ControlServer(b);
  try {
    await control.start();
  } catch (e) {
    die((e as Error).message, 1);
  }

  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await b.shutdown();
    b.console?.close();
    control.close();
    process.exit(code);
  };
  b.onFatal = (message) => {
    process.stderr.write(`board: ${message}\n`);
    void stop(1);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGHUP', () => void stop(0));
  process.stdout.on('error', () => {});

  const handlers: ConsoleHandlers = {
    input: (bytes) => b.serialInput(bytes),
    opened: () => {
      b.log('board: a client opened the console: resetting the device (external)');
      void b.reset('external', 'console-open');
    },
    quit: () => void stop(0),
    failed: (m) => b.log(`board: console: ${m}`),
  };
  let con: SerialConsole;
  if (consoleKind === 'pty') {
    try {
      con = await PtyConsole.start(defaultPtyHelperPath(), handlers);
    } catch (e) {
      control.close();
      die((e as Error).message, 1);
    }
  } else {
    con = new StdioConsole(handlers);
  }
  b.console = con;
  process.stdout.write(`Console: ${con.description}\n`);
  // A person at a terminal gets the console's prompt; scripts get the bare lines.
  if (consoleKind === 'stdio' && process.stdin.isTTY) process.stderr.write('Type console commands here (HELP lists them); Ctrl-C stops the simulator.\n');
  b.start();
}

main().catch((e: unknown) => die((e as Error)?.stack ?? String(e), 1));
