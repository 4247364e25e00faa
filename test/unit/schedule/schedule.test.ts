// Routines, wakeups and reminders on the in-memory HAL with the virtual
// clock, the Bot API fake (the owner's chat) and a scripted provider wire:
// every transition of the approval table (loop.create, approve, off, on,
// deny, loop.cancel; wakeup.set in auto and ask mode, approve, cancel;
// /remind, /loop deny), runs on the virtual clock in the owner's time zone,
// the missed-run rule across a reboot, the 4-wakeup limit, the retry and
// alert path, the unattended rails of scheduled turns, and persistence
// across reboots.
import { describe, expect, it } from 'vitest';
import { mount, ready } from '../../../src/core/subsystem.ts';
import { mcp } from '../../../src/mcp/index.ts';
import { schedule } from '../../../src/schedule/index.ts';
import { skills } from '../../../src/skills/index.ts';
import type { TurnWire } from '../../../src/turn/index.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import type { RoundRequest, RoundResult } from '../../../src/contracts/index.ts';
import type { BotApiFake } from '../../../tools/telegram-fake.mjs';
import { request } from '../../support/http.ts';
import { lastUserText, TestWire, turnResult } from '../../support/test-wire.ts';
import { mountMessenger } from '../../support/assistant.ts';
import { deviceKernel, HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { fakeTelegram, serveTelegram } from '../../support/telegram-net.ts';

const TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
const OWNER = '1001';
const MEMBER = '2002';
const MIN = 60_000;
const HOUR = 60 * MIN;
const SIGNED = /\n\n— Desk assistant · firmware v0\.1\.0$/;

const MCP: ToolCaller = { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null };
const SCHEDULED: ToolCaller = { via: 'turn', admin: true, scheduled: true, unattended: true, person: null };
const SYNTHESIS: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: true, person: null };
const OWNER_TURN: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };

const turn = turnResult;
const userText = lastUserText;

/** Answers every turn with a reply naming what woke it; fails while `down`; scripted steps first. */
class Wire extends TestWire {
  down = false;
  override async round(req: RoundRequest): Promise<RoundResult> {
    if (!this.down) return super.round(req);
    this.seen.push(req);
    return { kind: 'error', error: 'transport', message: 'connection refused' };
  }
  protected override answer(req: RoundRequest): RoundResult {
    const text = userText(req);
    const what = /\[ROUTINE\] (.*)$/m.exec(text)?.[1] ?? /\[NOTE\] (.*)$/m.exec(text)?.[1] ?? text;
    return turn({ reply: `done: ${what}` });
  }
  /** The user texts of scheduled turns (a turn's later rounds and same-provider retry repeat its text). */
  scheduled(): string[] {
    const texts = this.seen.map(userText).filter((t) => t.startsWith('[SYSTEM] Scheduled routine') || t.startsWith('[SYSTEM] Wakeup'));
    return texts.filter((t, i) => t !== texts[i - 1]);
  }
}

/**
 * The scheduler on a device kernel, mounted as main.ts mounts it: over the chat messenger and a real turn (the test's
 * wire; test/support/assistant.ts) and the skills, in the owner's zone (the system's local time, /api/timezone);
 * /mcp beside it.
 */
function boot(mem: MemHal, options: { wire: TurnWire }) {
  const dk = deviceKernel({ mem });
  const { assistant, system, chat, parts, outbox } = mountMessenger(dk, options);
  // The skills (skill.save's unattended rail) before the scheduler, as in main.ts; no sub-agent fabric runs here.
  mount(dk.kernel, skills, { card: system.card, sha256: parts.hotspots.sha256, outbox, commands: ready(chat.commands) });
  const scheduler = mount(dk.kernel, schedule, { engine: assistant.engine, time: system.time, chat });
  mount(dk.kernel, mcp, {});
  dk.start();
  return {
    ctx: { ...dk.kernel, token: dk.token, actions: system.actions },
    stop: () => {
      scheduler.stop();
      chat.stop();
      dk.stop();
    },
  };
}

type Device = ReturnType<typeof boot>;

interface Rig {
  mem: MemHal;
  device: Device;
  bot: BotApiFake;
  wire: Wire;
  token: string;
}

function setup(options: { synced?: boolean; wallMs?: number; allow?: string[] } = {}): Rig {
  const mem = createMemHal({ ...(options.synced !== undefined ? { synced: options.synced } : {}), ...(options.wallMs !== undefined ? { wallMs: options.wallMs } : {}) });
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
  mem.nvs.set('orch', 'priority', 'anthropic');
  mem.nvs.set('chat', 'token', TOKEN);
  mem.nvs.set('chat', 'allow', (options.allow ?? [OWNER, MEMBER]).join(','));
  const rig = { mem, wire: new Wire() } as Rig;
  rig.bot = fakeTelegram(mem.net, () => rig.mem.clock);
  rig.device = boot(mem, { wire: rig.wire });
  rig.token = rig.device.ctx.token.reveal();
  return rig;
}

