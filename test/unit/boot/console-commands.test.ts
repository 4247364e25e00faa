// Boots the whole device: the console's command table is every subsystem's commands together.
// The test console as a script drives it: every command of the spec's table
// is there (real, or answering "unavailable"), the final line is always OK
// or ERR and no output line can pass for one, a flooded port is bounded, and
// the commands of this issue: MODE, REBOOT, FACTRESET, HANG, SELFTEST [FULL],
// TEST <name>, LEDSTATE, LEDTEST, APINFO? (also in release builds).
import { describe, expect, it } from 'vitest';
import { Console, MAX_QUEUE } from '../../../src/core/console.ts';
import { installUnavailable, NOT_BUILT } from '../../../src/console/unavailable.ts';
import { boot } from '../../../src/main.ts';
import { hang, HANG_GIVE_UP_MS, spin } from '../../../src/system/hang.ts';
import { MCP_CALLER } from '../../../src/mcp/server.ts';
import type { Clock, System } from '../../../src/hal/index.ts';
import { flushJobs } from '../../support/clock.ts';
import { createMemHal, MemSerial, RebootSignal, rebootMemHal, type MemHal, type MemHalOptions } from '../../support/memhal.ts';

/** Every command of the spec's console table, and the commands it names elsewhere. */
const SPEC_VERBS = [
  // Status
  'PING', 'STATUS', 'RENDER?', 'MENU?', 'LEDSTATE', 'LEDTEST', 'RAWFRAME?', 'RINGANIM', 'SELFTEST', 'FAULT', 'FAULT?', 'SDCHECK', 'TEST', 'REBOOT', 'FACTRESET', 'HANG', 'MEMFILL', 'WEBTOK?',
  // Assistant and memory
  'TURN', 'VOICE', 'PROMPT?', 'CTX?', 'COMPACT', 'EPIQ', 'DREAM', 'MODE',
  // Display
  'SCREEN', 'SCREEN?', 'SAVER', 'TFTHEALTH?', 'TFTHZ', 'TFTFILL?', 'TFTID?', 'TFTPWR?', 'TFTFLIP', 'TFTBREAK', 'PANELPROBE',
  // Touch
  'TAP', 'TAPUP', 'TOUCH?', 'TCAL', 'TOUCHISO?',
  // Battery
  'PROFILE', 'BATTCAL', 'BATTRESET', 'SLEEPMV', 'SLEEP', 'DRAIN', 'STORAGE',
  // Audio
  'MICREC', 'SPKSAY', 'TTSTG', 'TGSEND', 'SFX', 'SFXVOL', 'PLAY', 'MEDIATEST',
  // Network
  'WIFI', 'WIFISCAN', 'WIFIKNOWN?', 'WIFIRENAME', 'WIFIAP', 'BLE?', 'BLEMAC?', 'BONDS?', 'FORGETBONDS', 'NSNFEED',
  // Update
  'OTA?', 'OTACHECK', 'OTAAPPLY', 'OTAURL', 'OTASIM',
  // Cloud
  'CLOUD?', 'CLOUDPAIR', 'CLOUDOFF', 'CLOUDLOOP',
  // Also
  'APINFO?',
];

function start(options: MemHalOptions = {}, mem: MemHal = createMemHal(options)) {
  const device = boot(mem.hal);
  const cmd = async (line: string): Promise<string> => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    for (let i = 0; i < 4; i++) await flushJobs();
    return mem.serial.take().replace(/\r/g, '');
  };
  return { mem, device, cmd };
}

