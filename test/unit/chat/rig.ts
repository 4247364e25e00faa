// The chat alone on a test kernel (issue 25): the chat subsystem mounted with
// the real file store below it and small fakes for the rest (an assistant that
// echoes), the HTTP server on the kernel's router and the console started,
// against the Bot API fake (tools/telegram-fake.mjs on the in-memory network,
// virtual clock). Used by the chat's tests that need no other subsystem.
import type { Chat } from '../../../src/chat/chat.ts';
import { chat, type ChatOptions } from '../../../src/chat/index.ts';
import { Outbox, OUTBOX_NS } from '../../../src/outbox/outbox.ts';
import type { Kernel } from '../../../src/core/kernel.ts';
import { mount, ready, unmountAll } from '../../../src/core/subsystem.ts';
import { files } from '../../../src/files/index.ts';
import { HttpClient } from '../../../src/net/http/client.ts';
import { HttpServer } from '../../../src/net/http/server.ts';
import { DeviceTlsPolicy } from '../../../src/net/tls.ts';
import { Card } from '../../../src/storage/card.ts';
import type { BotApiFake } from '../../../tools/telegram-fake.mjs';
import { request } from '../../support/http.ts';
import { pending, testKernel } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { fakeModeration, fakeTelegram, serveTelegram, type ModerationFake } from '../../support/telegram-net.ts';

export const TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
export const OWNER = '1001';
export const USER = '2002';
export const GUEST = '3003';
const PORT = 80;
export const ADMIN_CALLER = { via: 'mcp' as const, admin: true, scheduled: false, unattended: false, person: null };

export interface ChatRig {
  mem: MemHal;
  kernel: Kernel;
  chat: Chat;
  outbox: Outbox;
  http: HttpServer;
  bot: BotApiFake;
  mod: ModerationFake;
  token: string;
  /** The texts the assistant was asked to answer (it answers "echo: <text>"). */
  seen: string[];
}

/** Mounts the chat (and the file store it plugs into) on a test kernel over mem; fakes for the rest. */
function start(rig: ChatRig): void {
  const { kernel } = testKernel({ mem: rig.mem });
  const { hal } = rig.mem;
  const client = new HttpClient(hal.net, hal.clock, new DeviceTlsPolicy(kernel.store('net')), `desk-assistant/${hal.build.version}`);
  const card = new Card(hal.sd);
  const outbox = new Outbox(kernel.store(OUTBOX_NS), hal.clock);
  // Files take the chat's side (people, delivery, the screen) when it mounts, as in the boot.
  const later = pending<Chat>('chat');
  const { files: store } = mount(kernel, files, { card, client, outbox: outbox, chat: later });
  const options: ChatOptions = {
    outbox,
    client,
    assistant: {
      engine: {
        run: (req) => {
          rig.seen.push(req.text);
          req.deliver?.(`echo: ${req.text}`, '');
          return Promise.resolve(null);
        },
      },
      clear: () => undefined,
    },
    compactor: { busy: () => false, hasConversation: () => false, compact: () => Promise.resolve({ ok: false, message: 'no compaction in this test' }) },
    providers: { key: (p) => (p === 'openai' ? 'sk-openai-secret' : null) },
    files: store,
    music: { command: () => ({ message: 'no music in this test' }) },
    updates: { apply: () => ({ ok: false, reason: 'up-to-date', message: 'The firmware is up to date.', offer: null }), addBusyProbe: () => undefined },
    actions: { config: () => undefined },
    memory: ready({ scratch: { setActive: () => undefined }, episodic: { append: () => undefined } }),
    voice: pending('voice'),
    audio: { endpoint: () => ({ ok: false, reason: 'no speech in this test' }), voiceMessage: () => Promise.resolve({ ok: false, reason: 'no speech in this test' }) },
    card,
  };
  rig.kernel = kernel;
  rig.outbox = outbox;
  rig.chat = mount(kernel, chat, options);
  later.set(rig.chat);
  kernel.console.start();
  rig.http = new HttpServer(hal.net, hal.clock, kernel.router);
  rig.http.listen(PORT);
}

export function chatRig(options: { token?: string | null; moderation?: Partial<Record<'modIn' | 'modOut' | 'modFetch', number>> } = {}): ChatRig {
  const mem = createMemHal();
  const rig = { mem, token: 'test-kernel-gate-is-open', seen: [] as string[] } as ChatRig;
  if (options.token !== null) mem.nvs.set('chat', 'token', options.token ?? TOKEN);
  mem.nvs.set('chat', 'allow', [OWNER, USER, GUEST].join(','));
  for (const [k, v] of Object.entries(options.moderation ?? {})) mem.nvs.set('chat', k, v);
  rig.bot = fakeTelegram(mem.net, () => rig.mem.clock);
  rig.mod = fakeModeration(mem.net);
  start(rig);
  return rig;
}

/** Reboots onto the same NVS, card and Bot API fake (the old kernel's clock stops). */
export function reboot(rig: ChatRig): void {
  unmountAll(rig.kernel);
  rig.http.close();
  rig.mem = rebootMemHal(rig.mem);
  serveTelegram(rig.bot, rig.mem.net);
  fakeModeration(rig.mem.net, rig.mod);
  start(rig);
}

export async function until(rig: ChatRig, pred: () => boolean, ms = 30_000): Promise<void> {
  if (!(await rig.mem.clock.until(pred, ms, 50))) throw new Error(`not within ${ms} ms; sent: ${JSON.stringify(rig.bot.sent.map((s) => [s.chat, s.text]))}`);
}

/** A person says something; resolves with the bot's next message(s) to that chat. */
export async function ask(rig: ChatRig, chat: string, text: string, replies = 1): Promise<string[]> {
  const before = rig.bot.to(chat).length;
  rig.bot.say(chat, text);
  await until(rig, () => rig.bot.to(chat).length >= before + replies);
  return rig.bot.to(chat).slice(before).map((s) => s.text);
}

export async function api(rig: ChatRig, method: string, path: string, fields?: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = fields ? new URLSearchParams(fields).toString() : undefined;
  const res = await request(rig.mem.net, PORT, method, path, {
    headers: { 'X-Device-Token': rig.token, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    ...(body ? { body } : {}),
  });
  return { status: res.status, json: JSON.parse(res.body) as Record<string, unknown> };
}

export async function consoleLine(rig: ChatRig, line: string): Promise<string> {
  const serial = rig.mem.serial;
  serial.take();
  serial.type(`${line}\r\n`);
  await until(rig, () => /(^|\n)(OK|ERR[^\n]*)\r?\n$/.test(serial.output), 10_000);
  return serial.take().replace(/\r/g, '');
}
