// The owner's time zone, the device's one local time (src/system/local-time.ts,
// ctx.time): the common zones held to the IANA database, setting a zone (bad
// input and a failed write change nothing), where it is kept (NVS sys/tz,
// surviving a reboot, erased by a factory reset, the scheduler's old key
// adopted once), GET and POST /api/timezone, and the turn prompt's now line
// (there while the clock is set, absent while it is not).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Store } from '../../../src/core/store.ts';
import { Log } from '../../../src/log/log.ts';
import type { RoundRequest, RoundResult } from '../../../src/contracts/index.ts';
import { LEGACY_TIME_NS, LocalTime, TIME_NS } from '../../../src/system/local-time.ts';
import { offsetAt, parseTz } from '../../../src/util/tz.ts';
import { COMMON_ZONES } from '../../../src/util/zones.ts';
import { flushJobs } from '../../support/clock.ts';
import { ianaOffset, ianaTransitions } from '../../support/iana.ts';
import { mountAssistant } from '../../support/assistant.ts';
import { deviceKernel } from '../../support/kernel.ts';
import { createMemHal, RebootSignal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { TestWire, turnResult } from '../../support/test-wire.ts';

const BERLIN = 'CET-1CEST,M3.5.0,M10.5.0/3';
const at = (y: number, mo: number, d: number, h = 0, mi = 0): number => Date.UTC(y, mo - 1, d, h, mi);

/** Every place a common zone names, as IANA zones. */
const PLACES: Record<string, string[]> = {
  Honolulu: ['Pacific/Honolulu'],
  Anchorage: ['America/Anchorage'],
  'Los Angeles': ['America/Los_Angeles', 'America/Vancouver'],
  Phoenix: ['America/Phoenix'],
  Denver: ['America/Denver', 'America/Edmonton'],
  Chicago: ['America/Chicago', 'America/Winnipeg'],
  'New York': ['America/New_York', 'America/Toronto'],
  'São Paulo': ['America/Sao_Paulo', 'America/Argentina/Buenos_Aires'],
  UTC: ['UTC'],
  London: ['Europe/London', 'Europe/Dublin', 'Europe/Lisbon'],
  Berlin: ['Europe/Berlin', 'Europe/Paris', 'Europe/Rome', 'Europe/Madrid'],
  Athens: ['Europe/Athens', 'Europe/Helsinki', 'Europe/Kyiv'],
  Moscow: ['Europe/Moscow'],
  Dubai: ['Asia/Dubai'],
  India: ['Asia/Kolkata'],
  Bangkok: ['Asia/Bangkok', 'Asia/Jakarta'],
  China: ['Asia/Shanghai', 'Asia/Singapore'],
  Japan: ['Asia/Tokyo'],
  Sydney: ['Australia/Sydney', 'Australia/Melbourne'],
  Auckland: ['Pacific/Auckland'],
};

// Generous: tests must not fail because a shared machine is slow.
describe('the common zones', { timeout: 60_000 }, () => {
  it('agree with the IANA database, for every place they name, at every change of offset and at random instants from 2024 to 2031', () => {
    expect(COMMON_ZONES.map((z) => z.name).sort()).toEqual(Object.keys(PLACES).sort());
    for (const z of COMMON_ZONES) {
      const r = parseTz(z.tz);
      expect(r.ok, z.tz).toBe(true);
      if (!r.ok) continue;
      for (const iana of PLACES[z.name]!) {
        // Every change of offset, to the second (a change an hour off would slip between random instants).
        for (const t of ianaTransitions(iana, at(2024, 1, 1), at(2031, 12, 31))) {
          expect(offsetAt(r.tz, t - 1000), `${z.name} as ${iana} just before ${new Date(t).toISOString()}`).toBe(ianaOffset(iana, t - 1000));
          expect(offsetAt(r.tz, t), `${z.name} as ${iana} at ${new Date(t).toISOString()}`).toBe(ianaOffset(iana, t));
        }
        fc.assert(
          fc.property(fc.integer({ min: at(2024, 1, 1), max: at(2031, 12, 31) }), (ms) => {
            expect(offsetAt(r.tz, ms), `${z.name} as ${iana} at ${new Date(ms).toISOString()}`).toBe(ianaOffset(iana, ms));
          }),
          { numRuns: 100 },
        );
      }
    }
  });

  it('run west to east (a tap on the menu moves east), and name themselves on the screen', () => {
    const offsets = COMMON_ZONES.map((z) => (parseTz(z.tz) as { ok: true; tz: { std: { offset: number } } }).tz.std.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    const mem = createMemHal({ wallMs: at(2026, 7, 1, 12) });
    const time = new LocalTime(mem.clock, new Store(mem.nvs, TIME_NS), new Log(mem.clock, mem.system));
    const labels = COMMON_ZONES.map((z) => (time.set(z.tz), time.label()));
    expect(labels).toEqual(['HST', 'AKDT', 'PDT', 'MST', 'MDT', 'CDT', 'EDT', 'UTC-3', 'UTC', 'BST', 'CEST', 'EEST', 'MSK', 'UTC+4', 'IST', 'UTC+7', 'CST', 'JST', 'AEST', 'NZST']);
  });
});

function service(mem: MemHal): LocalTime {
  return new LocalTime(mem.clock, new Store(mem.nvs, TIME_NS), new Log(mem.clock, mem.system), new Store(mem.nvs, LEGACY_TIME_NS));
}

describe('the owner\'s time zone', () => {
  it('is UTC until set; a zone that does not parse, or a failed write, changes nothing; a change is kept and told', () => {
    const mem = createMemHal({ wallMs: at(2026, 3, 29, 0, 59) });
    const time = service(mem);
    const seen: string[] = [];
    time.onChange((z) => seen.push(z.text));
    expect(time.zone().text).toBe('UTC0');
    expect(time.nowStamp()).toBe('Sun 2026-03-29 00:59 UTC');
    for (const bad of ['Europe/Berlin', 'CET', 'CET-1CEST,M3.5.0', `${'A'.repeat(70)}0`]) {
      const r = time.set(bad);
      expect(r).toMatchObject({ ok: false, code: 'bad-input' });
    }
    mem.nvs.capacity = 0;
    expect(time.set(BERLIN)).toMatchObject({ ok: false, code: 'storage', message: expect.stringMatching(/not saved/) });
    expect(time.zone().text).toBe('UTC0');
    expect(mem.nvs.get(TIME_NS, 'tz')).toBeUndefined();
    expect(seen).toEqual([]);
    mem.nvs.capacity = 2000;
    expect(time.set(` ${BERLIN} `)).toMatchObject({ ok: true, changed: true });
    expect(time.set(BERLIN)).toMatchObject({ ok: true, changed: false });
    expect(seen).toEqual([BERLIN]);
    expect(mem.nvs.get(TIME_NS, 'tz')).toBe(BERLIN);
    // Local fields, daylight saving, the label and the offset.
    expect(time.local()).toMatchObject({ h: 1, mi: 59, abbr: 'CET', label: 'CET', offset: 3600, dst: false });
    expect(time.nowStamp()).toBe('Sun 2026-03-29 01:59 CET (UTC+01:00)');
    mem.clock.setWall(at(2026, 3, 29, 1));
    expect(time.local()).toMatchObject({ h: 3, mi: 0, label: 'CEST', offset: 7200, dst: true });
    expect(time.nowStamp()).toBe('Sun 2026-03-29 03:00 CEST (UTC+02:00)');
    mem.clock.setWall(at(2026, 3, 29, 1), false);
    expect(time.nowStamp()).toBeNull();
    // After a restart the zone is read back.
    expect(service(rebootMemHal(mem)).zone().text).toBe(BERLIN);
  });

  it('adopts the scheduler\'s old setting once (unless a zone is already set) and removes it', () => {
    const mem = createMemHal();
    mem.nvs.set(LEGACY_TIME_NS, 'tz', 'EST5EDT,M3.2.0,M11.1.0');
    expect(service(mem).zone().text).toBe('EST5EDT,M3.2.0,M11.1.0');
    expect(mem.nvs.get(LEGACY_TIME_NS, 'tz')).toBeUndefined();
    expect(mem.nvs.get(TIME_NS, 'tz')).toBe('EST5EDT,M3.2.0,M11.1.0');
    // A power cut between the two writes left both: the device's own setting wins.
    mem.nvs.set(LEGACY_TIME_NS, 'tz', 'JST-9');
    expect(service(mem).zone().text).toBe('EST5EDT,M3.2.0,M11.1.0');
    expect(mem.nvs.get(LEGACY_TIME_NS, 'tz')).toBeUndefined();
    // One that does not parse is dropped; UTC stays.
    const fresh = createMemHal();
    fresh.nvs.set(LEGACY_TIME_NS, 'tz', 'Europe/Paris');
    expect(service(fresh).zone().text).toBe('UTC0');
    expect(fresh.nvs.get(LEGACY_TIME_NS, 'tz')).toBeUndefined();
  });

  it('offers the menu the common zones and the custom one set on the web, by its abbreviation, in its place by offset', () => {
    const mem = createMemHal();
    const time = service(mem);
    expect(time.choices().map((c) => c.name)).toEqual(COMMON_ZONES.map((z) => z.name));
    // UTC and EST5EDT without rules are common zones written otherwise, not custom ones.
    time.set('UTC');
    time.set('EST5EDT');
    expect(time.choices()).toHaveLength(COMMON_ZONES.length);
    time.set('<+0545>-5:45');
    const names = time.choices().map((c) => c.name);
    expect(names.slice(names.indexOf('India'), names.indexOf('Bangkok') + 1)).toEqual(['India', 'UTC+5:45', 'Bangkok']);
    // Stepping on to a common zone keeps the custom one on offer, after a restart too.
    time.set('JST-9');
    expect(service(rebootMemHal(mem)).choices().filter((c) => c.custom).map((c) => c.zone.text)).toEqual(['<+0545>-5:45']);
  });
});

class NowWire extends TestWire {
  systems: string[] = [];
  protected override answer(req: RoundRequest): RoundResult {
    // The whole prompt: its system items (the stable part, then the changing part).
    this.systems.push(req.transcript.flatMap((t) => (t.kind === 'system' ? [t.text] : [])).join('\n\n'));
    return turnResult({ reply: 'ok' });
  }
}

/** The owner's local time where it shows, on a device kernel: the system (/api/timezone, FACTRESET) under the assistant's stack (the prompt's manifest; the test's wire). */
function boot(mem: MemHal, options: { wire: NowWire }) {
  const dk = deviceKernel({ mem });
  const { assistant, system } = mountAssistant(dk, options);
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token, time: system.time }, assistant, stop: () => dk.stop() };
}