describe('the console as a whole', () => {
  it('has every command of the spec table; HELP lists each with a one-line help', async () => {
    const { cmd, device } = start();
    const help = await cmd('HELP');
    const listed = help
      .split('\n')
      .filter((l) => l && l !== 'OK')
      .map((l) => l.split(' ')[0]);
    for (const verb of SPEC_VERBS) {
      expect(device.ctx.console.has(verb), verb).toBe(true);
      expect(listed, verb).toContain(verb);
    }
    for (const line of help.split('\n').filter((l) => l && l !== 'OK')) expect(line).toMatch(/^\S+( .+)? - \S/);
  });

  it('has no command left answering unavailable: every group of the spec table is built (the table is empty)', async () => {
    const { cmd, device } = start();
    expect(NOT_BUILT).toEqual([]);
    expect(installUnavailable(device.ctx.console)).toBe(0);
    expect(await cmd('HELP')).not.toMatch(/unavailable: needs/);
    expect(await cmd('WIFIKNOWN?')).toMatch(/^known=0 max=8\nOK\n$/);
  });

  it('fills only the gaps with ERR unavailable naming what is missing, and leaves a registered verb to its subsystem', async () => {
    const serial = new MemSerial();
    const c = new Console(serial, true);
    // A table as the mechanism would hold one for a subsystem not built yet.
    const table = [{ needs: 'the frobnicator', commands: [['FROB', '<n>'], ['FROB?', '']] as const }];
    c.register({ verb: 'FROB', help: 'registered by its subsystem', run: (call) => call.out('mine') });
    expect(installUnavailable(c, table)).toBe(1);
    expect(await c.execute('FROB')).toBe('mine\r\nOK\r\n');
    expect(await c.execute('frob?')).toBe('ERR unavailable: FROB? needs the frobnicator, which is not built yet\r\n');
    expect(await c.execute('HELP')).toContain('FROB? - unavailable: needs the frobnicator, not built yet\r\n');
    expect(installUnavailable(new Console(new MemSerial(), true), [])).toBe(0);
  });

  it('never lets an output line pass for the final one', async () => {
    const { device, cmd } = start();
    device.ctx.console.register({
      verb: 'ECHO',
      help: 'test',
      run: (c) => {
        c.out('OK');
        c.out('ERR not really');
        c.out('OKAY is fine');
      },
    });
    expect(await cmd('ECHO')).toBe('> OK\n> ERR not really\nOKAY is fine\nOK\n');
  });

  it('bounds the lines waiting behind a running command and answers the rest ERR busy at once', async () => {
    const { device, mem } = start();
    let release = (): void => {};
    let ran = 0;
    device.ctx.console.register({
      verb: 'WAIT',
      help: 'test',
      run: () => new Promise<void>((r) => (release = r)),
    });
    device.ctx.console.register({ verb: 'COUNT', help: 'test', run: () => void ran++ });
    mem.serial.take();
    mem.serial.type('WAIT\r\n' + 'COUNT\r\n'.repeat(MAX_QUEUE + 5));
    await flushJobs();
    expect(mem.serial.take()).toBe(`ERR busy: ${MAX_QUEUE} lines are already waiting; this one was not run\r\n`.repeat(5));
    release();
    for (let i = 0; i < 10; i++) await flushJobs();
    expect(ran).toBe(MAX_QUEUE);
  });
});

describe('line endings', () => {
  /** A console with one recording command; feed() takes raw chunks as the port delivers them. */
  function rig() {
    const serial = new MemSerial();
    const c = new Console(serial, true);
    const seen: string[] = [];
    c.register({ verb: 'SAY', usage: '<text>', help: 'test', run: (call) => void seen.push(call.args) });
    c.start();
    const feed = async (...chunks: string[]): Promise<void> => {
      for (const chunk of chunks) serial.onData!(new TextEncoder().encode(chunk));
      for (let i = 0; i < 4; i++) await flushJobs();
    };
    return { serial, seen, feed };
  }

  it('ends a line on a lone CR, a lone LF or CRLF, and a CRLF is one line end, not two', async () => {
    const { serial, seen, feed } = rig();
    await feed('SAY one\rSAY two\nSAY three\r\nSAY four\r\n');
    expect(seen).toEqual(['one', 'two', 'three', 'four']);
    expect(serial.take()).toBe('OK\r\n'.repeat(4));
  });

  it('keeps a CRLF split across two chunks as one line end, and joins a line split anywhere', async () => {
    const { serial, seen, feed } = rig();
    await feed('SAY sp', 'lit\r', '\nSAY next\r', '\n');
    expect(seen).toEqual(['split', 'next']);
    expect(serial.take()).toBe('OK\r\nOK\r\n');
  });

  it('answers nothing for bare line ends of any kind (LF CR, CR CR LF, LF LF), so a script\'s blank lines cost nothing', async () => {
    const { serial, seen, feed } = rig();
    await feed('SAY a\n\rSAY b\r', '\r\n', '\n\nSAY c\n');
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(serial.take()).toBe('OK\r\n'.repeat(3));
  });
});

