// The Notifier link (spec: What the service does 1, "Notifier link",
// Authentication 16), mounted with the screen and the device actions on a
// test kernel (test/support/screen-rig.ts), with the in-memory HAL's test
// central: STATUS is readable unbonded, FRAME and CONFIG need a bond, a
// bonded central's frames change the ring and the screen, a bad frame or
// CONFIG write changes nothing and says why in STATUS, bonds outlive a
// restart and FORGETBONDS drops them, and the console's Bluetooth commands.
// Then the parsers on malformed and random input (fast-check).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEY, encodeConfig, parseConfigWrite, type NotifierConfig } from '../../../src/notifier/config.ts';
import { encodeFrame, parseFrame, RECORD } from '../../../src/notifier/frame.ts';
import { CONFIG_UUID, FRAME_UUID, NOTIFIER_GATT, NOTIFIER_SERVICE_UUID, STATUS_UUID } from '../../../src/notifier/gatt.ts';
import { MAX_VALUE_BYTES, RESULT } from '../../../src/notifier/protocol.ts';
import { decodeStatus, encodeStatus } from '../../../src/notifier/status.ts';
import type { BleCentral, DeviceType } from '../../../src/hal/index.ts';
import { toHex } from '../../../src/util/encoding.ts';
import { flushJobs } from '../../support/clock.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { screenRig } from '../../support/screen-rig.ts';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A NOTICE record's body: hold (s), title, body. */
function notice(holdS: number, title: string, body: string): Uint8Array {
  const t = utf8(title);
  const b = utf8(body);
  const out = new Uint8Array(3 + t.length + b.length);
  new DataView(out.buffer).setUint16(0, holdS, true);
  out[2] = t.length;
  out.set(t, 3);
  out.set(b, 3 + t.length);
  return out;
}

const led = (mode: number, r: number, g: number, b: number, brightness?: number) => ({ type: RECORD.led, body: Uint8Array.from(brightness === undefined ? [mode, r, g, b] : [mode, r, g, b, brightness]) });

function start(options: { mode?: 0 | 1; board?: DeviceType; mem?: MemHal } = {}) {
  const mem = options.mem ?? createMemHal({ board: options.board ?? 'ring-tft' });
  if (!options.mem) mem.nvs.set('sys', 'mode', options.mode ?? 0);
  const device = screenRig({ mem, notifier: true });
  const cmd = async (line: string): Promise<string> => {
    mem.serial.take();
    mem.serial.type(line + '\r\n');
    for (let i = 0; i < 6; i++) await flushJobs();
    return mem.serial.take().replace(/\r/g, '');
  };
  const status = (c: BleCentral) => decodeStatus(mem.ble.read(c, STATUS_UUID))!;
  return { mem, device, cmd, status };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return `${(e as { code: string }).code}: ${(e as Error).message}`;
  }
  return 'no refusal';
}

describe('the GATT service', () => {
  it('is advertised in Notifier mode with the one definition the device build compiles', () => {
    const { mem } = start();
    expect(mem.ble.services).toBe(NOTIFIER_GATT);
    expect(mem.ble.name).toBe('Desk 3457');
    expect(NOTIFIER_GATT).toEqual([
      {
        uuid: NOTIFIER_SERVICE_UUID,
        characteristics: [
          { uuid: STATUS_UUID, read: true, write: false, notify: true, bondedOnly: false },
          { uuid: FRAME_UUID, read: false, write: true, notify: false, bondedOnly: true },
          { uuid: CONFIG_UUID, read: true, write: true, notify: false, bondedOnly: true },
        ],
      },
    ]);
  });

  it('advertises the device name once one is set (capped to fit an advertising packet)', () => {
    const mem = createMemHal({ board: 'ring-tft' });
    mem.nvs.set('sys', 'mode', 0);
    mem.nvs.set('cfg', 'devName', 'Kitchen desk assistant unit');
    screenRig({ mem, notifier: true });
    expect(mem.ble.name).toBe('Kitchen desk assista');
  });
});