/** Reboots onto the same NVS and card; the device was off for `offMs` (the new wall clock starts that much later). */
function reboot(rig: Rig, offMs = 0, synced = true): void {
  const wall = rig.mem.clock.wallMs() + offMs;
  rig.device.stop();
  rig.mem = rebootMemHal(rig.mem);
  rig.mem.clock.setWall(wall, synced);
  serveTelegram(rig.bot, rig.mem.net);
  rig.device = boot(rig.mem, { wire: rig.wire });
  rig.token = rig.device.ctx.token.reveal();
}

async function advance(rig: Rig, ms: number): Promise<void> {
  await rig.mem.clock.advance(ms);
}

async function api(rig: Rig, method: string, path: string, fields?: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = fields ? new URLSearchParams(fields).toString() : undefined;
  const res = await request(rig.mem.net, HTTP_PORT, method, path, {
    headers: { 'X-Device-Token': rig.token, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    ...(body ? { body } : {}),
  });
  return { status: res.status, json: JSON.parse(res.body) as Record<string, unknown> };
}

async function tool(rig: Rig, name: string, args: Record<string, unknown>, caller: ToolCaller = MCP): Promise<{ success: boolean; output: string; error: string | null; error_type: string | null }> {
  return rig.device.ctx.tools.call(name, args, caller);
}

/** The owner's chat messages from now on. */
function mark(rig: Rig, chat = OWNER): () => string[] {
  const from = rig.bot.to(chat).length;
  return () => rig.bot.to(chat).slice(from).map((m) => m.text);
}

async function ask(rig: Rig, chat: string, text: string): Promise<string> {
  // Notices already on their way (approval cards) go first.
  await advance(rig, 2000);
  const since = mark(rig, chat);
  rig.bot.say(chat, text);
  if (!(await rig.mem.clock.until(() => since().length > 0, 30_000, 50))) throw new Error(`no answer to ${text}`);
  return since()[0]!;
}

async function create(rig: Rig, args: Record<string, unknown>, caller: ToolCaller = MCP): Promise<string> {
  const r = await tool(rig, 'loop.create', { name: 'News', prompt: 'Tell me the news.', ...args }, caller);
  expect(r, r.error ?? '').toMatchObject({ success: true });
  return /Routine (r[0-9a-f]{4})/.exec(r.output)![1]!;
}

async function routines(rig: Rig): Promise<Array<Record<string, unknown>>> {
  return (await api(rig, 'GET', '/api/routines')).json['routines'] as Array<Record<string, unknown>>;
}

async function wakeups(rig: Rig): Promise<{ mode: string; armed: number; wakeups: Array<Record<string, unknown>> }> {
  return (await api(rig, 'GET', '/api/wakeups')).json as { mode: string; armed: number; wakeups: Array<Record<string, unknown>> };
}

// Generous: tests must not fail because a shared machine is slow.
describe('routines', { timeout: 30_000 }, () => {
  it('loop.create makes a routine that waits for approval and cannot fire; approved on the web, it runs on schedule and its reply reaches the owner\'s chat', async () => {
    const rig = setup();
    const owner = mark(rig);
    const id = await create(rig, { schedule: { kind: 'interval', every_seconds: 300 } });
    expect(await routines(rig)).toMatchObject([{ id, name: 'News', approval: 'pending', approved: false, enabled: true, schedule: 'every 5m', next: null, created_by: 'mcp' }]);
    // One approval card to the owner.
    await advance(rig, 2000);
    expect(owner()).toEqual([expect.stringMatching(new RegExp(`^A routine waits for your approval: "News" \\(every 5m\\)\\.\\nIt will do: Tell me the news\\.\\nReply /loop approve ${id} to let it run`))]);
    expect(owner()[0]).toMatch(SIGNED);
    // Pending: nothing fires, however long it waits.
    await advance(rig, 3 * HOUR);
    expect(rig.wire.scheduled()).toEqual([]);

    const approved = await api(rig, 'POST', '/api/routines', { action: 'approve', id });
    expect(approved).toMatchObject({ status: 200, json: { id, approved: true, approval: 'approved', next: 'Sun 2026-11-22 12:05 UTC' } });
    await advance(rig, 5 * MIN - 1000);
    expect(rig.wire.scheduled()).toEqual([]);
    await advance(rig, 2000);
    const [first] = rig.wire.scheduled();
    expect(first).toMatch(/^\[SYSTEM\] Scheduled routine "News" \(r[0-9a-f]{4}, every 5m\) runs now\. It is Sun 2026-11-22 12:05 UTC\. No person wrote this message/);
    expect(first).toContain('[ROUTINE] Tell me the news.');
    // A scheduled turn is not offered loop.create (nor skill.save).
    const tools = rig.wire.seen.at(-1)!.tools.map((t) => t.name);
    expect(tools).toContain('wakeup_set');
    expect(tools).not.toContain('loop_create');
    expect(tools).not.toContain('skill_save');
    await rig.mem.clock.until(() => owner().length > 1, 5000, 50);
    expect(owner()[1]).toBe('done: Tell me the news.');
    expect((await routines(rig))[0]).toMatchObject({ runs: 1, last: 'ok Sun 2026-11-22 12:05 UTC: done: Tell me the news.', next: 'Sun 2026-11-22 12:10 UTC' });
    await advance(rig, 10 * MIN);
    expect(rig.wire.scheduled()).toHaveLength(3);
  });

  it('pauses and resumes (/loop off, /loop on), and /loop deny or loop.cancel delete', async () => {
    const rig = setup();
    const a = await create(rig, { name: 'A', schedule: { kind: 'interval', every_seconds: 600 } });
    const b = await create(rig, { name: 'B', schedule: { kind: 'daily', at: '18:00' } });
    // off and on wait for approval first.
    expect(await ask(rig, OWNER, `/loop off ${a}`)).toMatch(new RegExp(`^Routine ${a} "A" waits for approval; approve it \\(or deny it\\) first\\.`));
    expect(await ask(rig, OWNER, `/loop approve ${a}`)).toMatch(new RegExp(`^Approved routine ${a} "A" \\(every 10m\\); next run Sun 2026-11-22 09:10 UTC\\.`));
    expect(await ask(rig, OWNER, `/loop approve ${a}`)).toMatch(/is already approved/);
    await advance(rig, 5 * MIN);
    expect(await ask(rig, OWNER, `/loop off ${a}`)).toMatch(new RegExp(`^Paused routine ${a} "A"\\. /loop on ${a} resumes it\\.`));
    await advance(rig, HOUR);
    expect(rig.wire.scheduled()).toEqual([]);
    expect((await routines(rig)).find((r) => r.id === a)).toMatchObject({ enabled: false, next: null });
    // Resumed: the next run counts from now, with no catch-up for the paused hour.
    expect(await ask(rig, OWNER, `/loop on ${a}`)).toMatch(/^Resumed routine .*; next run Sun 2026-11-22 10:15 UTC\./);
    await advance(rig, 10 * MIN);
    expect(rig.wire.scheduled()).toHaveLength(1);
    // Through the web too.
    expect(await api(rig, 'POST', '/api/routines', { action: 'off', id: a })).toMatchObject({ status: 200, json: { enabled: false } });
    expect(await api(rig, 'POST', '/api/routines', { action: 'on', id: a })).toMatchObject({ status: 200, json: { enabled: true } });
    // Delete: /loop deny and loop.cancel.
    expect(await ask(rig, OWNER, `/loop deny ${b}`)).toBe(`Deleted routine ${b} "B".\n\n— Desk assistant · firmware v0.1.0`);
    expect(await tool(rig, 'loop.cancel', { id: a })).toMatchObject({ success: true, output: `Deleted routine ${a} "A".` });
    expect(await routines(rig)).toEqual([]);
    expect(await tool(rig, 'loop.cancel', { id: a })).toMatchObject({ success: false, error_type: 'not-found' });
    expect(await api(rig, 'POST', '/api/routines', { action: 'approve', id: a })).toMatchObject({ status: 404, json: { error: 'not-found' } });
    expect(await api(rig, 'POST', '/api/routines', { action: 'pause', id: a })).toMatchObject({ status: 400, json: { error: 'bad-action' } });
    expect(await ask(rig, OWNER, '/loop pause r1')).toMatch(/^Usage: \/loop approve \| deny \| off \| on <id>/);
    expect(await ask(rig, OWNER, '/loop approve rffff')).toMatch(/^No routine, reminder or wakeup has id rffff\./);
    await advance(rig, HOUR);
    expect(rig.wire.scheduled()).toHaveLength(1);
  });

  it('refuses bad input and changes nothing; at most 8 routines; chat_id must be on the allowlist', async () => {
    const rig = setup();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ schedule: { kind: 'interval', every_seconds: 299 } }, /every_seconds: must be >= 300|at least 300/],
      [{ schedule: { kind: 'daily', at: '25:00' } }, /HH:MM/],
      [{ schedule: { kind: 'weekly', at: '08:00' } }, /needs days/],
      [{ schedule: { kind: 'daily', at: '08:00' }, chat_id: '9999' }, /not on the allowlist/],
      [{ schedule: { kind: 'daily', at: '08:00' }, prompt: 'x'.repeat(1001) }, /longer than 1000 bytes/],
      [{ schedule: { kind: 'daily', at: '08:00' }, name: '   ' }, /name is empty/],
    ];
    for (const [args, want] of cases) {
      const r = await tool(rig, 'loop.create', { name: 'N', prompt: 'p', ...args });
      expect(r.success).toBe(false);
      expect(r.error).toMatch(want);
    }
    expect(await routines(rig)).toEqual([]);
    const member = await create(rig, { schedule: { kind: 'daily', at: '08:00' }, chat_id: Number(MEMBER) });
    expect((await routines(rig))[0]).toMatchObject({ id: member, chat_id: MEMBER });
    for (let i = 1; i < 8; i++) await create(rig, { name: `n${i}`, schedule: { kind: 'daily', at: '08:00' } });
    expect(await tool(rig, 'loop.create', { name: 'ninth', prompt: 'p', schedule: { kind: 'daily', at: '08:00' } })).toMatchObject({ success: false, error_type: 'limit' });
  });

  it('loop.create is admin-only and refused in scheduled and in synthesis (unattended) turns; skill.save is refused in unattended turns', async () => {
    const rig = setup();
    const args = { name: 'N', prompt: 'p', schedule: { kind: 'daily', at: '08:00' } };
    expect(await tool(rig, 'loop.create', args, SCHEDULED)).toMatchObject({ success: false, error_type: 'unattended' });
    expect(await tool(rig, 'loop.create', args, SYNTHESIS)).toMatchObject({ success: false, error_type: 'unattended' });
    expect(await tool(rig, 'loop.create', args, { ...OWNER_TURN, admin: false, person: MEMBER })).toMatchObject({ success: false, error_type: 'forbidden' });
    expect(await tool(rig, 'skill.save', { id: 'x', md: 'y' }, SYNTHESIS)).toMatchObject({ success: false, error_type: 'unattended' });
    expect(await tool(rig, 'skill.save', { id: 'x', md: 'y' }, SCHEDULED)).toMatchObject({ success: false, error_type: 'unattended' });
    for (const caller of [SCHEDULED, SYNTHESIS]) {
      const names = rig.device.ctx.tools.list(caller).map((t) => t.name);
      expect(names).not.toContain('loop.create');
      expect(names).not.toContain('skill.save');
      expect(names).toContain('wakeup.set');
      expect(names).toContain('loop.list');
    }
    for (const name of ['loop.create', 'loop.list', 'loop.cancel', 'wakeup.set', 'skill.save', 'skill.delete']) {
      expect(rig.device.ctx.tools.list({ ...OWNER_TURN, admin: false, person: MEMBER }).map((t) => t.name)).not.toContain(name);
    }
    const created = await tool(rig, 'loop.create', args, OWNER_TURN);
    expect(created.success).toBe(true);
    const panel = (await api(rig, 'GET', '/api/tools')).json['tools'] as Array<Record<string, unknown>>;
    expect(panel.find((t) => t.name === 'loop.create')).toMatchObject({ access: 'admin', unattended: false, scheduled: false });
    expect(panel.find((t) => t.name === 'skill.list')).toMatchObject({ access: 'open' });
  });

  it('runs a scheduled turn under the unattended rails: loop.create refused, no reboot, no ttsOn', async () => {
    const rig = setup();
    const id = await create(rig, { schedule: { kind: 'interval', every_seconds: 300 } });
    expect((await api(rig, 'POST', '/api/routines', { action: 'approve', id })).status).toBe(200);
    let toolOutput = '';
    rig.wire.steps.push(
      { kind: 'tools', calls: [{ id: 'c1', name: 'loop_create', args: JSON.stringify({ name: 'More', prompt: 'p', schedule: { kind: 'daily', at: '08:00' } }) }], items: [] },
      (req) => {
        const r = req.transcript.find((t) => t.kind === 'tool_result');
        toolOutput = r && 'output' in r ? r.output : '';
        return turn({ reply: 'tried', device: [{ reboot: true }, { config: { ttsOn: true } }] });
      },
    );
    await advance(rig, 5 * MIN + 1000);
    await advance(rig, 5000);
    expect(JSON.parse(toolOutput)).toMatchObject({ success: false, error_type: 'unattended' });
    expect(rig.mem.system.reboots).toEqual([]);
    expect(rig.device.ctx.actions.config('ttsOn')).not.toBe(true);
    expect((await routines(rig)).map((r) => r.id)).toEqual([id]);
  });

  it('runs daily and weekly routines at the owner\'s local time, across a daylight-saving change', async () => {
    // Saturday 28 March 2026, noon UTC: Berlin changes to summer time the next night.
    const rig = setup({ wallMs: Date.UTC(2026, 2, 28, 12) });
    expect(await api(rig, 'POST', '/api/timezone', { tz: 'Europe/Berlin' })).toMatchObject({ status: 400, json: { error: 'bad-input' } });
    expect((await api(rig, 'GET', '/api/timezone')).json).toMatchObject({ tz: 'UTC0' });
    expect(await api(rig, 'POST', '/api/timezone', { tz: 'CET-1CEST,M3.5.0,M10.5.0/3' })).toMatchObject({ status: 200, json: { tz: 'CET-1CEST,M3.5.0,M10.5.0/3', offset: '+01:00', abbr: 'CET', dst: false, now: 'Sat 2026-03-28 13:00 CET' } });
    const night = await create(rig, { name: 'Night', schedule: { kind: 'daily', at: '02:30' } });
    const weekly = await create(rig, { name: 'Weekly', schedule: { kind: 'weekly', at: '09:00', days: ['sun', 'wed'] } });
    for (const id of [night, weekly]) expect((await api(rig, 'POST', '/api/routines', { action: 'approve', id })).status).toBe(200);
    const byId = async (id: string): Promise<Record<string, unknown>> => (await routines(rig)).find((r) => r.id === id)!;
    // 02:30 is skipped on the 29th: it runs at 03:30 CEST, one hour after 01:30 UTC would have been 02:30 CET.
    expect(await byId(night)).toMatchObject({ next: 'Sun 2026-03-29 03:30 CEST', next_ms: Date.UTC(2026, 2, 29, 1, 30) });
    expect(await byId(weekly)).toMatchObject({ next: 'Sun 2026-03-29 09:00 CEST', next_ms: Date.UTC(2026, 2, 29, 7) });
    await advance(rig, Date.UTC(2026, 2, 29, 1, 30) - rig.mem.clock.wallMs() + 1000);
    expect(rig.wire.scheduled()).toEqual([expect.stringMatching(/^\[SYSTEM\] Scheduled routine "Night" .* It is Sun 2026-03-29 03:30 CEST\./)]);
    expect(await byId(night)).toMatchObject({ next: 'Mon 2026-03-30 02:30 CEST' });
    await advance(rig, 6 * HOUR);
    expect(rig.wire.scheduled()).toHaveLength(2);
    expect(await byId(weekly)).toMatchObject({ next: 'Wed 2026-04-01 09:00 CEST' });
    // A new zone moves daily runs to its local time.
    expect((await api(rig, 'POST', '/api/timezone', { tz: 'UTC0' })).status).toBe(200);
    expect(await byId(night)).toMatchObject({ next: 'Mon 2026-03-30 02:30 UTC' });
    // The zone survives a reboot.
    reboot(rig);
    expect((await api(rig, 'GET', '/api/timezone')).json).toMatchObject({ tz: 'UTC0' });
  });

  it('after the device was off: the latest missed run within 6 hours runs once, marked late; older misses are reported, not run', async () => {
    const rig = setup();
    const daily = await create(rig, { name: 'Morning', schedule: { kind: 'daily', at: '10:00' } });
    const often = await create(rig, { name: 'Often', schedule: { kind: 'interval', every_seconds: 300 } });
    for (const id of [daily, often]) expect((await api(rig, 'POST', '/api/routines', { action: 'approve', id })).status).toBe(200);
    // Off at 09:00 for 3 hours: the 10:00 run and 35 interval runs fall in the gap.
    reboot(rig, 3 * HOUR);
    const owner = mark(rig);
    await advance(rig, 1000);
    const runs = rig.wire.scheduled();
    expect(runs).toHaveLength(2);
    expect(runs.find((t) => t.includes('"Morning"'))).toMatch(/runs now, late: it was due at Sun 2026-11-22 10:00 UTC while the device was off or its clock was not set\. It is Sun 2026-11-22 12:00 UTC\./);
    expect(runs.find((t) => t.includes('"Often"'))).toMatch(/\(35 earlier missed run\(s\) were skipped\)/);
    await rig.mem.clock.until(() => owner().length >= 2, 5000, 50);
    const list = await routines(rig);
    expect(list.find((r) => r.id === daily)).toMatchObject({ runs: 1, last: expect.stringMatching(/^ok \(late\)/), next: 'Mon 2026-11-23 10:00 UTC' });
    expect(list.find((r) => r.id === often)).toMatchObject({ runs: 1, next: 'Sun 2026-11-22 12:05 UTC' });
    // Off across two 10:00 runs, the latest 14 hours back: no run, a notice and a last result saying so.
    rig.device.ctx.tools.call('loop.cancel', { id: often }, MCP);
    const before = rig.wire.scheduled().length;
    reboot(rig, 60 * HOUR);
    const later = mark(rig);
    await advance(rig, 5000);
    expect(rig.wire.scheduled()).toHaveLength(before);
    expect(later()).toEqual([expect.stringMatching(new RegExp(`^Routine ${daily} "Morning" missed its run of Tue 2026-11-24 10:00 UTC while the device was off or its clock was not set; it runs next at Wed 2026-11-25 10:00 UTC\\.`))]);
    expect((await routines(rig)).find((r) => r.id === daily)).toMatchObject({ last: expect.stringMatching(/^failed \(late\) .*Missed the run of Tue 2026-11-24 10:00 UTC .* and 1 earlier one\(s\)\./), next: 'Wed 2026-11-25 10:00 UTC' });
  });

  it('waits for the clock: approved on an unset clock, nothing runs until the wall clock is set', async () => {
    const rig = setup({ synced: false });
    const id = await create(rig, { schedule: { kind: 'interval', every_seconds: 300 } });
    const r = await api(rig, 'POST', '/api/routines', { action: 'approve', id });
    expect(r.json).toMatchObject({ approved: true, next: 'when the clock is set' });
    await advance(rig, HOUR);
    expect(rig.wire.scheduled()).toEqual([]);
    rig.mem.clock.setWall(Date.UTC(2026, 11, 1, 8));
    await advance(rig, 61_000);
    expect((await routines(rig))[0]).toMatchObject({ next: expect.stringMatching(/^Tue 2026-12-01 08:0[56] UTC$/) });
    await advance(rig, 5 * MIN);
    expect(rig.wire.scheduled()).toHaveLength(1);
  });

  it('survives reboots: pending and approved routines, paused ones and their next runs', async () => {
    const rig = setup();
    const pending = await create(rig, { name: 'P', schedule: { kind: 'daily', at: '08:00' } });
    const on = await create(rig, { name: 'On', schedule: { kind: 'interval', every_seconds: 900 } });
    const off = await create(rig, { name: 'Off', schedule: { kind: 'weekly', at: '08:00', days: [1] } });
    await api(rig, 'POST', '/api/routines', { action: 'approve', id: on });
    await api(rig, 'POST', '/api/routines', { action: 'approve', id: off });
    await api(rig, 'POST', '/api/routines', { action: 'off', id: off });
    const before = await routines(rig);
    reboot(rig);
    expect(await routines(rig)).toEqual(before);
    await advance(rig, 15 * MIN);
    expect(rig.wire.scheduled()).toEqual([expect.stringContaining('"On"')]);
    expect(pending).toMatch(/^r/);
  });
});