describe('arguments a command does not take', () => {
  it('PING, STATUS, SDCHECK, DREAM and the other argument-free commands answer a usage error and do nothing', async () => {
    const { cmd, mem } = start();
    expect(await cmd('PING x')).toBe('ERR usage: PING (no arguments)\n');
    expect(await cmd('STATUS x')).toBe('ERR usage: STATUS (no arguments)\n');
    expect(await cmd('SDCHECK x')).toBe('ERR usage: SDCHECK (no arguments)\n');
    expect(mem.sd.stat('/sdcheck.tmp')).toBeNull();
    expect(await cmd('DREAM x')).toBe('ERR usage: DREAM (no arguments)\n');
    expect(await cmd('HELP me')).toBe('ERR usage: HELP (no arguments)\n');
    expect(await cmd('CTX? console extra')).toBe('ERR usage: CTX? [chat] (at most 1 argument)\n');
    expect(await cmd('COMPACT a b')).toBe('ERR usage: COMPACT <chat> (at most 1 argument)\n');
    // the same commands without the stray word still run
    expect(await cmd('PING')).toBe('PONG\nOK\n');
    expect(await cmd('DREAM')).toMatch(/^decayed=\d+ pruned=\d+ merged=\d+ vec=\d+\nOK\n$/);
  });

  it('is judged by the console from the command\'s maxArgs, before the command runs', async () => {
    const serial = new MemSerial();
    const c = new Console(serial, true);
    let ran = 0;
    c.register({ verb: 'TWO', usage: '<a> [b]', help: 'test', maxArgs: 2, run: () => void ran++ });
    c.register({ verb: 'ANY', help: 'test', run: () => void ran++ });
    expect(await c.execute('TWO a b c')).toBe('ERR usage: TWO <a> [b] (at most 2 arguments)\r\n');
    expect(ran).toBe(0);
    expect(await c.execute('TWO a b')).toBe('OK\r\n');
    expect(await c.execute('ANY a b c')).toBe('OK\r\n');
    expect(ran).toBe(2);
  });
});

describe('a release build', () => {
  it('lists exactly HELP, PING and APINFO? (the spec allows APINFO?; HELP and PING are kept, docs/decisions.md), so no test command leaks', async () => {
    const { cmd, device } = start({ testBuild: false });
    const help = await cmd('HELP');
    expect(help.split('\n').filter((l) => l && l !== 'OK').map((l) => l.split(' ')[0])).toEqual(['APINFO?', 'HELP', 'PING']);
    expect(help.endsWith('\nOK\n')).toBe(true);
    for (const verb of SPEC_VERBS.filter((v) => !['PING', 'APINFO?'].includes(v))) expect(device.ctx.console.has(verb), verb).toBe(false);
    expect(await cmd('STATUS')).toBe('ERR unknown command STATUS (try HELP)\n');
    expect(await cmd('PING')).toBe('PONG\nOK\n');
  });
});