type Device = ReturnType<typeof boot>;

function device(options: { wallMs?: number; synced?: boolean; mem?: MemHal } = {}): { mem: MemHal; device: Device; wire: NowWire } {
  const mem = options.mem ?? createMemHal({ ...(options.wallMs !== undefined ? { wallMs: options.wallMs } : {}), ...(options.synced !== undefined ? { synced: options.synced } : {}) });
  if (!options.mem) {
    mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
    mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
  }
  const wire = new NowWire();
  return { mem, device: boot(mem, { wire }), wire };
}

async function api(d: Device, method: 'GET' | 'POST', fields?: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = fields ? new URLSearchParams(fields).toString() : '';
  const headers = new Map([['x-device-token', d.ctx.token.reveal()], ['content-type', 'application/x-www-form-urlencoded']]);
  const res = await d.ctx.router.handle({ method, path: '/api/timezone', query: '', headers, body: new TextEncoder().encode(body), remote: 'test' });
  return { status: res.status, json: JSON.parse(String(res.body)) as Record<string, unknown> };
}

describe('on the device', () => {
  it('GET and POST /api/timezone keep the web page\'s shapes; a factory reset erases the zone', async () => {
    const { mem, device: d } = device({ wallMs: at(2026, 7, 1, 12) });
    expect((await api(d, 'GET')).json).toEqual({ tz: 'UTC0', now: 'Wed 2026-07-01 12:00 UTC', offset: '+00:00', abbr: 'UTC', label: 'UTC', dst: false, synced: true });
    expect(await api(d, 'POST', { tz: 'Europe/Berlin' })).toMatchObject({ status: 400, json: { error: 'bad-input', message: expect.stringMatching(/is not a POSIX time zone/) } });
    expect(await api(d, 'POST', {})).toMatchObject({ status: 400, json: { error: 'bad-request' } });
    expect(await api(d, 'POST', { tz: BERLIN })).toEqual({
      status: 200,
      json: { tz: BERLIN, now: 'Wed 2026-07-01 14:00 CEST', offset: '+02:00', abbr: 'CEST', label: 'CEST', dst: true, synced: true, message: `The time zone is ${BERLIN}; it is Wed 2026-07-01 14:00 CEST.` },
    });
    expect(await api(d, 'POST', { tz: '<-03>3' })).toMatchObject({ status: 200, json: { abbr: '-03', label: 'UTC-3', now: 'Wed 2026-07-01 09:00 UTC-3' } });
    expect(mem.nvs.get('sys', 'tz')).toBe('<-03>3');
    mem.serial.type('FACTRESET\r\n');
    for (let i = 0; i < 6; i++) await flushJobs();
    await expect(mem.clock.advance(500)).rejects.toBeInstanceOf(RebootSignal);
    const after = device({ mem: rebootMemHal(mem) });
    expect(after.device.ctx.time.zone().text).toBe('UTC0');
  });

  it('the turn prompt carries the owner\'s local date and time while the clock is set (at the head of the changing part, after the stable manifest), and none while it is not', async () => {
    const { mem, device: d, wire } = device({ wallMs: at(2026, 3, 29, 0, 59) });
    expect(d.ctx.time.set(BERLIN).ok).toBe(true);
    await d.assistant.ownerTurn('console', 'what time is it?', 'console');
    const nowLine = (s: string): string => s.split('\n').find((l) => l.startsWith('Now: '))!;
    expect(nowLine(wire.systems[0]!)).toBe("Now: Sun 2026-03-29 01:59 CET (UTC+01:00), the owner's local time.");
    expect(wire.systems[0]!.indexOf('Now: ')).toBeGreaterThan(wire.systems[0]!.indexOf('[CAPABILITIES]'));
    await mem.clock.advance(60_000);
    await d.assistant.ownerTurn('console', 'and now?', 'console');
    expect(nowLine(wire.systems[1]!)).toBe("Now: Sun 2026-03-29 03:00 CEST (UTC+02:00), the owner's local time.");
    // A tight budget trims the manifest from its end, down to its floor; the now line is a block of its own, never trimmed.
    const tight = await d.assistant.blocks.assemble({ chat: 'console', person: null, text: 'x', memQueries: [], unattended: false }, 1000, 0);
    const caps = tight.sections.find((s) => s.name === 'capabilities')!;
    expect(caps.sent).toBeLessThan(caps.offered);
    expect(tight.sections.find((s) => s.name === 'now')!.text).toMatch(/^Now: Sun 2026-03-29 03:00 CEST/);
    expect(tight.stable).not.toContain('Now: ');

    const unset = device({ synced: false });
    await unset.device.assistant.ownerTurn('console', 'what time is it?', 'console');
    expect(unset.wire.systems[0]).toContain('[CAPABILITIES]\nDevice: ');
    expect(unset.wire.systems[0]).not.toMatch(/^Now: /m);
  });
});