// Generous: tests must not fail because a shared machine is slow.
describe('wakeups', { timeout: 30_000 }, () => {
  it('in auto mode: armed at once, one turn at its time with the note, then retired', async () => {
    const rig = setup();
    const owner = mark(rig);
    const r = await tool(rig, 'wakeup.set', { minutes: 2, note: 'check the oven' }, OWNER_TURN);
    expect(r).toMatchObject({ success: true, output: expect.stringMatching(/^Wakeup w[0-9a-f]{4} is armed: one turn at Sun 2026-11-22 09:02 UTC\.$/) });
    expect(await wakeups(rig)).toMatchObject({ mode: 'auto', armed: 1, wakeups: [{ kind: 'wakeup', state: 'armed', note: 'check the oven', due: 'Sun 2026-11-22 09:02 UTC' }] });
    await advance(rig, 2 * MIN - 1000);
    expect(rig.wire.scheduled()).toEqual([]);
    await advance(rig, 2000);
    expect(rig.wire.scheduled()).toEqual([expect.stringMatching(/^\[SYSTEM\] Wakeup w[0-9a-f]{4}: you set it 2 minute\(s\) before\. It is Sun 2026-11-22 09:02 UTC\. .*\n\[NOTE\] check the oven/)]);
    await rig.mem.clock.until(() => owner().length > 0, 5000, 50);
    expect(owner()).toEqual(['done: check the oven']);
    expect(await wakeups(rig)).toMatchObject({ armed: 0, wakeups: [] });
    await advance(rig, HOUR);
    expect(rig.wire.scheduled()).toHaveLength(1);
  });

  it('allows at most 4 armed; refuses spans outside 2 minutes to 7 days', async () => {
    const rig = setup();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await tool(rig, 'wakeup.set', { minutes: 30 + i, note: `n${i}` });
      ids.push(/w[0-9a-f]{4}/.exec(r.output)![0]);
    }
    expect(await tool(rig, 'wakeup.set', { minutes: 30, note: 'fifth' })).toMatchObject({ success: false, error_type: 'limit', error: expect.stringMatching(/4 wakeups are already armed/) });
    expect(await tool(rig, 'wakeup.set', { minutes: 1, note: 'x' })).toMatchObject({ success: false, error_type: 'bad-arguments' });
    expect(await tool(rig, 'wakeup.set', { minutes: 10081, note: 'x' })).toMatchObject({ success: false, error_type: 'bad-arguments' });
    expect(await tool(rig, 'wakeup.set', { minutes: 5, note: 'x'.repeat(501) })).toMatchObject({ success: false, error: expect.stringMatching(/500 bytes/) });
    expect((await wakeups(rig)).armed).toBe(4);
    expect(await api(rig, 'POST', '/api/wakeups', { action: 'cancel', id: ids[0]! })).toMatchObject({ status: 200, json: { cancelled: true } });
    expect(await tool(rig, 'wakeup.set', { minutes: 10080, note: 'fifth' })).toMatchObject({ success: true });
    expect((await wakeups(rig)).armed).toBe(4);
  });

  it('in ask mode: pending with one approval card; approve arms it (its minutes count from then); cancel deletes it', async () => {
    const rig = setup();
    expect(await api(rig, 'POST', '/api/wakeups', { action: 'mode', value: 'sometimes' })).toMatchObject({ status: 400 });
    expect(await api(rig, 'POST', '/api/wakeups', { action: 'mode', value: 'ask' })).toMatchObject({ status: 200, json: { mode: 'ask' } });
    const owner = mark(rig);
    const a = /w[0-9a-f]{4}/.exec((await tool(rig, 'wakeup.set', { minutes: 10, note: 'water the plants' })).output)![0];
    const b = /w[0-9a-f]{4}/.exec((await tool(rig, 'wakeup.set', { minutes: 10, note: 'feed the cat' })).output)![0];
    await advance(rig, 2000);
    expect(owner()).toEqual([
      expect.stringMatching(new RegExp(`^The assistant asks to wake itself in 10 minute\\(s\\) once approved, to: water the plants\\nReply /loop approve ${a} to arm it`)),
      expect.stringContaining(`/loop approve ${b}`),
    ]);
    const waiting = await wakeups(rig);
    expect(waiting).toMatchObject({ mode: 'ask', armed: 0 });
    expect(waiting.wakeups).toHaveLength(2);
    expect(waiting.wakeups).toEqual(expect.arrayContaining([expect.objectContaining({ id: a, state: 'pending', due: null }), expect.objectContaining({ id: b, state: 'pending' })]));
    await advance(rig, HOUR);
    expect(rig.wire.scheduled()).toEqual([]);
    // Approved from the chat an hour later: it fires 10 minutes after that.
    expect(await ask(rig, OWNER, `/loop approve ${a}`)).toMatch(new RegExp(`^Armed wakeup ${a}: one turn at Sun 2026-11-22 10:10 UTC\\.`));
    expect(await api(rig, 'POST', '/api/wakeups', { action: 'cancel', id: b })).toMatchObject({ status: 200 });
    expect(await api(rig, 'POST', '/api/wakeups', { action: 'approve', id: b })).toMatchObject({ status: 404 });
    await advance(rig, 10 * MIN + 1000);
    expect(rig.wire.scheduled()).toEqual([expect.stringContaining('[NOTE] water the plants')]);
    expect((await wakeups(rig)).wakeups).toEqual([]);
    // Approval refuses a fifth armed wakeup.
    await api(rig, 'POST', '/api/wakeups', { action: 'mode', value: 'auto' });
    for (let i = 0; i < 4; i++) await tool(rig, 'wakeup.set', { minutes: 60, note: `n${i}` });
    await api(rig, 'POST', '/api/wakeups', { action: 'mode', value: 'ask' });
    const c = /w[0-9a-f]{4}/.exec((await tool(rig, 'wakeup.set', { minutes: 10, note: 'later' })).output)![0];
    expect(await api(rig, 'POST', '/api/wakeups', { action: 'approve', id: c })).toMatchObject({ status: 409, json: { error: 'limit' } });
    expect(await ask(rig, OWNER, `/loop off ${c}`)).toMatch(/is a wakeup, not a routine/);
    expect(await ask(rig, OWNER, `/loop deny ${c}`)).toMatch(new RegExp(`^Cancelled wakeup ${c}\\.`));
  });

  it('retries a failed turn once a minute later; a second failure alerts the owner and retires it', async () => {
    const rig = setup();
    const owner = mark(rig);
    await tool(rig, 'wakeup.set', { minutes: 5, note: 'first' });
    rig.wire.down = true;
    await advance(rig, 5 * MIN + 1000);
    expect(rig.wire.scheduled()).toHaveLength(1);
    expect(await wakeups(rig)).toMatchObject({ armed: 1, wakeups: [{ tries: 1, due: 'Sun 2026-11-22 09:06 UTC' }] });
    rig.wire.down = false;
    await advance(rig, MIN);
    const retried = rig.wire.scheduled();
    expect(retried).toHaveLength(2);
    expect(retried[1]).toMatch(/\(second try: the first turn failed\)/);
    await rig.mem.clock.until(() => owner().length > 0, 5000, 50);
    expect(owner()).toEqual(['done: first']);
    expect((await wakeups(rig)).wakeups).toEqual([]);

    const id = /w[0-9a-f]{4}/.exec((await tool(rig, 'wakeup.set', { minutes: 2, note: 'second' })).output)![0];
    rig.wire.down = true;
    await advance(rig, 4 * MIN);
    await rig.mem.clock.until(() => owner().length > 1, 5000, 50);
    expect(owner()[1]).toMatch(new RegExp(`^Wakeup ${id} failed twice \\(.*\\) and is retired\\. Its note: second`));
    expect(owner()[1]).toMatch(SIGNED);
    expect((await wakeups(rig)).wakeups).toEqual([]);
    await advance(rig, HOUR);
    expect(rig.wire.scheduled()).toHaveLength(4);
  });

  it('survive a reboot: armed ones fire at their time, pending ones still wait, a turn cut by a restart counts as the first try', async () => {
    const rig = setup();
    await api(rig, 'POST', '/api/wakeups', { action: 'mode', value: 'ask' });
    const pending = /w[0-9a-f]{4}/.exec((await tool(rig, 'wakeup.set', { minutes: 3, note: 'pending one' })).output)![0];
    await api(rig, 'POST', '/api/wakeups', { action: 'mode', value: 'auto' });
    await tool(rig, 'wakeup.set', { minutes: 30, note: 'after the reboot' });
    const before = await wakeups(rig);
    reboot(rig, 10 * MIN);
    expect(await wakeups(rig)).toMatchObject({ ...before, wakeups: before.wakeups.map((w) => ({ ...w, due: w.due })) });
    await advance(rig, 20 * MIN - 1000);
    expect(rig.wire.scheduled()).toEqual([]);
    await advance(rig, 2000);
    expect(rig.wire.scheduled()).toEqual([expect.stringContaining('[NOTE] after the reboot')]);
    expect((await wakeups(rig)).wakeups.map((w) => w.id)).toEqual([pending]);
    // A turn that never ends, then a restart: the wakeup's next turn is its retry.
    await tool(rig, 'wakeup.set', { minutes: 2, note: 'cut short' });
    rig.wire.steps.push(() => new Promise<RoundResult>(() => {}));
    await advance(rig, 2 * MIN + 1000);
    expect(rig.wire.scheduled()).toHaveLength(2);
    reboot(rig, 2 * MIN);
    await advance(rig, 1000);
    expect(rig.wire.scheduled().at(-1)).toMatch(/second try/);
  });
});

