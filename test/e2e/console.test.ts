// The serial test console end to end: the real firmware on the simulator,
// driven over the board's pseudo-terminal with the `serialport` package
// (through tools/console.mjs, the engineers' client). Opening the port resets
// the device; bad input leaves it running; the Status group, FAULT with each
// cap seen by the subsystems, the assistant and memory commands, and the
// commands that restart the device (MODE, REBOOT, FACTRESET, HANG), and the
// client's script mode (tools/console.mjs: -c, stdin, exit codes).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_NAMES, routeArgs, start, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { openConsole, type ConsoleClient, type ConsoleReply } from '../../tools/console.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';
import { BLOCK_ORDER } from '../../src/prompt/blocks.ts';
import { ROOT } from '../../tools/build.mjs';

/** The board's watchdog: short, so HANG resets quickly. */
const WATCHDOG_MS = 3000;

let emu: Emulator;
let device: Device;
let con: ConsoleClient;
let token = '';
let ptyPath = '';

interface BoardStatus {
  bootCount: number;
  resetReason: string;
  ptyPath: string;
  lastExit: { outcome: string } | null;
  [key: string]: unknown;
}

const status = () => device.board.request<BoardStatus>('status');
/** One command; the reply's lines and final line joined, as a person reads them. */
const run = async (line: string, timeoutMs = 20_000): Promise<string> => {
  const r: ConsoleReply = await con.command(line, { timeoutMs });
  return [...r.lines, r.final].join('\n');
};
/** Waits for the boot after `boots`, then for the firmware to answer on the console. */
const restarted = async (boots: number): Promise<BoardStatus> => {
  await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 20_000 });
  await con.waitReady();
  return status();
};
const state = async (): Promise<Record<string, unknown>> => (await (await device.fetch('/api/state', { token })).json()) as Record<string, unknown>;
const vectors = async (): Promise<number> => ((await (await device.fetch('/api/mem/stats', { token })).json()) as { vectors: number }).vectors;

beforeAll(async () => {
  emu = await start();
  device = await startDevice({ board: 'ring-tft', args: ['--console', 'pty', '--watchdog-ms', String(WATCHDOG_MS), ...routeArgs(emu.port, EMULATOR_NAMES)] });
  ptyPath = /^Console: (\/dev\/\S+)$/.exec(device.consoleLine)![1]!;
});

afterAll(async () => {
  await con?.close();
  await cleanup();
  await emu?.close();
});

