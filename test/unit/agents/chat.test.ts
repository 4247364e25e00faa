// Boots the whole device: sub-agent jobs run from a chat message through the turn, the fabric, the outbox and the messenger.
// The sub-agent fabric's messages in the chat, end to end on the in-memory
// HAL: jobs on the provider emulator's job logic, turns on a scripted wire,
// the chat messenger against the Bot API fake, all on the virtual clock. A
// job's completion, the synthesis reply and directly delivered results
// reach the spawning chat through the chat's durable send queue: whole (not
// cut at the outbox's notice size), signed only when the device speaks; a
// web spawn refused for a full queue is told to the owner's chat.
import { describe, expect, it } from 'vitest';
import { DIRECT_HEADING } from '../../../src/agents/synthesis.ts';
import { queueFullText } from '../../../src/agents/fabric.ts';
import { DIRECT_MS, FRESH_CHARS, POLL_MS, PUMP_MS, QUEUE_DEPTH } from '../../../src/agents/limits.ts';
import { HTTP_PORT } from '../../../src/main.ts';
import type { RoundResult } from '../../../src/contracts/index.ts';
import type { BotApiFake } from '../../../tools/telegram-fake.mjs';
import { rig, turn, turnResult, type Rig } from '../../support/agent-rig.ts';
import { request } from '../../support/http.ts';
import { fakeTelegram } from '../../support/telegram-net.ts';

const TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
const OWNER = '1001';
const MEMBER = '2002';
const SIGNED = /\n\n— Desk assistant · firmware v0\.1\.0$/;

const spec = (task: string, over: Record<string, unknown> = {}) => ({ task, provider: '', model: '', skill: '', name: '', project: '', attach: [] as string[], ...over });

function chatRig(): Rig & { bot: BotApiFake } {
  const r = rig({
    nvs: [
      ['chat', 'token', TOKEN],
      ['chat', 'allow', `${OWNER},${MEMBER}`],
    ],
  });
  const bot = fakeTelegram(r.mem.net, () => r.mem.clock);
  return { ...r, bot };
}

describe("the fabric's messages in the chat", () => {
  it('a synthesis reply far over 600 bytes reaches the spawning chat whole and unsigned; the completion before it is signed', async () => {
    const { device, wire, net, mem, bot } = chatRig();
    net.script({ polls: 1, result: 'The findings, in detail.' });
    device.agents.fabric.enqueue(spec('look into it', { name: 'scout' }), { chat: MEMBER, person: MEMBER, admin: false });
    const reply = `Here is what the scout found. ${'Ünïcödé détails, '.repeat(120)}That is all.`;
    expect(Buffer.byteLength(reply)).toBeGreaterThan(2000);
    wire.script(turnResult({ reply }));
    expect(await mem.clock.until(() => bot.to(MEMBER).length === 2, POLL_MS + 10_000, 100)).toBe(true);
    const [done, synth] = bot.to(MEMBER).map((m) => m.text);
    expect(done).toMatch(/^Job \[scout\] is done\. A summary follows\./);
    expect(done).toMatch(SIGNED);
    expect(synth).toBe(reply);
    // Nothing waited in the outbox, and the owner's chat heard nothing.
    expect(device.ctx.outbox.pending()).toHaveLength(0);
    expect(bot.to(OWNER)).toHaveLength(0);
  });

  it('delivers a result directly with its first 3500 characters, in one message, when the synthesis cannot start within 60 s', async () => {
    const { device, wire, net, mem, bot } = chatRig();
    const result = `${'a'.repeat(FRESH_CHARS - 1)}Z${'#'.repeat(20_000)}`;
    net.script({ polls: 1, result });
    device.agents.fabric.enqueue(spec('compute', { name: 'deep thought' }), { chat: OWNER, person: null, admin: true });
    await mem.clock.advance(10);
    let release: (r: RoundResult) => void = () => {};
    wire.script(() => new Promise<RoundResult>((res) => (release = res)));
    const busy = turn(device, 'a long question', { chat: 'held' });
    await mem.clock.advance(POLL_MS + DIRECT_MS + 100);
    expect(await mem.clock.until(() => bot.to(OWNER).length === 2, 5_000, 50)).toBe(true);
    const direct = bot.to(OWNER)[1]!.text;
    expect(direct.startsWith(`${DIRECT_HEADING}\n\n[deep thought] (`)).toBe(true);
    // Exactly the first 3500 characters (ending in the marker), then the pointer to the rest.
    expect(direct).toContain(`):\n${'a'.repeat(FRESH_CHARS - 1)}Z\n(cut; results.get has the rest)`);
    expect(direct).not.toContain('#');
    expect(direct).toMatch(SIGNED);
    expect(direct.length).toBeLessThanOrEqual(4096);
    release(turnResult({ reply: 'done thinking' }));
    await busy;
  });

  it('two results delivered directly go out whole, split into messages of at most 4096 characters', async () => {
    const { device, wire, net, mem, bot } = chatRig();
    net.script({ polls: 1, result: 'x'.repeat(3000) }, { polls: 1, result: 'y'.repeat(3000) });
    const f = device.agents.fabric;
    f.enqueue(spec('one', { name: 'first' }), { chat: OWNER, person: null, admin: true });
    f.enqueue(spec('two', { name: 'second' }), { chat: OWNER, person: null, admin: true });
    await mem.clock.advance(2_000);
    // The synthesis turn fails: the raw results go directly instead.
    wire.script({ kind: 'error', error: 'auth', message: 'bad key' });
    await mem.clock.advance(POLL_MS + 3_100);
    // (The failed turn's provider switch notices come first.)
    const at = (): number => bot.to(OWNER).findIndex((m) => m.text.startsWith(DIRECT_HEADING));
    expect(await mem.clock.until(() => at() >= 0 && bot.to(OWNER).length >= at() + 2, 5_000, 50)).toBe(true);
    const pieces = bot.to(OWNER).slice(at()).map((m) => m.text);
    expect(pieces).toHaveLength(2);
    expect(pieces.every((p) => p.length <= 4096)).toBe(true);
    const whole = pieces.join('\n');
    expect(whole).toContain('x'.repeat(3000));
    expect(whole).toContain('y'.repeat(3000));
  });

  it("a web spawn that finds the queue full is told to the owner's chat, signed, as well as answered 409", async () => {
    const { device, net, mem, bot } = chatRig();
    for (let i = 0; i < 20; i++) net.script({ polls: 1000 });
    const f = device.agents.fabric;
    for (let i = 0; i < 4; i++) f.enqueue(spec(`busy ${i}`), { chat: 'console', person: null, admin: true });
    await mem.clock.advance(PUMP_MS * 4);
    for (let i = 0; i < QUEUE_DEPTH; i++) expect(f.enqueue(spec(`wait ${i}`), { chat: 'console', person: null, admin: true }).ok).toBe(true);
    const token = device.ctx.token.reveal();
    const res = await request(mem.net, HTTP_PORT, 'POST', '/api/sessions', { headers: { 'X-Device-Token': token, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'action=spawn&task=one+more&name=late' });
    expect(res.status).toBe(409);
    expect(await mem.clock.until(() => bot.to(OWNER).length === 1, 5_000, 50)).toBe(true);
    expect(bot.to(OWNER)[0]!.text).toBe(`${queueFullText(['late'])}\n\n— Desk assistant · firmware v0.1.0`);
  });
});
