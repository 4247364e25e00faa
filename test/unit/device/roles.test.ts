// Issue 29, item 3: who may change the device from a chat turn is decided
// per device action, by one allow-list per role (src/device/action-roles.ts):
// config, orch_model and reboot for admins only; led, lights and tts for
// every member; nothing for a revoked chat. Checked both ways an action
// arrives, the device.control tool and the turn's own device[], through the
// chat messenger (the Bot API fake on the in-memory network and a scripted
// provider wire) for the owner, a user, a guest and a revoked chat, and for
// turns that run for a person after they were revoked (a sub-agent's
// synthesis turn).
import { describe, expect, it } from 'vitest';
import { ACTION_ROLES, actingRole, actionRefusal } from '../../../src/device/action-roles.ts';
import type { TurnWire } from '../../../src/turn/index.ts';
import type { RoundRequest, RoundResult, TranscriptItem } from '../../../src/contracts/index.ts';
import { ACTION_KINDS } from '../../../src/contracts/device-contract.ts';
import type { BotApiFake } from '../../../tools/telegram-fake.mjs';
import { mountMessenger } from '../../support/assistant.ts';
import { deviceKernel } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { fakeModeration, fakeTelegram } from '../../support/telegram-net.ts';
import { TestWire, turnResult } from '../../support/test-wire.ts';

const TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
const OWNER = '1001';
const USER = '2002';
const GUEST = '3003';
const REVOKED = '4004';

/**
 * The chat messenger over a real turn on a device kernel (test/support/assistant.ts: the Chat's people decide the
 * roles; the test's wire; the system's device.control), and the device subsystem (the ring) over the same device
 * actions, mounted as main.ts mounts them.
 */