describe('an unbonded central', () => {
  it('reads STATUS: protocol version, firmware version, the sequence counter; no bond', () => {
    const { mem, status } = start();
    const c = mem.ble.connect();
    expect(status(c)).toEqual({ version: 1, bonded: false, notice: false, ring: true, hasBonds: false, seq: 0, frames: 0, last: 0, firmware: 'v0.1.0' });
  });

  it('may not write a frame or read or write CONFIG, and nothing changes', async () => {
    const { mem, device, status } = start();
    const c = mem.ble.connect();
    const before = device.actions.ledState();
    const frame = encodeFrame(1, [led(1, 255, 0, 0, 200), { type: RECORD.notice, body: notice(0, 'Hi', '') }]);
    expect(refusal(() => mem.ble.write(c, FRAME_UUID, frame))).toBe('ETLS: ATT error 0x05 (Insufficient Authentication)');
    expect(refusal(() => mem.ble.read(c, CONFIG_UUID))).toMatch(/^ETLS/);
    expect(refusal(() => mem.ble.write(c, CONFIG_UUID, Uint8Array.from([1, CONFIG_KEY.ledBrightness, 1, 9])))).toMatch(/^ETLS/);
    // The firmware checks again if a stack ever let such a write through.
    mem.ble.handlers!.onWrite(c, FRAME_UUID, frame);
    await mem.clock.advance(100);
    expect(device.actions.ledState()).toEqual(before);
    expect(device.ui.screen()).not.toBe('notice');
    expect(status(c)).toMatchObject({ seq: 0, frames: 0, last: RESULT.notBonded });
    expect(device.actions.config('ledBrightness')).toBeUndefined();
  });
});

describe('the status screen in Notifier mode', () => {
  it('says whether a phone is connected, and again when it leaves', async () => {
    const { mem, cmd } = start();
    await mem.clock.advance(2000);
    expect(await cmd('RENDER?')).not.toContain('Phone connected');
    const c = mem.ble.connect();
    await mem.clock.advance(2000);
    expect(await cmd('RENDER?')).toContain('Phone connected');
    mem.ble.disconnect(c);
    await mem.clock.advance(2000);
    expect(await cmd('RENDER?')).not.toContain('Phone connected');
  });
});