describe('MODE', () => {
  it('refuses bad arguments and changes nothing; the current mode is a no-op', async () => {
    const { cmd, mem } = start();
    for (const bad of ['MODE', 'MODE 2', 'MODE one', 'MODE 1 1']) expect(await cmd(bad), bad).toBe('ERR usage: MODE <0 or 1> (now 1, Orchestrator)\n');
    expect(await cmd('MODE 1')).toBe('mode=1 (Orchestrator) already; nothing changed\nOK\n');
    await mem.clock.advance(1000);
    expect(mem.system.reboots).toEqual([]);
    expect(mem.nvs.get('sys', 'mode')).toBeUndefined();
  });

  it('saves the mode, writes a timeline row, answers, restarts into it, and back', async () => {
    const { cmd, mem, device } = start();
    expect(await cmd('MODE 0')).toBe('mode=0 (Notifier) saved; restarting\nOK\n');
    expect(mem.nvs.get('sys', 'mode')).toBe(0);
    expect(device.ctx.timeline.recent().at(-1)).toMatchObject({ kind: 'mode', text: 'Orchestrator (1) -> Notifier (0), from the console' });
    await expect(mem.clock.advance(150)).rejects.toBeInstanceOf(RebootSignal);
    expect(mem.system.reboots).toEqual(['mode 0']);

    const notifier = start({}, rebootMemHal(mem));
    expect(notifier.device.ctx.mode).toBe(0);
    expect(notifier.device.http).toBeNull();
    expect(await notifier.cmd('STATUS')).toMatch(/ mode=0 /);
    expect(await notifier.cmd('MODE 1')).toBe('mode=1 (Orchestrator) saved; restarting\nOK\n');
    await expect(notifier.mem.clock.advance(150)).rejects.toBeInstanceOf(RebootSignal);
    const back = start({}, rebootMemHal(notifier.mem));
    expect(back.device.ctx.mode).toBe(1);
    expect(back.device.http).not.toBeNull();
  });

  it('says so and changes nothing when NVS refuses the write', async () => {
    const { cmd, mem, device } = start();
    const nvs = device.ctx.hal.nvs;
    const set = nvs.set.bind(nvs);
    nvs.set = (ns, key, value) => {
      if (ns === 'sys') throw new Error('NVS full');
      set(ns, key, value);
    };
    expect(await cmd('MODE 0')).toBe('ERR mode not saved (NVS full); nothing changed\n');
    await mem.clock.advance(1000);
    expect(mem.system.reboots).toEqual([]);
  });
});