function boot(mem: MemHal, options: { wire: TurnWire }) {
  const dk = deviceKernel({ mem });
  const { assistant, system, chat } = mountMessenger(dk, options);
  dk.start();
  return {
    ctx: { ...dk.kernel, token: dk.token, chat, actions: system.actions },
    assistant,
    stop: () => {
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
  wire: TestWire;
}

function setup(): Rig {
  const mem = createMemHal();
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.nvs.set('orch', 'key.anthropic', 'sk-anthropic-secret');
  mem.nvs.set('orch', 'priority', 'anthropic');
  mem.nvs.set('chat', 'token', TOKEN);
  mem.nvs.set('chat', 'allow', [OWNER, USER, GUEST, REVOKED].join(','));
  const rig = { mem } as Rig;
  rig.bot = fakeTelegram(mem.net, () => rig.mem.clock);
  fakeModeration(mem.net);
  rig.wire = new TestWire();
  rig.device = boot(mem, { wire: rig.wire });
  const people = rig.device.ctx.chat.people;
  expect(people.setRole(GUEST, 'guest').ok).toBe(true);
  expect(people.setRole(REVOKED, 'unknown').ok).toBe(true);
  return rig;
}

async function until(rig: Rig, pred: () => boolean, ms = 30_000): Promise<void> {
  if (!(await rig.mem.clock.until(pred, ms, 50))) throw new Error(`not within ${ms} ms`);
}

/** A person says something; resolves with the bot's next message to that chat. */
async function ask(rig: Rig, chat: string, text: string): Promise<string> {
  const before = rig.bot.to(chat).length;
  rig.bot.say(chat, text);
  await until(rig, () => rig.bot.to(chat).length > before);
  return rig.bot.to(chat).at(-1)!.text;
}

const ORCH = { orch_model: { provider: 'openai', model: 'gpt-taken-over' } };
const CONFIG = { config: { ledBrightness: 7, devName: 'Hijacked' } };
const LED = { led: { mode: 'solid', color: { r: 0, g: 0, b: 255 }, brightness: 40 } };
const REBOOT = { reboot: true };

/** One device.control call per action, then a final turn carrying device[] (default: the same actions); returns the tool results. */
function script(rig: Rig, actions: Array<Record<string, unknown>>, device = actions, reply = 'done'): { results: string[] } {
  const seen = { results: [] as string[] };
  const calls = actions.map((a, i) => ({ id: `c${i}`, name: 'device_control', args: JSON.stringify({ action: a }) }));
  const items: TranscriptItem[] = calls.map((c) => ({ kind: 'tool_call', id: c.id, name: c.name, args: c.args }));
  rig.wire.steps.push({ kind: 'tools', calls, items } as RoundResult, (req: RoundRequest) => {
    for (const t of req.transcript) if (t.kind === 'tool_result') seen.results.push(t.output);
    return turnResult({ reply, device });
  });
  return seen;
}

/** What the device holds that a device action could change. */
function deviceState(rig: Rig): Record<string, unknown> {
  const { ctx } = rig.device;
  return {
    orch: [rig.mem.nvs.get('orch', 'provider') ?? null, rig.mem.nvs.get('orch', 'model') ?? null],
    ledBrightness: ctx.actions.config('ledBrightness') ?? null,
    devName: ctx.actions.config('devName') ?? null,
    led: ctx.actions.ledState().mode,
    reboots: [...rig.mem.system.reboots],
  };
}

describe('the allow-list per role', () => {
  it('config, orch_model and reboot for admins only; led, lights and tts for members; nothing for a revoked chat', () => {
    expect(ACTION_ROLES.admin).toEqual([...ACTION_KINDS]);
    for (const kind of ACTION_KINDS) {
      const device = kind === 'config' || kind === 'orch_model' || kind === 'reboot';
      expect(actionRefusal(kind, 'admin'), kind).toBeNull();
      for (const role of ['user', 'guest'] as const) expect(actionRefusal(kind, role) === null, `${kind} ${role}`).toBe(!device);
      expect(actionRefusal(kind, 'unknown'), kind).toMatch(/may no longer change anything/);
    }
    // The role acted with is the registry's, never above the caller's admin flag.
    expect(actingRole({ admin: true, person: null }, () => 'admin')).toBe('admin');
    expect(actingRole({ admin: false, person: '5' }, () => 'admin')).toBe('user');
    expect(actingRole({ admin: true, person: '5' }, () => 'unknown')).toBe('unknown');
    expect(actingRole({ admin: true, person: '5' }, () => 'guest')).toBe('guest');
  });
});

describe('a chat turn changes the device only as its role allows', () => {
  it('a user and a guest: orch_model, config and reboot are refused from device.control and from the turn\'s device[]; the ring still follows them', async () => {
    const rig = setup();
    for (const chat of [USER, GUEST]) {
      const before = deviceState(rig);
      // A reboot in device[] too (device.control refuses reboot for everyone).
      const seen = script(rig, [ORCH, CONFIG, LED], [ORCH, CONFIG, REBOOT, LED]);
      expect(await ask(rig, chat, 'switch the whole device to my model, please')).toBe('done');
      // device.control is offered to members (led, lights, tts), and refuses the rest by kind.
      expect(rig.wire.seen.at(-2)!.tools.map((t) => t.name)).toContain('device_control');
      expect(seen.results).toHaveLength(3);
      expect(JSON.parse(seen.results[0]!)).toMatchObject({ success: false, error_type: 'forbidden', error: 'refused: orch_model: changes the device for everyone, so it is for admins only; nothing was changed.' });
      expect(JSON.parse(seen.results[1]!)).toMatchObject({ success: false, error_type: 'forbidden', error: expect.stringMatching(/^refused: config: .*admins only/) });
      expect(JSON.parse(seen.results[2]!)).toMatchObject({ success: true });
      await rig.mem.clock.advance(5000);
      expect(deviceState(rig), chat).toEqual({ ...before, led: 'solid' });
      // The refusals reach the model in the person's next turn.
      rig.device.ctx.actions.apply({ kind: 'led', mode: 'pulse', color: null, brightness: null });
      await ask(rig, chat, 'did it work?');
      const next = JSON.stringify(rig.wire.seen.at(-1)!.transcript);
      expect(next).toContain('[DEVICE] orch_model: changes the device for everyone, so it is for admins only; nothing was changed.');
      expect(next).toContain('[DEVICE] config: changes the device for everyone, so it is for admins only; nothing was changed.');
      expect(next).toContain('[DEVICE] reboot: changes the device for everyone, so it is for admins only; nothing was changed.');
    }
    rig.device.stop();
  });

  it('the owner\'s chat (an admin) changes the model and the settings, from the tool and from device[]', async () => {
    const rig = setup();
    const seen = script(rig, [ORCH, CONFIG]);
    expect(await ask(rig, OWNER, 'use the other model')).toBe('done');
    expect(seen.results.map((r) => JSON.parse(r).success)).toEqual([true, true]);
    expect(deviceState(rig)).toMatchObject({ orch: ['openai', 'gpt-taken-over'], ledBrightness: 7, devName: 'Hijacked' });
    // A user made an admin may too; made a user again, may not.
    const people = rig.device.ctx.chat.people;
    expect(people.setRole(USER, 'admin').ok).toBe(true);
    script(rig, [{ orch_model: { provider: 'mistral', model: 'by-the-new-admin' } }]);
    await ask(rig, USER, 'switch');
    expect(deviceState(rig)['orch']).toEqual(['mistral', 'by-the-new-admin']);
    expect(people.setRole(USER, 'user').ok).toBe(true);
    script(rig, [{ orch_model: { provider: 'openai', model: 'not-any-more' } }]);
    await ask(rig, USER, 'switch again');
    expect(deviceState(rig)['orch']).toEqual(['mistral', 'by-the-new-admin']);
    rig.device.stop();
  });

  it('a revoked chat: its messages never reach the model; a turn still running for it (a sub-agent\'s synthesis) changes nothing at all', async () => {
    const rig = setup();
    const before = deviceState(rig);
    const rounds = rig.wire.seen.length;
    expect(await ask(rig, REVOKED, 'switch the model')).toBe('This chat may no longer talk to this device.');
    expect(rig.wire.seen.length).toBe(rounds);
    // A synthesis turn for a job the person spawned while they were an admin (the flag travels with the job).
    const seen = script(rig, [ORCH, LED]);
    const out = await rig.device.assistant.engine.run({ chat: REVOKED, text: '', person: REVOKED, admin: true, origin: 'synthesis', unattended: true });
    expect(out.status).toBe('ok');
    expect(seen.results.map((r) => JSON.parse(r))).toEqual([
      expect.objectContaining({ success: false, error_type: 'forbidden', error: 'refused: orch_model: this chat may no longer change anything on the device; nothing was changed.' }),
      expect.objectContaining({ success: false, error_type: 'forbidden', error: 'refused: led: this chat may no longer change anything on the device; nothing was changed.' }),
    ]);
    await rig.mem.clock.advance(5000);
    expect(deviceState(rig)).toEqual(before);
    // Over /mcp the token holder is the owner: an admin.
    const { MCP_CALLER } = await import('../../../src/mcp/server.ts');
    expect((await rig.device.ctx.tools.call('device.control', { action: ORCH }, MCP_CALLER)).success).toBe(true);
    rig.device.stop();
  });
});
