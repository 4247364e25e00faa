// grammY's own Bot API client (the grammy package, with its files plugin
// @grammyjs/files for the download), pointed at the Bot API fake
// (tools/telegram-fake.mjs over HTTPS on loopback with the test CA), performs
// the calls the chat messenger relies on and gets what the service would
// answer (https://core.telegram.org/bots/api; issue 35): getMe as
// UserFromGetMe; long polling with Bot.start (deleteWebhook, getUpdates with
// offsets and allowed_updates, updates confirmed, an edit of a kind not
// allowed never delivered, stop confirming the last); getUpdates' negative
// offset, limit, a long poll timing out (the fake's clock is virtual) and a
// second poll ending the held one with 409; sendMessage answered from the
// chat the id names (a user, a group, a -100 supergroup); sendVoice and
// sendDocument with grammY's InputFile uploads (multipart, attach://), a
// file_id sent again; getFile and the download of the same bytes; refusals as
// GrammyError with the service's code and words.
import { Agent, globalAgent } from 'node:https';
import { hydrateFiles } from '@grammyjs/files';
import { Api, Bot, GrammyError, InputFile } from 'grammy';
import type { Update } from '@grammyjs/types';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { oggOpusBytes } from '../../../tools/provider-emulator.mjs';
import { testCaPem } from '../../../tools/test-ca.mjs';
import { DEFAULT_TOKEN, start, type BotApiServer } from '../../../tools/telegram-fake.mjs';
import { DEFAULT_ALLOWED } from '../../../tools/telegram-rules.mjs';
import { VirtualClock } from '../../support/clock.ts';

const USER = 1001;
const GROUP = -4012;
const SUPERGROUP = -1001234567890;

let fake: BotApiServer;
let clock: VirtualClock;
let apiRoot = '';
const agent = new Agent({ ca: testCaPem() });
const globalCa = globalAgent.options.ca;

beforeAll(() => {
  // The files plugin downloads with https.get on the global agent.
  globalAgent.options.ca = testCaPem();
});
afterAll(() => {
  globalAgent.options.ca = globalCa;
});

async function fresh(): Promise<void> {
  clock = new VirtualClock();
  fake = await start({ timers: { setTimeout: (fn, ms) => clock.setTimeout(fn, ms), clearTimeout: (t) => (t as { cancel(): void }).cancel() } });
  // The test CA's certificate names 127.0.0.1 too.
  apiRoot = `https://127.0.0.1:${fake.port}`;
}
afterEach(async () => {
  await fake?.close();
});

/** What the files plugin adds to getFile's answer. */
type Hydrated = { getUrl(): string; download(path?: string): Promise<string> };

const client = () => ({ apiRoot, baseFetchConfig: { agent } });
const api = (token = DEFAULT_TOKEN) => new Api(token, client());
/** Waits for the fake to have seen n calls (a network arrival, not a timer). */
const arrived = (n: number) => vi.waitFor(() => expect(fake.bot.calls.length).toBeGreaterThanOrEqual(n), { timeout: 10_000, interval: 5 });
const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(GrammyError);
  return { code: (e as GrammyError).error_code, description: (e as GrammyError).description };
};

