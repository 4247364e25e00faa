// The episodic log on the in-memory HAL: rows and their validation, day
// files, the bounded boot scan into the hot window, cold scans with a
// continue cursor, the rings without a card and after the card is pulled,
// torn tails, retention, the route, the tool and the console.
import { describe, expect, it } from 'vitest';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { sha256Fallback } from '../../../modules/sha256/sha256.ts';
import { Log } from '../../../src/log/log.ts';
import { EpisodicLog } from '../../../src/memory/episodic.ts';
import { Ring } from '../../../src/memory/episodic-ring.ts';
import { readForward } from '../../../src/memory/frames.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { bootMemory as boot, type MemoryDevice as Device } from './rig.ts';

const OWNER: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };
const HOUR = 3600_000;
const DAY = 24 * HOUR;

function start(options: Parameters<typeof createMemHal>[0] = {}): { mem: MemHal; device: Device } {
  const mem = createMemHal(options);
  return { mem, device: boot(mem) };
}

function again(mem: MemHal): { mem: MemHal; device: Device } {
  const next = rebootMemHal(mem, 'power-on');
  return { mem: next, device: boot(next) };
}

function fill(device: Device, n: number, text = (i: number) => `row ${i} ${'lorem ipsum '.repeat(4)}`, session = 'main'): void {
  for (let i = 0; i < n; i++) device.ctx.memory.episodic.append({ session, role: i % 2 ? 'assistant' : 'creator', kind: 'message', text: text(i) });
}

describe('the hot window in RAM', () => {
  it('grows as rows come, keeps them newest first across its growth and its wrap, and bounds rows and bytes', () => {
    const ring = new Ring(200, 10_000);
    for (let i = 0; i < 150; i++) ring.push(`r${i}`, i, { day: 1, off: i });
    expect(ring.count).toBe(150);
    expect(ring.at(0)).toEqual({ json: 'r149', ts: 149, pos: { day: 1, off: 149 } });
    expect(ring.oldest()).toEqual({ json: 'r0', ts: 0, pos: { day: 1, off: 0 } });
    for (let i = 150; i < 450; i++) ring.push(`r${i}`, i, null);
    expect(ring.count).toBe(200);
    expect([ring.at(0).json, ring.at(199).json]).toEqual(['r449', 'r250']);
    const bytes = new Ring(4000, 100);
    expect(bytes.push('x'.repeat(60), 1, null)).toBe(0);
    expect(bytes.push('y'.repeat(60), 2, null)).toBe(1);
    expect([bytes.count, bytes.at(0).json.length]).toEqual([1, 60]);
  });
});