// Generous: tests must not fail because a shared machine is slow.
describe('reminders', { timeout: 30_000 }, () => {
  it('/remind sets a one-time reminder back to the chat; /loops lists it; it fires once, also after a reboot; /loop deny cancels one', async () => {
    const rig = setup();
    const set = await ask(rig, OWNER, '/remind 2h  call   the plumber');
    const id = /Reminder (m[0-9a-f]{4}) set for Sun 2026-11-22 11:00 UTC\./.exec(set)![1]!;
    const other = /Reminder (m[0-9a-f]{4})/.exec(await ask(rig, OWNER, '/remind 30 tea'))![1]!;
    const fromMember = await ask(rig, MEMBER, '/remind 5 x');
    expect(fromMember).toMatch(/^\/remind is for the device's owner\./);
    const loops = await ask(rig, OWNER, '/loops');
    expect(loops).toBe(`No routines.\nReminders:\n${id} at Sun 2026-11-22 11:00 UTC: call   the plumber\n${other} at Sun 2026-11-22 09:30 UTC: tea\nIt is Sun 2026-11-22 09:00 UTC (time zone UTC0).\n\n— Desk assistant · firmware v0.1.0`);
    expect(await ask(rig, OWNER, `/loop deny ${other}`)).toMatch(new RegExp(`^Cancelled reminder ${other}\\.`));
    reboot(rig, 30 * MIN);
    const owner = mark(rig);
    await advance(rig, HOUR + 29 * MIN);
    expect(owner()).toEqual([]);
    await advance(rig, 2 * MIN);
    expect(owner()).toEqual([`Reminder: call   the plumber\n\n— Desk assistant · firmware v0.1.0`]);
    expect(rig.wire.scheduled()).toEqual([]);
    await advance(rig, 2 * HOUR);
    expect(owner()).toHaveLength(1);
    expect((await wakeups(rig)).wakeups).toEqual([]);
  });

  it('one missed while the device was off is delivered late, marked so; at most 8 wait', async () => {
    const rig = setup();
    await ask(rig, OWNER, '/remind 10m stretch');
    reboot(rig, 3 * HOUR);
    const owner = mark(rig);
    await advance(rig, 2000);
    expect(owner()).toEqual([`Reminder: stretch\n(Late: it was due at Sun 2026-11-22 09:10 UTC while the device was off or its clock was not set.)\n\n— Desk assistant · firmware v0.1.0`]);
    for (let i = 0; i < 8; i++) await ask(rig, OWNER, `/remind 1h r${i}`);
    expect(await ask(rig, OWNER, '/remind 1h one too many')).toMatch(/^No reminder was set: 8 reminders are already set/);
  });
});