describe('the console on the pseudo-terminal', () => {
  it('resets the device when the port opens (reset reason external), then answers', async () => {
    const before = await status();
    expect(before).toMatchObject({ bootCount: 1, resetReason: 'power-on', ptyPath });
    con = await openConsole(ptyPath);
    await device.board.request('wait', { for: 'boot', after: before.bootCount, timeoutMs: 10_000 });
    await con.waitReady();
    expect(await status()).toMatchObject({ bootCount: 2, resetReason: 'external' });
    expect(readFileSync(join(device.dir, 'device.log'), 'utf8')).toContain('a client opened the console: resetting the device (external)');
    expect(await run('PING')).toBe('PONG\nOK');
    token = (await con.command('WEBTOK?')).lines[0]!;
    expect(token).toMatch(/^[0-9a-f]{24}$/);
  });

  it('survives bad input: over-long lines, binary garbage, unknown verbs, bare line ends; one clear ERR line each', async () => {
    const boots = (await status()).bootCount;
    expect(await run('A'.repeat(600))).toBe('ERR line longer than 512 bytes');
    expect(await run('frobnicate now')).toBe('ERR unknown command FROBNICATE (try HELP)');
    // one garbage line (no line ends inside it): exactly one ERR line
    const garbage = Buffer.from([...randomBytes(300)].filter((b) => b !== 10 && b !== 13 && b > 32));
    await con.write(Buffer.concat([garbage, Buffer.from('\r\n')]));
    const reply = await con.waitFor(() => con.takeReply(), 5000);
    expect(reply.lines).toEqual([]);
    expect(reply.final).toMatch(/^ERR (unknown command .* \(try HELP\)|line longer than 512 bytes)$/);
    // a burst of anything, line ends included, and lone CR, LF and CRLF
    await con.write(Buffer.concat([randomBytes(8192), Buffer.from('\r\n\n\r\r\n')]));
    await con.waitReady();
    expect(await run('ping')).toBe('PONG\nOK');
    expect(await status()).toMatchObject({ bootCount: boots });
  });

  it('Status group: STATUS, HEAP?, WEBTOK?, LEDSTATE, LEDTEST, SELFTEST [FULL], TEST, SDCHECK, MEMFILL, DREAM; RENDER?, RAWFRAME?', async () => {
    expect(await run('STATUS')).toMatch(/^fw=v\d+\.\d+\.\d+ build=\S+ board=ring-tft mode=1 up=\d+ .*\nOK$/);
    expect(await run('HEAP?')).toMatch(/^xs=\d+ .* free=\d+ .*\nOK$/);
    expect((await device.fetch('/api/state', { token })).status).toBe(200);

    expect(await run('LEDSTATE')).toMatch(new RegExp(`^mode=off color=255,255,255 brightness=128 \\(default\\) ring=24\nshowing=led name=off t=\\d+ level=0 fps=20\nframe=${'00'.repeat(72)}\nOK$`));
    const shows = (await device.board.request<{ shows: number }>('ring.state')).shows;
    expect(await run('LEDTEST')).toBe('red: 24 LEDs\ngreen: 24 LEDs\nblue: 24 LEDs\nwhite: 24 LEDs\nback to the LED state\nOK');
    const ring = await device.board.request<{ shows: number; rgb: number[] }>('ring.state');
    expect(ring.shows).toBe(shows + 5);
    expect(ring.rgb.every((v) => v === 0)).toBe(true);
    // The screen's Status commands (src/ui; test/e2e/ui.test.ts has the rest).
    expect(await run('RENDER?')).toMatch(/^screen=\w+ size=240x240 [\s\S]*\nOK$/);
    expect(await run('RAWFRAME?')).toMatch(/^format=rgb565 order=display-rows bytes=115200 [\s\S]*\nOK$/);

    const self = await run('SELFTEST');
    expect(self).toMatch(/^selftest: \d+ PASS, 0 FAIL, \d+ SKIP\n/);
    expect(self).toMatch(/\nPASS sd: card /);
    expect(self).toMatch(/\nPASS ring: 24 LEDs/);
    expect(self).toMatch(/\nPASS clock: synced/);
    expect(self.endsWith('\nOK')).toBe(true);
    expect(await run('SELFTEST FULL')).toMatch(/\nPASS audio: played a 200 ms 880 Hz tone\n[\s\S]*OK$/);
    expect(await run('TEST flash')).toMatch(/^PASS flash: two app slots of 6\.5 MB; running slot 0/);
    expect(await run('TEST nothing')).toMatch(/^ERR unknown test nothing/);
    // SDCHECK is the storage subsystem's (src/storage/index.ts).
    expect(await run('SDCHECK')).toMatch(/^sd=ok tier=present [\s\S]*\nrw=pass\nOK$/);
    const before = await vectors();
    expect(await run('MEMFILL vec 3')).toBe(`vec 3 written (3 new); vec=${before + 3}\nOK`);
    expect(await vectors()).toBe(before + 3);
    expect(await run('MEMFILL epi 5 64')).toBe(`epi 5 written (5 new); vec=${before + 3}\nOK`);
    const rows = (await run('EPIQ epifill')).split('\n');
    expect(rows.filter((l) => / memfill system\/log: epifill \S+ item [0-4]: /.test(l))).toHaveLength(5);
    expect(rows.slice(-2)).toEqual([expect.stringMatching(/^rows=5 /), 'OK']);
    expect(await run('MEMFILL sideways 3')).toBe('ERR usage: MEMFILL <epi or vec> <n 1-100000> [bytes]');
    const dream = /^decayed=(\d+) pruned=(\d+) merged=(\d+) vec=(\d+)\nOK$/.exec(await run('DREAM'));
    expect(dream).not.toBeNull();
    expect(Number(dream![4])).toBe(await vectors());
    expect(Number(dream![4])).toBe(before + 3 - Number(dream![2]) - Number(dream![3]));
    // HELP end to end: one line per command, each with its one-line help; argument-free commands refuse words
    const help = (await run('HELP')).split('\n');
    expect(help.at(-1)).toBe('OK');
    for (const line of help.slice(0, -1)) expect(line).toMatch(/^\S+( .+)? - \S/);
    const verbs = help.slice(0, -1).map((l) => l.split(' ')[0]);
    for (const v of ['PING', 'STATUS', 'SDCHECK', 'MEMFILL', 'DREAM', 'FAULT', 'WEBTOK?', 'HELP']) expect(verbs).toContain(v);
    expect(verbs).toEqual([...verbs].sort());
    for (const verb of ['PING', 'STATUS', 'SDCHECK', 'DREAM', 'HELP']) expect(await run(`${verb} extra`)).toBe(`ERR usage: ${verb} (no arguments)`);
  });

  it('FAULT: each cap reaches the subsystems through the HAL, FAULT? tells, and off restores', async () => {
    expect(await run('FAULT?')).toMatch(/^sd-write=off .*\nsd-absent=off .*\noutbound=off .*\nheap-low=off .*\nclock-unsynced=off .*\nwifi-down=off .*\nOK$/);
    expect(await run('FAULT sideways on')).toMatch(/^ERR unknown fault sideways/);

    expect(await run('FAULT sd-absent on')).toBe('sd-absent=on\nOK');
    expect(await run('STATUS')).toMatch(/ sd=none /);
    expect(await run('TEST sd')).toBe('SKIP sd: no card inserted\nOK');
    expect(await run('FAULT sd-absent off')).toBe('sd-absent=off\nOK');
    expect(await run('STATUS')).toMatch(/ sd=ok /);

    await run('FAULT sd-write on');
    expect(await run('TEST sd')).toBe('FAIL sd: SD card write failed (fault sd-write)\nERR sd failed');
    await run('FAULT sd-write off');
    expect(await run('TEST sd')).toMatch(/^PASS sd/);

    await run('FAULT heap-low on');
    expect(await run('TEST heap')).toMatch(/^FAIL heap: free 16 KB, largest block 8 KB.*\nERR heap failed$/);
    expect(await run('TURN are you there?')).toMatch(/^One moment: .*\nERR deferred \(heap below the turn floor\)$/);
    expect(await run('HEAP?')).toMatch(/ free=16384 largest=8192 /);
    await run('FAULT heap-low off');

    await run('FAULT clock-unsynced on');
    expect(await run('TEST clock')).toMatch(/^FAIL clock: not synced.*\nERR clock failed$/);
    await run('FAULT clock off');
    expect(await run('TEST clock')).toMatch(/^PASS clock: synced/);
    expect(await run('FAULT?')).not.toMatch(/=on /);
  });

  it('FAULT outbound: a turn fails as a provider transport failure and no request leaves; off, the provider answers again', async () => {
    const orch = await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ key_anthropic: 'sk-e2e-console', priority: 'anthropic' }) });
    expect(orch.status).toBe(200);
    emu.reset();
    emu.script({ turn: turnObject('Here I am.') });
    expect(await run('TURN are you there?', 30_000)).toBe('Here I am.\nOK');
    expect(await run('CTX?')).toContain('are you there?');
    // PROMPT?: the assembled size within its budget, then one line per block in prompt order (name, bytes offered, sent)
    const prompt = (await run('PROMPT?')).split('\n');
    const size = /^prompt (\d+) bytes of (\d+)$/.exec(prompt[0]!);
    expect(size).not.toBeNull();
    expect(Number(size![1])).toBeLessThanOrEqual(Number(size![2]));
    const blocks = prompt.slice(1, -1).map((l) => /^(\S+) (\d+) (\d+)$/.exec(l));
    expect(blocks.every((b) => b !== null)).toBe(true);
    expect(blocks.map((b) => b![1])).toEqual([...BLOCK_ORDER]);
    for (const b of blocks) expect(Number(b![3])).toBeLessThanOrEqual(Number(b![2]));
    for (const name of ['capabilities', 'providers']) expect(Number(blocks.find((b) => b![1] === name)![3]), name).toBeGreaterThan(0);
    expect(prompt.at(-1)).toBe('OK');

    await run('FAULT provider on');
    emu.reset();
    emu.script({ turn: turnObject('should not be seen') });
    const failed = await con.command('TURN still there?', { timeoutMs: 30_000 });
    expect(failed.ok).toBe(false);
    expect(emu.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    await run('FAULT outbound off');
    expect(await run('TURN and now?', 30_000)).toBe('should not be seen\nOK');
  });

  it('FAULT wifi-down: the station drops and the setup network comes back; off, the link returns', async () => {
    const saved = await device.fetch('/savewifi', { method: 'POST', token, body: new URLSearchParams({ ssid: 'SimNet', pass: 'simnet-pass' }) });
    expect(saved.status).toBe(202);
    await expect.poll(async () => ((await state())['wifi'] as { station: { state: string } }).station.state, { timeout: 10_000 }).toBe('connected');
    expect(await run('TEST wifi')).toMatch(/^PASS wifi: station connected to SimNet/);
    await run('FAULT wifi-down on');
    expect(await state()).toMatchObject({ faults: ['wifi-down'], wifi: { station: { state: 'disconnected' }, setup: { state: 'up' } } });
    expect(await run('TEST wifi')).toBe('FAIL wifi: station disconnected (SimNet)\nERR wifi failed');
    await run('FAULT wifi-down off');
    expect(await state()).toMatchObject({ wifi: { station: { state: 'connected' } } });
    expect((await state())['faults']).toBeUndefined();
  });

  it('assistant and memory: EPIQ finds the turn; COMPACT folds a conversation into memory (CTX? shows it gone); VOICE runs a turn (not spoken while voice replies are off)', async () => {
    expect(await run('EPIQ are you there')).toMatch(/are you there[\s\S]*OK$/);
    // A conversation of known length: cleared from the web, then one exchange.
    expect((await device.fetch('/api/conversation/clear', { method: 'POST', token, body: new URLSearchParams({ chat: 'console' }) })).status).toBe(200);
    expect(await run('CTX?')).toBe('OK');
    emu.reset();
    emu.script({ turn: turnObject('Noted: your cat is Tom.') });
    expect(await run('TURN my cat is called Tom', 30_000)).toBe('Noted: your cat is Tom.\nOK');
    expect(await run('CTX?')).toBe('creator: my cat is called Tom\nassistant: Noted: your cat is Tom.\nOK');
    const before = await vectors();
    emu.reset();
    emu.script({ turn: turnObject('Kept: the cat Tom.', { mem_write: [{ content: "The owner's cat is called Tom", importance: 0.6, permanent: false, ttl: 'months' }] }) });
    expect(await run('COMPACT console', 30_000)).toBe('compacted 2 message(s) into 1 memory write(s)\nKept: the cat Tom.\nOK');
    const asked = emu.requests.filter((r) => r.method === 'POST').map((r) => r.text).join('\n');
    expect(asked).toContain('user: my cat is called Tom\\nassistant: Noted: your cat is Tom.');
    expect(asked).toContain('Housekeeping: compact the conversation below');
    expect(await run('CTX?')).toBe('OK');
    // the summary's memory is written after the reply (as every turn's mem_write), in the owner's namespace
    await expect.poll(vectors, { timeout: 10_000 }).toBe(before + 1);
    expect(await run('COMPACT console')).toBe('ERR There is no conversation to compact since it was last cleared.');
    expect(await run('COMPACT')).toBe('ERR usage: COMPACT <chat>');
    emu.reset();
    emu.script({ turn: turnObject('Hello from the speaker.') });
    expect(await run('VOICE hello', 30_000)).toMatch(/^Hello from the speaker\.\nnot spoken: off: voice replies are off \(ttsOn\)\nOK$/);
  });

  it('MODE 0 restarts into Notifier mode (a timeline row says so), MODE 1 back into Orchestrator', async () => {
    const boots = (await status()).bootCount;
    expect(await run('MODE 2')).toMatch(/^ERR usage: MODE <0 or 1> \(now 1, Orchestrator\)$/);
    expect(await run('MODE 0')).toBe('mode=0 (Notifier) saved; restarting\nOK');
    expect(await restarted(boots)).toMatchObject({ bootCount: boots + 1, resetReason: 'software' });
    await device.board.waitStdout(/^HTTP: off \(Notifier mode\)$/m);
    expect(await run('STATUS')).toMatch(/ mode=0 /);
    expect(await run('EPIQ Notifier')).toContain('Orchestrator (1) -> Notifier (0), from the console');
    expect(await run('MODE 1')).toBe('mode=1 (Orchestrator) saved; restarting\nOK');
    expect(await restarted(boots + 1)).toMatchObject({ bootCount: boots + 2 });
    expect(await run('STATUS')).toMatch(/ mode=1 /);
    expect((await device.fetch('/api/state', { token })).status).toBe(200);
  });

  it('REBOOT restarts (software); FACTRESET erases the settings (a new token); HANG gets the watchdog to reset the device', async () => {
    let boots = (await status()).bootCount;
    expect(await run('REBOOT')).toBe('restarting\nOK');
    expect(await restarted(boots)).toMatchObject({ bootCount: boots + 1, resetReason: 'software' });

    boots++;
    expect(await run('FACTRESET')).toBe('factory reset (the SD card is kept); restarting\nOK');
    expect(await restarted(boots)).toMatchObject({ bootCount: boots + 1, resetReason: 'software' });
    const fresh = (await con.command('WEBTOK?')).lines[0]!;
    expect(fresh).toMatch(/^[0-9a-f]{24}$/);
    expect(fresh).not.toBe(token);
    expect((await device.fetch('/api/state', { token })).status).toBe(401);
    token = fresh;

    boots++;
    const started = Date.now();
    expect(await run('HANG')).toBe('hanging: nothing feeds the watchdog now; it resets the device\nOK');
    const after = await restarted(boots);
    expect(after).toMatchObject({ bootCount: boots + 1, resetReason: 'watchdog', lastExit: { outcome: 'watchdog' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(WATCHDOG_MS - 1000);
    expect(await run('PING')).toBe('PONG\nOK');
  });

  it('the client\'s script mode: -c commands and stdin lines print the replies; exit 0 all OK, 1 an ERR, 2 a bad port, 3 no reply in time', async () => {
    // One client on the port at a time: the test's own gives way (the client's open resets the device, as on the board).
    await con.close();
    const cli = (args: string[], stdin = ''): Promise<{ code: number | null; out: string; err: string }> =>
      new Promise((res) => {
        const child = spawn(process.execPath, ['tools/console.mjs', ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('close', (code) => res({ code, out, err }));
        child.stdin.end(stdin);
      });
    expect(await cli([ptyPath, '-c', 'PING', '-c', 'FROB'])).toEqual({ code: 1, out: 'PONG\nOK\nERR unknown command FROB (try HELP)\n', err: '' });
    const ok = await cli([ptyPath, '-c', 'PING', '-c', 'STATUS']);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^PONG\nOK\nfw=v\d+\.\d+\.\d+ build=\S+ board=ring-tft .*\nOK\n$/);
    const piped = await cli([ptyPath], 'PING\n# a comment\n\nSDCHECK\n');
    expect(piped.code).toBe(0);
    expect(piped.out).toMatch(/^PONG\nOK\nsd=ok tier=present [^\n]*\nfiles=\d+ bytes=\d+\nrw=pass\nOK\n$/);
    const bad = await cli(['/dev/pts/999999', '-c', 'PING']);
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toMatch(/^console: cannot open \/dev\/pts\/999999: /);
    expect((await cli([])).code).toBe(2);
    // LEDTEST takes four steps of its clock before its final line: a shorter --timeout gives up.
    const slow = await cli([ptyPath, '--timeout', '300', '-c', 'PING', '-c', 'LEDTEST']);
    expect(slow.code).toBe(3);
    expect(slow.out).toBe('PONG\nOK\n');
    expect(slow.err).toMatch(/^console: LEDTEST: no reply within 300 ms; output so far: "red: 24 LEDs/);
  }, 90_000);
});