describe('episodic rows', () => {
  it('appends checksummed rows to a per-day file and reads them back newest first after a reboot', async () => {
    const { mem, device } = start();
    const log = device.ctx.memory.episodic;
    const row = log.append({ session: 'chat:1', role: 'creator', kind: 'message', text: 'hello there', tags: ['greeting'] });
    expect(row).toMatchObject({ id: expect.stringMatching(/^e[0-9a-f]{12}$/), session: 'chat:1', role: 'creator', kind: 'message', text: 'hello there', blobPath: '', tags: ['greeting'] });
    log.append({ session: 'chat:1', role: 'assistant', kind: 'llm_response', text: 'hi!' });
    expect(mem.sd.list('/mem/epi').map((e) => e.name)).toEqual(['20261122.log']);
    const { device: d2 } = again(mem);
    const page = d2.ctx.memory.episodic.query({ limit: 10, session: 'chat:1' });
    expect(page.rows.map((r) => r.text)).toEqual(['hi!', 'hello there']);
    expect(page).toMatchObject({ olderExists: false, nextBefore: null });
  });

  it('finds rows by their words in any order and form, or by the text as written', () => {
    const { device } = start();
    const log = device.ctx.memory.episodic;
    log.append({ session: 'main', role: 'creator', kind: 'message', text: 'We walked the dogs along the river on Sunday' });
    log.append({ session: 'main', role: 'assistant', kind: 'message', text: 'The river walk sounds lovely' });
    const words = (text: string) => log.query({ limit: 10, session: 'main', text }).rows.map((r) => r.text);
    expect(words('dog walking')).toEqual(['We walked the dogs along the river on Sunday']);
    expect(words('RIVER walk')).toHaveLength(2);
    expect(words('cats')).toEqual([]);
    expect(words('ong the riv')).toEqual(['We walked the dogs along the river on Sunday']);
  });

  it('refuses bad rows with a clear error and appends nothing', () => {
    const { device } = start();
    const log = device.ctx.memory.episodic;
    expect(() => log.append({ role: 'robot' as never, kind: 'message', text: 'x' })).toThrow(/role must be one of creator, assistant, system, tool/);
    expect(() => log.append({ role: 'tool', kind: 'tweet' as never, text: 'x' })).toThrow(/kind must be one of/);
    expect(() => log.append({ role: 'tool', kind: 'log', text: 'x', tags: ['a'.repeat(40)] })).toThrow(/tags must be/);
    expect(log.hotRows).toBe(1); // the boot's own timeline row
  });

  it('writes the device timeline rows in session system, kind log', () => {
    const { device } = start();
    const page = device.ctx.memory.episodic.query({ limit: 10, session: 'system' });
    expect(page.rows[0]).toMatchObject({ role: 'system', kind: 'log', text: expect.stringMatching(/^restart: v0\.1\.0 started \(reset reason: power-on\)$/) });
  });

  it('bounds the boot scan by rows and by bytes, newest first, and continues with cold scans of about 128 KB', async () => {
    const { mem, device } = start();
    fill(device, 4300, (i) => `bulk row number ${i} ${'x'.repeat(20)}`);
    const { device: d2 } = again(mem);
    const log = d2.ctx.memory.episodic;
    // Rows of ~100 bytes: the 256 KB bound stops the scan before 4000 rows.
    expect(log.hotRows).toBeGreaterThan(2000);
    expect(log.hotRows).toBeLessThan(4000);
    expect(log.truncated).toBe(true);
    expect(d2.ctx.memory.stats()).toMatchObject({ epiTruncated: true, blobCount: log.hotRows, blobFiles: 1, epiFloor: expect.any(Number) });
    const hot = log.query({ limit: 5, text: 'bulk row number 1 ' });
    expect(hot.rows).toEqual([]);
    expect(hot.olderExists).toBe(true);
    expect(hot.nextBefore).toMatch(/^20261122\.\d+$/);
    // Cold scans from the floor find the rows below the hot window, ~128 KB per call.
    let page = log.coldScan({ limit: 100 }, null);
    expect(page.rows.length).toBe(100);
    let seen = page.rows.length;
    let calls = 1;
    for (; calls < 50 && page.nextBefore; calls++) {
      page = log.coldScan({ limit: 100 }, page.nextBefore);
      seen += page.rows.length;
    }
    expect(seen).toBe(4300 + 2 - log.hotRows); // the bulk rows and the two boots' timeline rows
    expect(page).toMatchObject({ olderExists: false, nextBefore: null });
    let found = log.coldScan({ limit: 5, text: 'bulk row number 1 ' }, hot.nextBefore);
    while (!found.rows.length && found.nextBefore) found = log.coldScan({ limit: 5, text: 'bulk row number 1 ' }, found.nextBefore);
    expect(found.rows.map((r) => r.text)).toEqual([`bulk row number 1 ${'x'.repeat(20)}`]);
    expect(() => log.coldScan({ limit: 5 }, 'not-a-cursor')).toThrow(/before must be a cursor/);
  });

  it('stops the boot scan at the row bound when rows are small', () => {
    const mem = createMemHal();
    const deps = { sd: mem.hal.sd, cardLive: () => true, sha: sha256Fallback, clock: mem.clock, log: new Log(mem.clock, mem.system), random: (b: Uint8Array) => mem.system.random(b) };
    const first = new EpisodicLog(deps);
    first.attach();
    for (let i = 0; i < 150; i++) first.append({ role: 'tool', kind: 'log', text: `r${i}` });
    const byRows = new EpisodicLog({ ...deps, bootRows: 100 });
    byRows.attach();
    expect([byRows.hotRows, byRows.truncated]).toEqual([100, true]);
    expect(byRows.query({ limit: 1 }).rows[0]!.text).toBe('r149');
    const byBytes = new EpisodicLog({ ...deps, bootBytes: 4096 });
    byBytes.attach();
    expect(byBytes.hotRows).toBeLessThan(100);
    expect(byBytes.truncated).toBe(true);
    const all = new EpisodicLog(deps);
    all.attach();
    expect([all.hotRows, all.truncated]).toEqual([150, false]);
  });

  it('drops a torn tail of a day file at boot', async () => {
    const { mem, device } = start();
    fill(device, 10);
    const f = mem.sd.open('/mem/epi/20261122.log', 'a');
    f.write(new Uint8Array([50, 0, 0, 0, 1, 2, 3, 4, 5]));
    f.sync();
    const { mem: m2, device: d2 } = again(mem);
    const check = readForward(m2.sd, '/mem/epi/20261122.log', 0, { sha: sha256Fallback, window: 8192, maxPayload: 8192 }, () => true);
    expect(check.torn).toBe(false);
    expect(d2.ctx.memory.episodic.query({ limit: 100, session: 'main' }).rows.length).toBe(10);
    d2.ctx.memory.episodic.append({ role: 'tool', kind: 'tool_output', text: 'after repair' });
    const { device: d3 } = again(m2);
    expect(d3.ctx.memory.episodic.query({ limit: 1, kind: 'tool_output' }).rows[0]!.text).toBe('after repair');
  });

  it('keeps 500 rows in RAM without a card', () => {
    const { device } = start({ sd: { present: false } });
    fill(device, 520);
    const log = device.ctx.memory.episodic;
    expect(log.degraded).toBe(true);
    expect(log.hotRows).toBe(500);
    expect(log.query({ limit: 1 }).rows[0]!.text).toMatch(/^row 519 /);
    expect(() => log.coldScan({ limit: 1 }, null)).toThrow(/needs an SD card/);
  });

  it('holds up to 256 rows in the demote ring while the card is out and writes them when it is back', async () => {
    const { mem, device } = start();
    fill(device, 5, (i) => `before ${i}`);
    mem.sd.pull();
    fill(device, 300, (i) => `while out ${i}`);
    const log = device.ctx.memory.episodic;
    expect(log.degraded).toBe(true);
    mem.sd.insert();
    await mem.clock.advance(30_000); // the card poll finds it again
    expect(log.degraded).toBe(false);
    const { device: d2 } = again(mem);
    const texts = d2.ctx.memory.episodic.query({ limit: 100, session: 'main', text: 'while out' }).rows.map((r) => r.text);
    expect(texts.length).toBe(100);
    expect(texts[0]).toBe('while out 299');
    const all = d2.ctx.memory.episodic.query({ limit: 100, session: 'main' });
    expect(d2.ctx.memory.episodic.hotRows).toBeGreaterThanOrEqual(256 + 5);
    expect(all.rows.length).toBe(100);
    // The oldest 44 rows written while out did not fit the 256-row ring.
    const page = d2.ctx.memory.episodic.query({ limit: 100, text: 'while out 43' });
    expect(page.rows.filter((r) => r.text === 'while out 43')).toEqual([]);
    expect(d2.ctx.memory.episodic.query({ limit: 100, text: 'while out 44' }).rows.map((r) => r.text)).toContain('while out 44');
  });

  it('removes day files past 30 days on the 6-hour tick', async () => {
    const { mem, device } = start();
    fill(device, 3, (i) => `old day ${i}`);
    mem.clock.setWall(mem.clock.wallMs() + 31 * DAY);
    fill(device, 2, (i) => `new day ${i}`);
    expect(mem.sd.list('/mem/epi').length).toBe(2);
    await mem.clock.advance(6 * HOUR + 1);
    expect(mem.sd.list('/mem/epi').map((e) => e.name)).toEqual(['20261223.log']);
  });
});

