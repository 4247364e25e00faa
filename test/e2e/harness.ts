// The end-to-end harness for the real firmware: boots the simulator on a
// temporary device folder and a free port, waits for its printed lines, and
// gives tests the URLs, the console and the board's control socket. Every
// process it starts is stopped by cleanup() (call it in afterAll).

import { cleanup, startBoard, tempDir, type BoardRun } from './fixtures/board-harness.ts';

export { cleanup, tempDir };

export interface Device {
  board: BoardRun;
  dir: string;
  /** http://127.0.0.1:<port>/ (null in Notifier mode) */
  url: string | null;
  signIn: string | null;
  consoleLine: string;
  /** Sends one console line on stdio and resolves with the command's reply (through OK or ERR). */
  command(line: string, timeoutMs?: number): Promise<string>;
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /** One /mcp tools/call as the holder of `token`: whether it failed, and the result's text. */
  tool(token: string, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }>;
  stop(): Promise<number | null>;
}

export interface StartOptions {
  board?: string;
  mode?: 0 | 1;
  sdSize?: number;
  dir?: string;
  args?: string[];
  /**
   * Orchestrator mode: wait until the firmware has set its clock from the
   * board's time server (default), so tests start where a device on a
   * network stands; false starts at "HTTP up", inside the unset window.
   */
  waitClock?: boolean;
}

export async function startDevice(options: StartOptions = {}): Promise<Device> {
  const dir = options.dir ?? tempDir('desk-e2e-');
  const args = [
    ...(options.board ? ['--board', options.board] : []),
    ...(options.mode !== undefined ? ['--mode', String(options.mode)] : []),
    ...(options.sdSize !== undefined ? ['--sd-size', String(options.sdSize)] : []),
    ...(options.args ?? []),
  ];
  const board = await startBoard(dir, args);
  const consoleLine = (await board.waitStdout(/^Console: .*$/m))[0];
  const http = (await board.waitStdout(/^HTTP: (.*)$/m))[1]!;
  const url = http.startsWith('http://') ? http : null;
  const signIn = url ? (await board.waitStdout(/^Sign-in: (.*)$/m))[1]! : null;
  if (url && options.waitClock !== false) await board.request('wait', { for: 'log', match: 'clock: set from', timeoutMs: 10_000 });
  let consumed = board.stdout.length;
  let rpcId = 0;
  const device: Device = {
    board,
    dir,
    url,
    signIn,
    consoleLine,
    async command(line, timeoutMs = 10_000) {
      const from = consumed;
      board.proc.stdin!.write(line + '\r\n');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const out = board.stdout.slice(from);
        const end = /^(OK|ERR[^\r\n]*)\r?$/m.exec(out);
        if (end) {
          consumed = from + end.index + end[0].length;
          // The board's own announcements (after a reboot) are not part of the reply.
          return out
            .slice(0, end.index + end[0].length)
            .replace(/\r/g, '')
            .split('\n')
            .filter((l) => !/^(HTTP|Sign-in|Console): /.test(l))
            .join('\n')
            .replace(/^\n+/, '');
        }
        if (Date.now() > deadline) throw new Error(`no reply to ${line}: ${JSON.stringify(out)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    fetch(path, init = {}) {
      if (!url) throw new Error('no HTTP in Notifier mode');
      const { token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== undefined) headers.set('X-Device-Token', token);
      return fetch(new URL(path, url), { ...rest, headers });
    },
    async tool(token, name, args) {
      const res = await device.fetch('/mcp', {
        token,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } }),
      });
      const j = (await res.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
      return { isError: j.result.isError, text: j.result.content[0]!.text };
    },
    stop: () => board.stop(),
  };
  return device;
}