describe('a bonded central', () => {
  it('writes frames that change the ring and the screen; STATUS counts them', async () => {
    const { mem, device, cmd, status } = start();
    const c = mem.ble.pair(mem.ble.connect());
    expect(status(c)).toMatchObject({ bonded: true, hasBonds: true });
    const shows = mem.ring.frames.length;
    mem.ble.write(c, FRAME_UUID, encodeFrame(7, [led(1, 0, 255, 0, 255), { type: RECORD.notice, body: notice(30, 'Call from Anna', 'Ringing on\nyour phone') }]));
    await mem.clock.advance(200);
    expect(device.actions.ledState()).toEqual({ mode: 'solid', color: { r: 0, g: 255, b: 0 }, brightness: 255 });
    expect(mem.ring.frames.length).toBeGreaterThan(shows);
    expect([...mem.ring.last()!.subarray(0, 3)]).toEqual([0, 255, 0]);
    const render = await cmd('RENDER?');
    expect(render).toMatch(/^screen=notice/);
    expect(render).toContain('"Call from Anna"');
    expect(status(c)).toMatchObject({ seq: 7, frames: 1, last: 0, notice: true });
    // Every write is followed by a STATUS notification, which already counts the notice.
    expect(decodeStatus(mem.ble.notified.at(-1)!.value)).toMatchObject({ seq: 7, frames: 1, notice: true });

    // An attention animation on top, then a clear: the notice goes, the led layer stays.
    mem.ble.write(c, FRAME_UUID, encodeFrame(8, [{ type: RECORD.anim, body: Uint8Array.from([3, 0xe8, 0x03]) }, { type: RECORD.clear, body: new Uint8Array() }]));
    await mem.clock.advance(100);
    expect(device.ring.view()).toMatchObject({ layer: 'attention', name: 'success' });
    expect(device.ui.screen()).toBe('status');
    await mem.clock.advance(1000);
    expect(device.ring.view()).toMatchObject({ layer: 'led', name: 'solid' });
    // LED mode 0 turns the ring off.
    mem.ble.write(c, FRAME_UUID, encodeFrame(9, [led(0, 0, 0, 0)]));
    await mem.clock.advance(100);
    expect(device.actions.ledState().mode).toBe('off');
    expect([...mem.ring.last()!].every((b) => b === 0)).toBe(true);
    expect(status(c)).toMatchObject({ seq: 9, frames: 3 });
  });

  it('a notice holds for its seconds, then the screen returns', async () => {
    const { mem, device } = start();
    const c = mem.ble.pair(mem.ble.connect());
    mem.ble.write(c, FRAME_UUID, encodeFrame(1, [{ type: RECORD.notice, body: notice(3, 'Timer', 'Tea is ready') }]));
    await mem.clock.advance(2000);
    expect(device.ui.screen()).toBe('notice');
    await mem.clock.advance(2500);
    expect(device.ui.screen()).toBe('status');
  });

  it('a bad frame is refused whole: nothing changes, the write fails, STATUS says why', async () => {
    const { mem, device, status } = start();
    const c = mem.ble.pair(mem.ble.connect());
    mem.ble.write(c, FRAME_UUID, encodeFrame(1, [led(1, 1, 2, 3, 4)]));
    await mem.clock.advance(100);
    const ledBefore = device.actions.ledState();
    const framesBefore = mem.ring.frames.length;
    // A good LED record followed by a notice whose title is not UTF-8.
    const bad = encodeFrame(2, [led(2, 255, 0, 0), { type: RECORD.notice, body: Uint8Array.from([0, 0, 2, 0xc3, 0x28]) }]);
    expect(refusal(() => mem.ble.write(c, FRAME_UUID, bad))).toBe('EINVAL: ATT error 0x03 (Write Not Permitted)');
    await mem.clock.advance(100);
    expect(device.actions.ledState()).toEqual(ledBefore);
    expect(mem.ring.frames.length).toBe(framesBefore);
    expect(device.ui.screen()).toBe('status');
    expect(status(c)).toMatchObject({ seq: 1, frames: 1, last: RESULT.badText });
    // The next good frame clears the result.
    mem.ble.write(c, FRAME_UUID, encodeFrame(3, [{ type: RECORD.wake, body: new Uint8Array() }]));
    expect(status(c)).toMatchObject({ seq: 3, frames: 2, last: RESULT.ok });
  });

  it('reads and writes CONFIG: the device config keys, all or nothing', async () => {
    const { mem, device, status } = start();
    const c = mem.ble.pair(mem.ble.connect());
    const defaults: NotifierConfig = { ledBrightness: 128, attnHoldMs: 4000, sfxLvlN: 100, devName: '' };
    expect(mem.ble.read(c, CONFIG_UUID)).toEqual(encodeConfig(defaults));
    const write = Uint8Array.from([1, CONFIG_KEY.ledBrightness, 1, 40, CONFIG_KEY.attnHoldMs, 4, 0x10, 0x27, 0, 0, CONFIG_KEY.sfxLvlN, 1, 0, CONFIG_KEY.devName, 4, ...utf8('Desk')]);
    mem.ble.write(c, CONFIG_UUID, write);
    expect(mem.ble.read(c, CONFIG_UUID)).toEqual(encodeConfig({ ledBrightness: 40, attnHoldMs: 10_000, sfxLvlN: 0, devName: 'Desk' }));
    expect(device.actions.config('ledBrightness')).toBe(40);
    expect(device.actions.config('devName')).toBe('Desk');
    // One good key and one out of range: neither is saved.
    expect(refusal(() => mem.ble.write(c, CONFIG_UUID, Uint8Array.from([1, CONFIG_KEY.ledBrightness, 1, 99, CONFIG_KEY.sfxLvlN, 1, 101])))).toMatch(/^EINVAL/);
    expect(device.actions.config('ledBrightness')).toBe(40);
    expect(status(c).last).toBe(RESULT.badValue);
    await mem.clock.advance(10);
  });

  it('keeps its bond across a restart; FORGETBONDS drops it and writes are refused again', async () => {
    const first = start();
    first.mem.ble.pair(first.mem.ble.connect('aa:bb:cc:00:11:22'));
    first.device.stop();
    const again = start({ mem: rebootMemHal(first.mem) });
    expect(again.mem.ble.bonds()).toEqual(['aa:bb:cc:00:11:22']);
    const c = again.mem.ble.connect('aa:bb:cc:00:11:22');
    expect(c.bonded).toBe(true);
    again.mem.ble.write(c, FRAME_UUID, encodeFrame(5, [led(1, 9, 9, 9)]));
    expect(again.status(c)).toMatchObject({ bonded: true, seq: 5 });
    expect(await again.cmd('BONDS?')).toBe('bond=aa:bb:cc:00:11:22\nbonds=1\nOK\n');
    expect(await again.cmd('FORGETBONDS')).toBe('forgot 1 bond(s)\nOK\n');
    expect(await again.cmd('BONDS?')).toBe('bonds=0\nOK\n');
    const later = again.mem.ble.connect('aa:bb:cc:00:11:22');
    expect(later.bonded).toBe(false);
    expect(refusal(() => again.mem.ble.write(later, FRAME_UUID, encodeFrame(6, [led(1, 1, 1, 1)])))).toMatch(/^ETLS/);
  });
});