describe('GET /api/mem/episodic, memory.episodic and EPIQ', () => {
  it('answers rows newest first with searchedTo, olderExists and nextBefore, and a cold scan from the cursor', async () => {
    const { mem, device } = start();
    fill(device, 4100, (i) => `api row ${i} ${i % 10 === 0 ? 'needle' : 'hay'}`);
    const { mem: m2, device: d2 } = again(mem);
    const token = d2.ctx.token.reveal();
    const get = async (q: string) => {
      const r = await request(m2.net, HTTP_PORT, 'GET', `/api/mem/episodic?${q}`, { headers: { 'X-Device-Token': token } });
      return { status: r.status, body: JSON.parse(r.body) as Record<string, unknown> & { rows: Array<{ text: string; ts: number }> } };
    };
    const hot = await get('kind=message&limit=3');
    expect(hot.status).toBe(200);
    expect(hot.body.rows.map((r) => r.text)).toEqual(['api row 4099 hay', 'api row 4098 hay', 'api row 4097 hay']);
    expect(hot.body).toMatchObject({ cold: false, olderExists: true, nextBefore: expect.stringMatching(/^20261122\.\d+$/), searchedTo: expect.any(Number) });
    const needles: string[] = [];
    let page = await get(`cold=1&text=needle&limit=5`);
    expect(page.body.cold).toBe(true);
    for (let i = 0; i < 40; i++) {
      needles.push(...page.body.rows.map((r) => r.text));
      const next = page.body['nextBefore'] as string | null;
      if (!next) break;
      page = await get(`before=${next}&text=needle&limit=5`);
    }
    expect(page.body).toMatchObject({ olderExists: false, nextBefore: null });
    const below = Number(/^api row (\d+)/.exec(hot.body.rows[0]!.text)![1]) - d2.ctx.memory.episodic.hotRows;
    const want: string[] = [];
    for (let i = below; i >= 0; i--) if (i % 10 === 0) want.push(`api row ${i} needle`);
    expect(needles).toEqual(want);
    expect((await get('since_hours=abc')).status).toBe(400);
    expect((await get('before=zzz')).status).toBe(400);
    const blob = await request(m2.net, HTTP_PORT, 'GET', '/api/mem/blob?kind=log&limit=5', { headers: { 'X-Device-Token': token } });
    expect(JSON.parse(blob.body).rows[0]).toMatchObject({ kind: 'log', session: 'system' });
  });

  it('memory.episodic searches hot then cold and ends with a continue line; other people see only their chat', async () => {
    const { mem, device } = start();
    fill(device, 4100, (i) => `tool row ${i} ${i === 5 ? 'the lost umbrella' : 'filler'}`, 'chat:alice');
    const { device: d2 } = again(mem);
    let r = await d2.ctx.tools.call('memory.episodic', { text: 'umbrella', limit: 3 }, OWNER);
    for (let i = 0; i < 20 && !r.output.includes('umbrella'); i++) {
      const last = r.output.split('\n').pop()!;
      expect(last).toMatch(/^next: before=\d{8}\.\d+ /);
      r = await d2.ctx.tools.call('memory.episodic', { text: 'umbrella', limit: 3, before: /before=(\S+)/.exec(last)![1] }, OWNER);
    }
    expect(r.success).toBe(true);
    const lines = r.output.split('\n');
    expect(lines[0]).toMatch(/^- \[2026-11-22 09:00\] assistant\/message \(chat:alice\): tool row 5 the lost umbrella$/);
    expect(lines[lines.length - 1]).toMatch(/^next: (none|before=\d{8}\.\d+)/);
    const bob = await d2.ctx.tools.call('memory.episodic', { text: 'umbrella' }, { ...OWNER, admin: false, person: 'chat:bob' });
    expect(bob.output.split('\n')[0]).toBe('No matching rows.');
  });

  it('EPIQ searches from the console, with an @cursor for cold scans', async () => {
    const { mem, device } = start();
    fill(device, 3, (i) => `console row ${i}`);
    mem.serial.take();
    mem.serial.type('EPIQ console row 1\r\n');
    await flushJobs();
    expect(mem.serial.take()).toMatch(/^2026-11-22 09:00 main assistant\/message: console row 1\r\nrows=1 searchedTo=2026-11-22 09:00 olderExists=0 next=-\r\nOK\r\n$/);
    mem.serial.type('EPIQ @20261123.0 console\r\n');
    await flushJobs();
    expect(mem.serial.take()).toMatch(/^(.*console row.*\r\n){3}rows=3 .*\r\nOK\r\n$/);
    mem.serial.type('MEMFILL epi 30 64\r\n');
    await mem.clock.advance(5);
    expect(mem.serial.take()).toMatch(/epi 30 written \(30 new\)/);
  });
});
