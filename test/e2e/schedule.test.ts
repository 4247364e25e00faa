// Routines, wakeups and reminders of the real firmware on the simulator,
// with the Bot API fake (over HTTPS with a test-CA certificate for
// api.telegram.org) as the owner's chat and the provider emulator for the
// turns: a routine created over /mcp waits for approval, is approved from the
// web page and fires on the warped clock, its reply reaching the chat; a wakeup
// fires one turn; a reminder set in the chat survives a reboot and arrives on
// time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_NAMES, routeArgs, start as startEmulator, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { DEFAULT_TOKEN, routeArgs as botRouteArgs, start as startBot, type BotApiServer } from '../../tools/telegram-fake.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

const OWNER = '5001';
const TURN = { path: '/v1/messages' };

let emu: Emulator;
let fake: BotApiServer;
let device: Device;
let token = '';

const warp = (ms: number) => device.board.request('clock.warp', { ms });

async function post(path: string, fields: Record<string, string>): Promise<Response> {
  return device.fetch(path, { method: 'POST', token, body: new URLSearchParams(fields) });
}

const tool = (name: string, args: Record<string, unknown>) => device.tool(token, name, args);

const toOwner = (): string[] => fake.bot.to(OWNER).map((m) => m.text);

async function nextToOwner(pred: (text: string) => boolean, timeoutMs = 20_000): Promise<string> {
  const from = toOwner().length;
  await fake.bot.waitSent(() => toOwner().slice(from).some(pred), timeoutMs);
  return toOwner().slice(from).find(pred)!;
}

async function ask(text: string): Promise<string> {
  const from = toOwner().length;
  fake.bot.say(OWNER, text);
  await fake.bot.waitSent(() => toOwner().length > from, 20_000);
  return toOwner()[from]!;
}

beforeAll(async () => {
  emu = await startEmulator();
  fake = await startBot();
  device = await startDevice({ args: [...routeArgs(emu.port, EMULATOR_NAMES), ...botRouteArgs(fake.port)] });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  expect((await post('/api/orch', { key_anthropic: 'sk-e2e-anthropic', priority: 'anthropic' })).status).toBe(200);
  expect((await post('/api/chat', { tg_token: DEFAULT_TOKEN, tg_allow: OWNER })).status).toBe(200);
});

afterAll(async () => {
  await cleanup();
  await fake?.close();
  await emu?.close();
});

describe('schedules on the simulator', () => {
  // Chat messages in come first: a warp longer than the long poll's deadline times the poll out
  // and backs it off in real time, while messages out (replies, notices) go at once.
  it('a reminder set in the chat survives a reboot and arrives on time, once', async () => {
    const set = await ask('/remind 3m stretch your legs');
    const id = /Reminder (m[0-9a-f]{4}) set for /.exec(set)![1]!;
    expect(await ask('/loops')).toContain(`${id} at `);
    const boots = (await device.board.request<{ bootCount: number }>('status')).bootCount;
    await device.board.request('reboot', { reason: 'software' });
    await device.board.request('wait', { for: 'ready', after: boots, timeoutMs: 15_000 });
    const reminders = (await (await device.fetch('/api/wakeups', { token })).json()) as { wakeups: Array<{ id: string; kind: string }> };
    expect(reminders.wakeups).toEqual([expect.objectContaining({ id, kind: 'reminder' })]);
    const arrived = nextToOwner((t) => t.startsWith('Reminder: stretch your legs'));
    await warp(181_000);
    expect(await arrived).toMatch(/^Reminder: stretch your legs\n\n— Desk assistant · firmware v/);
    // The fake has the reminder; before time jumps again the device must have the Bot API's answer too
    // (its send queue empty), or the jump times the send out and it goes again.
    const deadline = Date.now() + 10_000;
    while (!/ sendq=0 /.test(await device.command('CHAT?'))) {
      if (Date.now() > deadline) throw new Error(`the device never saw the Bot API accept the reminder: ${await device.command('CHAT?')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await warp(600_000);
    // A barrier instead of a wait: the answer to /loops leaves through the same send queue, after
    // anything the warp made the device send; and the reminder is gone from the list.
    expect(await ask('/loops')).not.toContain(id);
    expect(toOwner().filter((t) => t.startsWith('Reminder: stretch'))).toHaveLength(1);
  });

  it('a routine created over /mcp waits for approval, is approved on the web, and fires on the warped clock; its reply reaches the owner\'s chat', async () => {
    const card = nextToOwner((t) => t.startsWith('A routine waits for your approval'));
    const created = await tool('loop.create', { name: 'Brief', prompt: 'Give me my morning brief.', schedule: { kind: 'interval', every_seconds: 300 } });
    expect(created.isError).toBe(false);
    const id = /Routine (r[0-9a-f]{4})/.exec(created.text)![1]!;
    expect(await card).toContain(`/loop approve ${id}`);
    // Pending: a warp past its interval runs nothing.
    await warp(600_000);
    // A barrier instead of a wait: turns run one at a time, so a turn the warp started would reach
    // the provider before this one is answered.
    emu.script({ match: TURN, turn: turnObject('Here.') });
    expect(await device.command('TURN are you there?', 30_000)).toBe('Here.\nOK');
    const routineRounds = () => emu.requests.filter((r) => r.path === '/v1/messages' && JSON.stringify(r.body).includes('[ROUTINE]'));
    expect(routineRounds()).toHaveLength(0);

    const approved = (await (await post('/api/routines', { action: 'approve', id })).json()) as { approved: boolean; message: string };
    expect(approved).toMatchObject({ approved: true, message: expect.stringMatching(new RegExp(`^Approved routine ${id} "Brief" \\(every 5m\\); next run `)) });
    emu.script({ match: TURN, turn: turnObject('Good morning: three meetings today.') });
    const reply = nextToOwner((t) => t === 'Good morning: three meetings today.');
    await warp(301_000);
    await reply;
    const round = routineRounds()[0]!;
    const sent = JSON.stringify(round.body);
    expect(sent).toContain('[SYSTEM] Scheduled routine \\"Brief\\"');
    expect(sent).toContain('[ROUTINE] Give me my morning brief.');
    // Under the rails: no loop.create (nor skill.save) offered to a scheduled turn.
    expect(sent).toContain('wakeup_set');
    expect(sent).not.toContain('loop_create');
    expect(sent).not.toContain('skill_save');
    const listed = (await (await device.fetch('/api/routines', { token })).json()) as { routines: Array<{ id: string; runs: number; last: string }> };
    expect(listed.routines.find((r) => r.id === id)).toMatchObject({ runs: 1, last: expect.stringContaining('ok') });
    expect((await post('/api/routines', { action: 'off', id })).status).toBe(200);
  });

  it('a wakeup fires one turn at its time and retires', async () => {
    const set = await tool('wakeup.set', { minutes: 2, note: 'See whether the build finished.' });
    expect(set.text).toMatch(/^Wakeup w[0-9a-f]{4} is armed/);
    emu.script({ match: TURN, turn: turnObject('The build finished.') });
    const reply = nextToOwner((t) => t === 'The build finished.');
    await warp(121_000);
    await reply;
    const w = (await (await device.fetch('/api/wakeups', { token })).json()) as { armed: number; wakeups: unknown[] };
    expect(w).toMatchObject({ armed: 0, wakeups: [] });
  });
});