describe('the Bluetooth console commands', () => {
  it('BLE?, BLEMAC? and NSNFEED in Notifier mode', async () => {
    const { mem, device, cmd } = start();
    expect(await cmd('BLE?')).toBe(`ble=advertising name="Desk 3457" service=${NOTIFIER_SERVICE_UUID} bonds=0\nframes=0 seq=0 last=ok\nOK\n`);
    expect(await cmd('BLEMAC?')).toBe('mac=24:0a:c4:12:34:57\nOK\n');
    const frame = encodeFrame(42, [led(3, 0, 0, 255), { type: RECORD.notice, body: notice(0, 'Build', 'green') }]);
    expect(await cmd(`NSNFEED ${toHex(frame)}`)).toBe('applied seq=42: led pulse, notice\nOK\n');
    await mem.clock.advance(100);
    expect(device.actions.ledState()).toMatchObject({ mode: 'pulse', color: { r: 0, g: 0, b: 255 } });
    expect(device.ui.screen()).toBe('notice');
    expect(await cmd(`NSNFEED ${toHex(frame).slice(0, 14)}`)).toBe('ERR refused: truncated (the record header at byte 6 runs past the end); nothing changed\n');
    expect(await cmd('NSNFEED 0g')).toBe('ERR usage: NSNFEED <hex> (an even number of hex digits)\n');
    expect(await cmd('NSNFEED')).toBe('ERR usage: NSNFEED <hex> (an even number of hex digits)\n');
    mem.ble.pair(mem.ble.connect());
    expect(await cmd('BLE?')).toBe(
      `ble=connected name="Desk 3457" service=${NOTIFIER_SERVICE_UUID} bonds=1\ncentral=c0:ff:ee:00:00:01 bonded=yes\nframes=1 seq=42 last=truncated\nOK\n`,
    );
  });

  it('in Orchestrator mode the link is off: BLE? says so, NSNFEED refuses', async () => {
    const { mem, cmd } = start({ mode: 1 });
    expect(mem.ble.name).toBeNull();
    expect(await cmd('BLE?')).toBe('ble=off (the Notifier link runs in Notifier mode (MODE 0 switches to it)) bonds=0\nOK\n');
    expect(await cmd('NSNFEED 0100000000000000')).toBe('ERR the Notifier link runs in Notifier mode (MODE 0 switches to it)\n');
    expect(await cmd('BONDS?')).toBe('bonds=0\nOK\n');
  });
});

