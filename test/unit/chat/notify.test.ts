// Device messages (the chat's notify: the durable send queue, keys,
// splitting, the outbound screen, the outbox while the chat cannot take
// them), on the chat alone (./rig.ts: mounted on a test kernel).
// The whole device's chat (turns, owner commands, people) is
// test/unit/chat/chat.test.ts.
import { describe, expect, it } from 'vitest';
import type { DeviceMessage } from '../../../src/chat/index.ts';
import { DEVICE_QUEUE_MAX } from '../../../src/chat/queue.ts';
import { ADMIN_CALLER, api, chatRig as setup, GUEST, OWNER, reboot, TOKEN, until, USER } from './rig.ts';

describe('device messages (the chat\'s notify): durable, keyed, split, screened', () => {
  const message = (over: Partial<DeviceMessage> = {}): DeviceMessage => ({ key: 'job:j1:done', text: 'Job [n] is done.', signed: true, provenance: 'model', ...over });

  it('go through the send queue whole (split at 4096, never cut at 600 bytes); signed only when the device speaks', async () => {
    const rig = setup();
    await rig.mem.clock.advance(10); // the service starts just after boot
    const long = Array.from({ length: 120 }, (_, i) => `Paragraph ${i}: ${'ünïcode '.repeat(6).trim()}`).join('\n');
    expect(Buffer.byteLength(long)).toBeGreaterThan(6000);
    expect(rig.chat.notify(message({ key: 'synth:j1', text: long, signed: false, chat: USER }))).toBe('queued');
    await until(rig, () => rig.bot.to(USER).length === 2);
    const got = rig.bot.to(USER).map((m) => m.text);
    expect(got.every((t) => t.length <= 4096)).toBe(true);
    expect(got.join('\n')).toBe(long);
    expect(rig.chat.notify(message({ chat: USER }))).toBe('queued');
    await until(rig, () => rig.bot.to(USER).length === 3);
    expect(rig.bot.to(USER)[2]!.text).toMatch(/^Job \[n\] is done\.\n\n— Desk assistant · firmware v0\.1\.0$/);
    // Without a chat: the owner's.
    rig.chat.notify(message({ key: 'k2', text: 'for the owner' }));
    await until(rig, () => rig.bot.to(OWNER).length === 1);
    expect(rig.outbox.pending()).toHaveLength(0);
  });

  it('are sent once per key, also when a restart queues the same message again', async () => {
    const rig = setup();
    await rig.mem.clock.advance(10); // the service starts just after boot
    expect(rig.chat.notify(message())).toBe('queued');
    expect(rig.chat.notify(message({ text: 'again' }))).toBe('duplicate');
    await until(rig, () => rig.bot.to(OWNER).length === 1);
    reboot(rig);
    await rig.mem.clock.advance(10);
    expect(rig.chat.notify(message())).toBe('duplicate');
    rig.chat.notify(message({ key: 'job:j2:done', text: 'Job [m] is done.' }));
    await until(rig, () => rig.bot.to(OWNER).length === 2);
    await rig.mem.clock.advance(2000);
    expect(rig.bot.to(OWNER).map((m) => m.text.split('\n')[0])).toEqual(['Job [n] is done.', 'Job [m] is done.']);
  });

  it('wait in the outbox while there is no bot token (a long one cut with a mark saying where the whole text is), and go out once one is set', async () => {
    const rig = setup({ token: null });
    const long = 'x'.repeat(3000);
    expect(rig.chat.notify({ ...message({ key: 'direct:j1', text: long }), rest: 'GET /api/sessions has it' })).toBe('waiting');
    expect(rig.chat.notify(message({ key: 'synth:j2', text: 'A summary.', signed: false }))).toBe('waiting');
    await rig.mem.clock.advance(3000);
    expect(rig.bot.sent).toHaveLength(0);
    expect((await api(rig, 'POST', '/api/chat', { tg_token: TOKEN })).status).toBe(200);
    await until(rig, () => rig.bot.to(OWNER).length === 2);
    const [direct, synth] = rig.bot.to(OWNER).map((m) => m.text);
    expect(direct).toMatch(/^x+\n\[cut: \d+ more bytes did not fit a waiting notice; GET \/api\/sessions has it\]\n\n— Desk assistant/);
    // The assistant's words stay unsigned on the way through the outbox too.
    expect(synth).toBe('A summary.');
  });

  it('while the Bot API is down, at most 24 pieces wait in the send queue and the rest in the outbox; all go out in order once it is back', async () => {
    const rig = setup();
    await rig.mem.clock.advance(10);
    rig.bot.fail('sendMessage', 500, { times: 5 });
    for (let i = 0; i < 30; i++) rig.chat.notify(message({ key: `job:j${i}:done`, text: `Job [n${i}] is done.` }));
    expect(rig.chat.queue.pendingOut()).toHaveLength(DEVICE_QUEUE_MAX);
    expect(rig.outbox.pending()).toHaveLength(30 - DEVICE_QUEUE_MAX);
    // Tries at 0, 1, 3, 7 and 15 s fail (the wait doubles, and new messages do not cut it short); 31 s succeeds.
    await rig.mem.clock.advance(30_000);
    expect(rig.bot.to(OWNER)).toHaveLength(0);
    await until(rig, () => rig.bot.to(OWNER).length === 30, 120_000);
    expect(rig.mem.clock.monoMs()).toBeGreaterThanOrEqual(31_000);
    expect(rig.bot.to(OWNER).map((m) => m.text.split('\n')[0])).toEqual(Array.from({ length: 30 }, (_, i) => `Job [n${i}] is done.`));
    expect(rig.outbox.pending()).toHaveLength(0);
  });

  it('screen model-written text to a guest before it is sent (whole, durably): clean goes out, flagged is held, device text is exempt', async () => {
    const rig = setup({ moderation: { modOut: 1 } });
    await rig.mem.clock.advance(10);
    expect((await rig.kernel.tools.call('tenant.set_role', { chat: GUEST, role: 'guest' }, ADMIN_CALLER)).success).toBe(true);
    rig.mod.decide = (input) => (input.includes('BAD') ? ['violence'] : 503);
    // A restart before the verdict: the message waits whole in the queue, and is checked after it.
    rig.chat.notify(message({ key: 'synth:g1', text: 'a fine summary', signed: false, chat: GUEST }));
    expect(rig.chat.queue.pendingScreen()).toHaveLength(1);
    reboot(rig);
    // No verdict (503): sent anyway (fails open), once.
    await until(rig, () => rig.bot.to(GUEST).length === 1);
    expect(rig.bot.to(GUEST)[0]!.text).toBe('a fine summary');
    rig.chat.notify(message({ key: 'synth:g2', text: 'a BAD summary', signed: false, chat: GUEST }));
    await until(rig, () => rig.bot.to(GUEST).length === 2);
    expect(rig.bot.to(GUEST)[1]!.text).toMatch(/^A message for you was held back: it did not pass this device's content check\./);
    await until(rig, () => rig.bot.to(OWNER).some((m) => m.text.startsWith(`A reply to chat ${GUEST}`)));
    const asked = rig.mod.inputs.length;
    rig.chat.notify(message({ key: 'note:g3', text: 'a BAD device note', chat: GUEST, provenance: 'device' }));
    await until(rig, () => rig.bot.to(GUEST).length === 3);
    expect(rig.mod.inputs).toHaveLength(asked);
    expect(rig.chat.queue.pendingScreen()).toHaveLength(0);
  });
});