describe('REBOOT, FACTRESET, HANG', () => {
  it('REBOOT answers, then restarts', async () => {
    const { cmd, mem } = start();
    expect(await cmd('REBOOT now')).toBe('ERR usage: REBOOT (no arguments)\n');
    expect(await cmd('reboot')).toBe('restarting\nOK\n');
    expect(mem.system.reboots).toEqual([]);
    await expect(mem.clock.advance(150)).rejects.toBeInstanceOf(RebootSignal);
    expect(mem.system.reboots).toEqual(['console REBOOT']);
  });

  it('FACTRESET erases every setting but the keep namespace (a new token after), keeps the card unless asked', async () => {
    const { cmd, mem, device } = start();
    const token = device.ctx.token.reveal();
    mem.nvs.setMany('keep', [['panel', 'st7796s']]);
    mem.nvs.setMany('wifi', [['ssid', 'Home']]);
    mem.ble.addBond('aa:bb:cc:dd:ee:ff');
    mem.sd.mkdir('/mem');
    mem.sd.open('/mem/a.txt', 'w').write(new Uint8Array([1]));
    expect(await cmd('FACTRESET everything')).toBe('ERR usage: FACTRESET [card]\n');
    expect(mem.nvs.get('wifi', 'ssid')).toBe('Home');
    expect(await cmd('FACTRESET')).toBe('factory reset (the SD card is kept); restarting\nOK\n');
    await expect(mem.clock.advance(1)).rejects.toBeInstanceOf(RebootSignal);
    expect(mem.nvs.get('wifi', 'ssid')).toBeUndefined();
    expect(mem.ble.bonds()).toEqual([]);
    expect(mem.nvs.get('keep', 'panel')).toBe('st7796s');
    expect(mem.sd.stat('/mem/a.txt')).not.toBeNull();
    const again = start({}, rebootMemHal(mem));
    expect(again.device.ctx.token.reveal()).not.toBe(token);
    expect(await again.cmd('FACTRESET CARD')).toBe('factory reset with the SD card; restarting\nOK\n');
    await expect(again.mem.clock.advance(1)).rejects.toBeInstanceOf(RebootSignal);
    expect(again.mem.sd.list('/')).toEqual([]);
  });

  it('HANG answers first, then stops the loop (nothing feeds the watchdog)', async () => {
    const { cmd, mem, device } = start();
    expect(await cmd('HANG please')).toBe('ERR usage: HANG (no arguments)\n');
    expect(await cmd('HANG')).toBe('hanging: nothing feeds the watchdog now; it resets the device\nOK\n');
    // The spin is due REPLY_GRACE_MS later; the virtual clock would never let it end, so the test stops here.
    expect(mem.clock.nextDue()).toBeLessThanOrEqual(100);
    device.stop();
  });

  it('a hang spins without returning to the loop, and restarts itself if no watchdog ever fires', () => {
    let now = 0;
    const clock = { monoMs: () => (now += 1000) } as unknown as Clock;
    expect(spin(clock, 10_000)).toBe(9);
    const reboots: string[] = [];
    const lines: string[] = [];
    hang(clock, { reboot: (r: string) => reboots.push(r) } as unknown as System, (l) => lines.push(l));
    expect(now).toBeGreaterThanOrEqual(HANG_GIVE_UP_MS);
    expect(reboots).toEqual(['hang without a watchdog reset']);
    expect(lines[0]).toMatch(/no watchdog reset within 10 min/);
  });
});