describe('the FRAME parser', () => {
  const ok = (bytes: Uint8Array) => {
    const r = parseFrame(bytes);
    if (!r.ok) throw new Error(r.reason);
    return r.frame;
  };
  const code = (bytes: Uint8Array | number[]) => {
    const r = parseFrame(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes));
    return r.ok ? 'ok' : r.code;
  };

  it('reads every record of version 1', () => {
    const f = ok(
      encodeFrame(0xfffffffe, [
        led(5, 1, 2, 3),
        { type: RECORD.anim, body: Uint8Array.from([1]) },
        { type: RECORD.notice, body: notice(65535, 'Ünïcødé 😀', 'two\nlines') },
        { type: RECORD.wake, body: new Uint8Array() },
      ]),
    );
    expect(f).toEqual({
      seq: 0xfffffffe,
      records: [
        { kind: 'led', mode: 'rainbow', color: { r: 1, g: 2, b: 3 }, brightness: null },
        { kind: 'anim', anim: 1, holdMs: null },
        { kind: 'notice', holdS: 65535, title: 'Ünïcødé 😀', body: 'two\nlines' },
        { kind: 'wake' },
      ],
    });
    expect(ok(encodeFrame(0, []))).toEqual({ seq: 0, records: [] });
  });

  it('refuses each malformed shape with its code', () => {
    expect(code([1, 0, 0, 0, 0])).toBe(RESULT.badLength);
    expect(code(new Uint8Array(MAX_VALUE_BYTES + 1).fill(0).map((_, i) => (i === 0 ? 1 : 0)))).toBe(RESULT.badLength);
    expect(code([2, 0, 0, 0, 0, 0])).toBe(RESULT.badVersion);
    expect(code([1, 1, 0, 0, 0, 0])).toBe(RESULT.badFlags);
    expect(code([1, 0, 0, 0, 0, 0, RECORD.wake, 0])).toBe(RESULT.truncated);
    expect(code([1, 0, 0, 0, 0, 0, RECORD.led, 5, 0, 1, 2])).toBe(RESULT.truncated);
    expect(code(encodeFrame(1, [{ type: 0x66, body: new Uint8Array() }]))).toBe(RESULT.unknownRecord);
    expect(code(encodeFrame(1, [{ type: RECORD.wake, body: new Uint8Array() }, { type: RECORD.wake, body: new Uint8Array() }]))).toBe(RESULT.duplicate);
    expect(code(encodeFrame(1, [led(6, 0, 0, 0)]))).toBe(RESULT.badValue);
    expect(code(encodeFrame(1, [{ type: RECORD.led, body: Uint8Array.from([1, 2, 3]) }]))).toBe(RESULT.badValue);
    expect(code(encodeFrame(1, [{ type: RECORD.anim, body: Uint8Array.from([5]) }]))).toBe(RESULT.badValue);
    expect(code(encodeFrame(1, [{ type: RECORD.anim, body: Uint8Array.from([1, 2]) }]))).toBe(RESULT.badValue);
    expect(code(encodeFrame(1, [{ type: RECORD.wake, body: Uint8Array.from([0]) }]))).toBe(RESULT.badValue);
    expect(code(encodeFrame(1, [{ type: RECORD.notice, body: notice(0, '', 'x') }]))).toBe(RESULT.badText);
    expect(code(encodeFrame(1, [{ type: RECORD.notice, body: notice(0, 'x'.repeat(49), '') }]))).toBe(RESULT.badText);
    expect(code(encodeFrame(1, [{ type: RECORD.notice, body: notice(0, 'ok', 'x'.repeat(401)) }]))).toBe(RESULT.badText);
    expect(code(encodeFrame(1, [{ type: RECORD.notice, body: notice(0, 'tab\there', '') }]))).toBe(RESULT.badText);
    expect(code(encodeFrame(1, [{ type: RECORD.notice, body: notice(0, 'ok', 'bell\u0007') }]))).toBe(RESULT.badText);
    expect(code(encodeFrame(1, [{ type: RECORD.notice, body: Uint8Array.from([0, 0, 4, 0x41, 0x42, 0x43]) }]))).toBe(RESULT.truncated);
    expect(code(encodeFrame(1, [{ type: RECORD.notice, body: Uint8Array.from([0, 0, 3, 0xed, 0xa0, 0x80]) }]))).toBe(RESULT.badText);
    expect(code(encodeFrame(1, [{ type: RECORD.notice, body: notice(0, 'a', '') }, { type: RECORD.clear, body: new Uint8Array() }]))).toBe(RESULT.conflict);
  });

  it('never throws, and answers ok or a refusal code, for any bytes (fuzz)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const r = parseFrame(bytes);
        expect(r.ok || (r.code > 0 && typeof r.reason === 'string')).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads back what a well-formed frame says, and survives every cut and flipped byte of one (fuzz)', () => {
    const record = fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 5 }), fc.uint8Array({ minLength: 3, maxLength: 4 })).map(([m, rest]) => ({ type: RECORD.led, body: Uint8Array.from([m, ...rest]) })),
      fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 65535 })).map(([a, h]) => ({ type: RECORD.anim, body: Uint8Array.from([a, h & 255, h >> 8]) })),
      fc
        .tuple(fc.integer({ min: 0, max: 65535 }), fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 60 }))
        .filter(([, t, b]) => !/[\u0000-\u001f\u007f]/.test(t) && !/[\u0000-\u0009\u000b-\u001f\u007f]/.test(b) && utf8(t).length <= 48)
        .map(([h, t, b]) => ({ type: RECORD.notice, body: notice(h, t, b) })),
    );
    fc.assert(
      fc.property(fc.uniqueArray(record, { maxLength: 3, selector: (r) => r.type }), fc.integer({ min: 0, max: 0xffffffff }), fc.nat(), fc.nat(255), (records, seq, where, value) => {
        const bytes = encodeFrame(seq, records);
        const r = parseFrame(bytes);
        expect(r.ok).toBe(true);
        expect(r.ok && r.frame.records.map((x) => x.kind)).toEqual(records.map((x) => ({ 1: 'led', 2: 'anim', 3: 'notice' })[x.type as 1 | 2 | 3]));
        expect(r.ok && r.frame.seq).toBe(seq);
        const cut = bytes.subarray(0, where % (bytes.length + 1));
        expect(() => parseFrame(cut)).not.toThrow();
        const flipped = bytes.slice();
        flipped[where % bytes.length] = value;
        expect(() => parseFrame(flipped)).not.toThrow();
      }),
      { numRuns: 1500 },
    );
  });

  it('a refused frame from a bonded central changes nothing on the device (fuzz)', async () => {
    const { mem, device } = start();
    const c = mem.ble.pair(mem.ble.connect());
    const good = encodeFrame(1, [led(1, 10, 20, 30, 40), { type: RECORD.notice, body: notice(0, 'Standing', 'by') }]);
    mem.ble.write(c, FRAME_UUID, good);
    await mem.clock.advance(100);
    const ledBefore = device.actions.ledState();
    const ringBefore = mem.ring.frames.length;
    const screen = device.ui.screen();
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 64 }), async (tail) => {
        // Header of version 1, then random records: most are refused.
        const bytes = Uint8Array.from([1, 0, 9, 0, 0, 0, ...tail]);
        if (parseFrame(bytes).ok) return;
        refused++;
        expect(() => mem.ble.write(c, FRAME_UUID, bytes)).toThrow();
        expect(device.actions.ledState()).toEqual(ledBefore);
        expect(mem.ring.frames.length).toBe(ringBefore);
        expect(device.ui.screen()).toBe(screen);
      }),
      { numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});