describe("grammY's client against the Bot API fake", () => {
  it('getMe: Bot.init() gets the bot as UserFromGetMe', async () => {
    await fresh();
    const bot = new Bot(DEFAULT_TOKEN, { client: client() });
    await bot.init();
    expect(bot.botInfo).toEqual({
      id: fake.bot.botId,
      is_bot: true,
      first_name: 'Desk',
      username: fake.bot.username,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      can_manage_bots: false,
      supports_join_request_queries: false,
    });
  });

  it("long polling with Bot.start: updates in order, answered and confirmed by the next offset; allowed_updates ['message'] keeps later edits away; stop() confirms the last", async () => {
    await fresh();
    const first = fake.bot.say(USER, 'one');
    fake.bot.say(USER, 'two');
    const bot = new Bot(DEFAULT_TOKEN, { client: client() });
    const seen: string[] = [];
    const edits: string[] = [];
    bot.on('message:text', async (ctx) => {
      seen.push(ctx.message.text);
      await ctx.reply(`echo: ${ctx.message.text}`);
    });
    bot.on('edited_message', (ctx) => void edits.push(ctx.editedMessage.text ?? ''));
    const running = bot.start({ allowed_updates: ['message'], timeout: 30 });
    await fake.bot.waitSent((s) => s.length === 2);
    // The next poll confirms both (#getupdates: "confirmed as soon as getUpdates is called with an offset higher than its update_id").
    await vi.waitFor(() => expect(fake.bot.unconfirmed()).toEqual([]), { timeout: 10_000, interval: 5 });
    expect(fake.bot.allowedUpdates()).toEqual(['message']);
    const edit = fake.bot.say(USER, 'one, fixed', { edited: true });
    const last = fake.bot.say(USER, 'three');
    await fake.bot.waitSent((s) => s.length === 3);
    await vi.waitFor(() => expect(fake.bot.confirmed()).toBe(last + 1), { timeout: 10_000, interval: 5 });
    await bot.stop();
    await running;
    expect(seen).toEqual(['one', 'two', 'three']);
    expect(edits).toEqual([]);
    expect(fake.bot.dropped.map((u) => u.update_id)).toEqual([edit]);
    expect(fake.bot.to(USER).map((s) => s.text)).toEqual(['echo: one', 'echo: two', 'echo: three']);
    const polls = fake.bot.exchanges.filter((x) => x.method === 'getUpdates');
    expect(polls[0]!.params).toMatchObject({ offset: 1, timeout: 30, allowed_updates: ['message'] });
    expect(polls.map((x) => x.params['offset'])).toContain(first + 2);
    // stop(): grammY cuts its held poll off and one last call confirms what was handled (which ends the held poll at the fake, 409).
    expect(polls.filter((x) => x.params['limit'] === 1).map((x) => [x.params, x.status])).toEqual([[{ offset: last + 1, limit: 1 }, 200]]);
    expect(polls.at(-1)).toMatchObject({ status: 409, params: { offset: last + 1, timeout: 30 } });
    expect(fake.bot.exchanges[1]).toMatchObject({ method: 'deleteWebhook', status: 200 });
  });

  it('getUpdates as the service: a negative offset keeps the last -offset updates and forgets the rest; limit; a long poll with nothing answers [] at its timeout; a second poll ends the held one with 409', async () => {
    await fresh();
    const a = api();
    const ids = ['a', 'b', 'c', 'd', 'e'].map((t) => fake.bot.say(USER, t));
    const lastTwo = await a.getUpdates({ offset: -2 });
    expect(lastTwo.map((u: Update) => u.update_id)).toEqual(ids.slice(3));
    // "All previous updates will be forgotten": the default offset now starts there.
    expect((await a.getUpdates()).map((u) => u.message?.text)).toEqual(['d', 'e']);
    expect((await a.getUpdates({ offset: ids[4]! + 1 }))).toEqual([]);
    expect(fake.bot.unconfirmed()).toEqual([]);
    fake.bot.say(USER, 'f');
    fake.bot.say(USER, 'g');
    fake.bot.say(USER, 'h');
    expect((await a.getUpdates({ limit: 2 })).map((u) => u.message?.text)).toEqual(['f', 'g']);
    expect(await refusal(a.getUpdates({ limit: 101 }))).toEqual({ code: 400, description: 'Bad Request: limit must be between 1 and 100' });
    const next = ids[4]! + 4;
    // A long poll with nothing new waits for its timeout (the fake's clock is virtual).
    const calls = fake.bot.calls.length;
    const waiting = a.getUpdates({ offset: next, timeout: 20 });
    await arrived(calls + 1);
    await clock.advance(19_999);
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    await clock.advance(1);
    expect(await waiting).toEqual([]);
    // A second getUpdates ends the held one (one poller per bot).
    const held = a.getUpdates({ offset: next, timeout: 30 });
    await arrived(fake.bot.calls.length + 1);
    expect(await a.getUpdates({ offset: next })).toEqual([]);
    expect(await refusal(held)).toEqual({ code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' });
    // An empty allowed_updates is the default: every kind but chat_member, message_reaction and message_reaction_count.
    await a.getUpdates({ offset: next, allowed_updates: [] });
    expect(fake.bot.allowedUpdates()).toEqual(DEFAULT_ALLOWED);
    expect(DEFAULT_ALLOWED).not.toContain('chat_member');
  });

  it('sendMessage is answered from the chat the id names: a user with first_name, a group and a -100 supergroup with their titles, sent by the bot', async () => {
    await fresh();
    const a = api();
    fake.bot.say(SUPERGROUP, 'hello', { title: 'Desk fans' });
    const toUser = await a.sendMessage(USER, 'hi', { link_preview_options: { is_disabled: true } });
    const toGroup = await a.sendMessage(GROUP, 'hi group');
    const toSuper = await a.sendMessage(String(SUPERGROUP), 'hi all');
    expect(toUser.chat).toEqual({ id: USER, type: 'private', first_name: 'Tester' });
    expect(toGroup.chat).toEqual({ id: GROUP, type: 'group', title: 'A group' });
    expect(toSuper.chat).toEqual({ id: SUPERGROUP, type: 'supergroup', title: 'Desk fans' });
    for (const m of [toUser, toGroup, toSuper]) expect(m.from).toEqual({ id: fake.bot.botId, is_bot: true, first_name: 'Desk', username: fake.bot.username });
    expect(toSuper).toMatchObject({ text: 'hi all', date: expect.any(Number) as number });
    expect(new Set([toUser, toGroup, toSuper].map((m) => m.message_id)).size).toBe(3);
  });

  it("sendVoice and sendDocument with grammY's InputFile uploads; a file_id sent again; getFile and the download of the same bytes (the files plugin)", async () => {
    await fresh();
    const a = api();
    a.config.use(hydrateFiles(DEFAULT_TOKEN, { apiRoot }));
    const ogg = oggOpusBytes(2600);
    const voice = await a.sendVoice(USER, new InputFile(new Uint8Array(ogg), 'hello.ogg'));
    // #voice: duration "as defined by sender", read from the Ogg Opus file when not given.
    expect(voice.voice).toEqual({ file_id: expect.any(String) as string, file_unique_id: expect.any(String) as string, duration: 3, mime_type: 'audio/ogg', file_size: ogg.length });
    const timed = await a.sendVoice(USER, new InputFile(new Uint8Array(ogg)), { duration: 7, caption: 'said' });
    expect(timed).toMatchObject({ caption: 'said', voice: { duration: 7 } });
    // grammY sends the file as a part named by an attach:// value.
    expect(fake.bot.exchanges.find((x) => x.method === 'sendVoice')).toMatchObject({ via: 'multipart', params: { chat_id: String(USER), voice: expect.stringMatching(/^attach:\/\//) as string } });
    const notes = Buffer.from('# Notes\n\nsecond line\n');
    const doc = await a.sendDocument(SUPERGROUP, new InputFile(new Uint8Array(notes), 'notes.md'), { caption: 'the notes' });
    expect(doc.document).toEqual({ file_id: expect.any(String) as string, file_unique_id: expect.any(String) as string, file_name: 'notes.md', mime_type: 'text/markdown', file_size: notes.length });
    expect(doc.chat).toMatchObject({ type: 'supergroup' });
    expect(new Set([voice.voice.file_unique_id, timed.voice.file_unique_id, doc.document.file_unique_id]).size).toBe(3);
    const again = await a.sendDocument(USER, doc.document.file_id);
    expect(again.document).toMatchObject({ file_name: 'notes.md', file_size: notes.length });
    const file = (await a.getFile(doc.document.file_id)) as Awaited<ReturnType<Api['getFile']>> & Hydrated;
    expect(file).toMatchObject({ file_id: doc.document.file_id, file_unique_id: doc.document.file_unique_id, file_size: notes.length, file_path: expect.stringMatching(/^documents\/file_\d+\.md$/) as string });
    expect(file.getUrl()).toBe(`${apiRoot}/file/bot${DEFAULT_TOKEN}/${file.file_path}`);
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(await file.download())).toEqual(notes);
    // The voice message's file too.
    const voiceFile = (await a.getFile(voice.voice.file_id)) as Awaited<ReturnType<Api['getFile']>> & Hydrated;
    expect(voiceFile.file_path).toMatch(/^voice\/file_\d+\.oga$/);
    expect(await readFile(await voiceFile.download())).toEqual(ogg);
  });

  it("refusals come back as grammY's GrammyError with the service's code and words", async () => {
    await fresh();
    const a = api();
    expect(await refusal(api('42:wrong-token-0000000000000000').getMe())).toEqual({ code: 401, description: 'Unauthorized' });
    expect(await refusal(a.sendMessage(USER, ' '))).toEqual({ code: 400, description: 'Bad Request: message text is empty' });
    expect(await refusal(a.sendMessage(USER, 'x'.repeat(4097)))).toEqual({ code: 400, description: 'Bad Request: message is too long' });
    expect(await refusal(a.sendMessage(0, 'x'))).toEqual({ code: 400, description: 'Bad Request: chat not found' });
    expect(await refusal(a.getFile('no-such-file'))).toEqual({ code: 400, description: 'Bad Request: invalid file_id' });
    expect((await refusal(a.sendVoice(USER, new InputFile(new Uint8Array([82, 73, 70, 70, 0, 0])), {}))).description).toMatch(/^Bad Request: a voice message must be an \.OGG file encoded with OPUS, an \.MP3 or an \.M4A \(https:\/\/core\.telegram\.org\/bots\/api#sendvoice\)/);
    expect(await refusal(a.sendDocument(USER, new InputFile(new Uint8Array([1])), { caption: 'c'.repeat(1025) }))).toEqual({ code: 400, description: 'Bad Request: message caption is too long' });
    // Stricter than the service: a parameter the method does not take is named, not ignored.
    const raw = a.raw as unknown as Record<string, (p: object) => Promise<unknown>>;
    expect(await refusal(raw['sendMessage']!({ chat_id: USER, text: 'x', disable_preview: true }))).toEqual({
      code: 400,
      description: `Bad Request: parameter "disable_preview" is not one of sendMessage's (https://core.telegram.org/bots/api#sendmessage); the service would ignore it`,
    });
    fake.bot.block(USER);
    expect(await refusal(a.sendMessage(USER, 'x'))).toEqual({ code: 403, description: 'Forbidden: bot was blocked by the user' });
    await a.setWebhook('https://example.org/hook');
    expect(await refusal(a.getUpdates())).toEqual({ code: 409, description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first" });
    expect(await a.deleteWebhook()).toBe(true);
    expect(await a.getUpdates()).toEqual([]);
  });
});