describe('SELFTEST and TEST', () => {
  it('SELFTEST prints one line per item and ends OK; FULL plays the tone; bad arguments are refused', async () => {
    const { cmd, mem } = start();
    const out = await cmd('SELFTEST');
    expect(out).toMatch(/^selftest: \d+ PASS, 0 FAIL, \d+ SKIP\n/);
    for (const item of ['nvs', 'sd', 'flash', 'heap', 'display', 'ring', 'touch', 'battery', 'audio', 'mic', 'clock', 'wifi']) expect(out).toMatch(new RegExp(`\\n(PASS|SKIP) ${item}: `));
    expect(out.endsWith('\nOK\n')).toBe(true);
    expect(mem.audio.samples).toHaveLength(0);
    expect(await cmd('selftest full')).toContain('PASS audio: played a 200 ms 880 Hz tone');
    // 200 ms through the speaker's mixer at 24 kHz
    expect(mem.audio.samples.reduce((n, pcm) => n + pcm.length, 0)).toBe(4800);
    expect(await cmd('SELFTEST QUICK')).toBe('ERR usage: SELFTEST [FULL]\n');
  });

  it('TEST runs one named item; FAIL ends with ERR; an unknown name lists the names', async () => {
    const { cmd, mem } = start({ board: 'ring-tft' });
    expect(await cmd('TEST nvs')).toBe('PASS nvs: wrote, read back and erased a test key\nOK\n');
    expect(await cmd('TEST RING')).toMatch(/^PASS ring: 24 LEDs took a frame/);
    expect(await cmd('TEST touch')).toBe('SKIP touch: this board has no touch panel\nOK\n');
    expect(await cmd('TEST audio')).toContain('PASS audio: played');
    expect(await cmd('TEST mic')).toBe('PASS mic: opened and closed the 16 kHz mono input (MICREC records a clip)\nOK\n');
    mem.system.heapFigures.freeInternal = 10 * 1024;
    expect(await cmd('TEST heap')).toMatch(/^FAIL heap: free 10 KB.*\nERR heap failed\n$/);
    expect(await cmd('TEST')).toMatch(/^ERR usage: TEST <name> \(names: nvs, sd, flash, heap, display, ring, touch, battery, speaker, audio, mic, clock, wifi\)\n$/);
    expect(await cmd('TEST gremlins')).toMatch(/^ERR unknown test gremlins \(names: /);
  });

  it('device.selftest keeps its own items (no clock or wifi)', async () => {
    const { device } = start();
    const r = await device.ctx.tools.call('device.selftest', {}, MCP_CALLER);
    expect(r.output).not.toMatch(/ (clock|wifi): /);
  });
});

describe('LEDSTATE and LEDTEST', () => {
  it('LEDSTATE shows the state device actions set and the frame the ring shows for it', async () => {
    const { cmd, device, mem } = start({ board: 'ring-tft' });
    expect(await cmd('LEDSTATE')).toBe(`mode=off color=255,255,255 brightness=128 (default) ring=24\nshowing=led name=off t=0 level=0 fps=20\nframe=${'00'.repeat(72)}\nOK\n`);
    await device.ctx.tools.call('device.control', { action: { led: { mode: 'solid', color: { r: 255, g: 0, b: 0 }, brightness: 100 } } }, MCP_CALLER);
    await mem.clock.advance(1000);
    const out = await cmd('LEDSTATE');
    expect(out).toBe(`mode=solid color=255,0,0 brightness=100 (action) ring=24\nshowing=led name=solid t=1000 level=100 fps=20\nframe=${'640000'.repeat(24)}\nOK\n`);
    expect(Buffer.from(mem.ring.last()!).toString('hex')).toBe('640000'.repeat(24));
  });

  it('LEDSTATE on a board without a ring still tells the state', async () => {
    const { cmd } = start({ board: 'panel-35' });
    expect(await cmd('LEDSTATE')).toBe('mode=off color=255,255,255 brightness=128 (default) ring=0\nshowing=led name=off t=0 level=0 fps=20\nOK\n');
  });

  it('LEDTEST lights every LED red, green, blue, white, then shows the LED state again; no ring is an ERR', async () => {
    const { mem, device } = start({ board: 'ring-tft' });
    await device.ctx.tools.call('device.control', { action: { led: { mode: 'solid', color: { r: 0, g: 0, b: 255 }, brightness: 255 } } }, MCP_CALLER);
    const before = mem.ring.frames.length;
    mem.serial.take();
    mem.serial.type('LEDTEST\r\n');
    await mem.clock.advance(2000);
    expect(mem.serial.take().replace(/\r/g, '')).toBe('red: 24 LEDs\ngreen: 24 LEDs\nblue: 24 LEDs\nwhite: 24 LEDs\nback to the LED state\nOK\n');
    const shown = mem.ring.frames.slice(before).map((f) => Buffer.from(f.subarray(0, 3)).toString('hex'));
    expect(shown).toEqual(['ff0000', '00ff00', '0000ff', 'ffffff', '0000ff']);
    const panel = start({ board: 'panel-35' });
    expect(await panel.cmd('LEDTEST')).toBe('ERR no-ring: this board has no LED ring\n');
  });
});

describe('APINFO?', () => {
  it('prints the setup network name and passphrase (never logged), in test and release builds', async () => {
    for (const testBuild of [true, false]) {
      const { cmd, device, mem } = start({ testBuild });
      const out = await cmd('APINFO?');
      const m = /^ssid=Device-setup pass=([a-z2-9]{10}) setup=(up|off)\nOK\n$/.exec(out);
      expect(m, out).not.toBeNull();
      expect(mem.nvs.get('auth', 'apPass')).toBe(m![1]);
      expect(device.ctx.log.text()).not.toContain(m![1]);
    }
  });
});