describe('the CONFIG parser and STATUS', () => {
  const code = (bytes: number[]) => {
    const r = parseConfigWrite(Uint8Array.from(bytes));
    return r.ok ? 'ok' : r.code;
  };

  it('refuses each malformed write with its code', () => {
    expect(code([])).toBe(RESULT.badLength);
    expect(code([2])).toBe(RESULT.badVersion);
    expect(code([1])).toBe(RESULT.empty);
    expect(code([1, CONFIG_KEY.ledBrightness])).toBe(RESULT.truncated);
    expect(code([1, CONFIG_KEY.ledBrightness, 2, 1])).toBe(RESULT.truncated);
    expect(code([1, CONFIG_KEY.ledBrightness, 1, 1, CONFIG_KEY.ledBrightness, 1, 2])).toBe(RESULT.duplicate);
    expect(code([1, 9, 1, 1])).toBe(RESULT.unknownRecord);
    expect(code([1, CONFIG_KEY.ledBrightness, 2, 1, 1])).toBe(RESULT.badValue);
    expect(code([1, CONFIG_KEY.attnHoldMs, 4, 0xc1, 0x27, 0x09, 0])).toBe(RESULT.badValue);
    expect(code([1, CONFIG_KEY.sfxLvlN, 1, 101])).toBe(RESULT.badValue);
    expect(code([1, CONFIG_KEY.devName, 0])).toBe(RESULT.badText);
    expect(code([1, CONFIG_KEY.devName, 2, 0xc3, 0x28])).toBe(RESULT.badText);
    expect(code([1, CONFIG_KEY.devName, 2, 0x41, 0x0a])).toBe(RESULT.badText);
    expect(code([1, CONFIG_KEY.devName, 2, 0x41, 0x20])).toBe(RESULT.badText);
    expect(code([1, CONFIG_KEY.devName, 32, ...new Array<number>(32).fill(0x41)])).toBe(RESULT.badText);
    expect(parseConfigWrite(Uint8Array.from([1, CONFIG_KEY.attnHoldMs, 4, 0xc0, 0x27, 0x09, 0]))).toEqual({ ok: true, change: { attnHoldMs: 600_000 } });
  });

  it('never throws for any bytes, and a read answers what a write would accept (fuzz)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(() => parseConfigWrite(bytes)).not.toThrow();
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(
        fc.record({ ledBrightness: fc.nat(255), attnHoldMs: fc.nat(600_000), sfxLvlN: fc.nat(100), devName: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ]{0,29}[A-Za-z0-9]$/) }),
        (c) => {
          expect(parseConfigWrite(encodeConfig(c))).toEqual({ ok: true, change: c });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('STATUS reads back as written', () => {
    const s = { bonded: true, notice: false, ring: true, hasBonds: true, seq: 0xffffffff, frames: 3, last: RESULT.conflict, firmware: 'v12.3.45' };
    expect(decodeStatus(encodeStatus(s))).toEqual({ version: 1, ...s });
    expect(decodeStatus(Uint8Array.from([1, 0, 0]))).toBeNull();
  });
});
