// The chat messenger's Bot API traffic judged by @grammyjs/types (the
// declarations grammY maintains from the Bot API's documentation; issue 35):
// every request the firmware sends (getMe, getUpdates, sendMessage, the
// multipart sendVoice and sendDocument, getFile) is written into a
// TypeScript file as a literal typed with the method's declared parameters
// (Opts<InputFile>[method]) and type-checked, and every download fetches a
// file_path a getFile answer gave; every answer the Bot API fake sends, of
// each kind it makes, is typed as the method's declared result (ApiResponse)
// the same way. Planted wrong requests and answers, each one field off, must
// fail the same check with a diagnostic naming that field. The uploads'
// multipart bodies are read by Node's own FormData parser (undici). The fake's tables
// (each method's parameters, the update kinds) must equal the declarations'.
// grammY's own client against the fake: grammy.test.ts.
import { describe, expect, it } from 'vitest';
import { createBotApi, type BotApiFake, type Exchange } from '../../../tools/telegram-fake.mjs';
import { oggOpusBytes } from '../../../tools/provider-emulator.mjs';
import { UPDATE_TYPES } from '../../../tools/telegram-rules.mjs';
import { answerLine, FAKE_METHODS, FIRST_LINE, HEADER, names, requestLine, show, typecheck, typeKeys } from '../../support/bot-api-types.ts';
import { chatRig, OWNER, until, USER } from './rig.ts';

const enc = new TextEncoder();

/** Drives the firmware's chat over the fake: a text, a photo and a document received, a reply, a document and a voice message sent. */
async function deviceTraffic(): Promise<Exchange[]> {
  const rig = chatRig();
  await until(rig, () => rig.bot.calls.some((c) => c.method === 'getUpdates'));
  rig.bot.say(OWNER, 'hello there');
  await until(rig, () => rig.bot.to(OWNER).length === 1);
  rig.bot.say(OWNER, 'my desk', { photo: new Uint8Array(3000).map((_, i) => i & 0xff) });
  await until(rig, () => rig.bot.to(OWNER).length === 2);
  rig.bot.say(USER, 'the plan', { document: { name: 'plan.md', bytes: enc.encode('# Plan\n'), mime: 'text/markdown' } });
  await until(rig, () => rig.bot.to(USER).length === 1);
  expect(await rig.chat.sendDocument(OWNER, { name: 'report.md', bytes: enc.encode('# Report\n'), mime: 'text/markdown' }, 'inbox/report.md')).toEqual({ ok: true });
  expect(await rig.chat.sendVoice(OWNER, { name: 'speech.ogg', bytes: new Uint8Array(oggOpusBytes(1200)), mime: 'audio/ogg' })).toEqual({ ok: true });
  return rig.bot.exchanges;
}

function post(bot: BotApiFake, method: string, params: Record<string, unknown>, token = bot.token): Promise<unknown> {
  return bot.handle('POST', `/bot${token}/${method}`, { 'content-type': 'application/json' }, enc.encode(JSON.stringify(params)));
}

/** Every kind of answer the fake makes: each update kind, each chat kind, each file kind, each refusal. */
async function everyAnswer(): Promise<Exchange[]> {
  const bot = createBotApi();
  await post(bot, 'getMe', {});
  bot.say('1001', 'text');
  bot.say('1001', 'a caption', { photo: new Uint8Array(50) });
  bot.say('1001', '', { document: { name: 'a.pdf', bytes: new Uint8Array(9), mime: 'application/pdf' } });
  bot.say('1001', '', { voice: new Uint8Array(oggOpusBytes(3000)) });
  bot.say('1001', '', { sticker: true });
  bot.say('1001', 'fixed', { edited: true });
  bot.say('-4012', 'hi group', { fromId: 77, firstName: 'Ann' });
  bot.say('-1001234567890', 'hi supergroup', { fromId: 78, username: 'bea_b' });
  bot.say('1002', 'from a bot', { isBot: true });
  await post(bot, 'getUpdates', { offset: 0, limit: 100, timeout: 0 });
  for (const chat of ['1001', -4012, '-1001234567890']) await post(bot, 'sendMessage', { chat_id: chat, text: 'hello', link_preview_options: { is_disabled: true } });
  const up = (fields: Record<string, string>, file: [string, string, Uint8Array]) => {
    const b = '----b0undary';
    const parts = Object.entries(fields).map(([k, v]) => `--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
    const body = Buffer.concat([Buffer.from(parts.join('')), Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${file[0]}"; filename="${file[1]}"\r\nContent-Type: application/octet-stream\r\n\r\n`), Buffer.from(file[2]), Buffer.from(`\r\n--${b}--\r\n`)]);
    return { headers: { 'content-type': `multipart/form-data; boundary=${b}` }, body };
  };
  const voice = up({ chat_id: '1001', caption: 'said' }, ['voice', 'v.ogg', new Uint8Array(oggOpusBytes(2000))]);
  await bot.handle('POST', `/bot${bot.token}/sendVoice`, voice.headers, voice.body);
  const doc = up({ chat_id: '-1001234567890' }, ['document', 'notes.txt', enc.encode('notes')]);
  await bot.handle('POST', `/bot${bot.token}/sendDocument`, doc.headers, doc.body);
  const fileId = (bot.exchanges.at(-1)!.answer as { result: { document: { file_id: string } } }).result.document.file_id;
  await post(bot, 'getFile', { file_id: fileId });
  await post(bot, 'setWebhook', { url: 'https://example.org/hook' });
  await post(bot, 'getUpdates', {});
  await post(bot, 'deleteWebhook', { drop_pending_updates: true });
  // Refusals: a wrong token, a bad request, a blocked chat, flood control with retry_after.
  await post(bot, 'getMe', {}, '1:wrong');
  await post(bot, 'sendMessage', { chat_id: '1001', text: '' });
  bot.block('1001');
  await post(bot, 'sendMessage', { chat_id: '1001', text: 'x' });
  bot.fail('getUpdates', 429, { description: 'Too Many Requests: retry after 7', retryAfter: 7 });
  await post(bot, 'getUpdates', {});
  return bot.exchanges;
}

describe("the firmware's requests, typed by @grammyjs/types", () => {
  it('getMe, getUpdates, sendMessage, the multipart sendVoice and sendDocument and getFile type-check as the declared parameters; every download is a file_path getFile gave', async () => {
    const exchanges = await deviceTraffic();
    const calls = exchanges.filter((x) => x.method !== 'download');
    expect(new Set(calls.map((x) => x.method))).toEqual(new Set(['getMe', 'getUpdates', 'sendMessage', 'sendVoice', 'sendDocument', 'getFile']));
    expect(calls.filter((x) => x.status !== 200).map((x) => [x.method, x.answer])).toEqual([]);
    // The uploads went as multipart with the file under the method's file parameter.
    expect(calls.filter((x) => x.method === 'sendVoice' || x.method === 'sendDocument').map((x) => [x.via, Object.keys(x.files)])).toEqual([
      ['multipart', ['document']],
      ['multipart', ['voice']],
    ]);
    const source = HEADER + calls.map((x, i) => requestLine(`r${i}`, x)).join('\n') + '\n';
    const wrong = typecheck({ 'device-requests.ts': source });
    expect(show(wrong), 'requests the declarations refuse').toBe('');
    // #getfile: downloads go to https://api.telegram.org/file/bot<token>/<file_path>, a path getFile answered.
    const paths = new Set(calls.filter((x) => x.method === 'getFile').map((x) => (x.answer as { result: { file_path: string } }).result.file_path));
    const downloads = exchanges.filter((x) => x.method === 'download');
    expect(downloads.length).toBe(2);
    expect(downloads.filter((x) => !paths.has(String(x.params['file_path'])) || x.status !== 200)).toEqual([]);
  }, 120_000); // tsc loads the declarations: seconds, more on a busy machine

  it("the uploads' multipart/form-data bodies parse with Node's own FormData reader (undici) to the same fields and bytes; a torn body does not", async () => {
    const uploads = (await deviceTraffic()).filter((x) => x.raw);
    expect(uploads.map((x) => x.method)).toEqual(['sendDocument', 'sendVoice']);
    for (const x of uploads) {
      const form = await new Response(new Uint8Array(x.raw!.body), { headers: { 'content-type': x.raw!.contentType } }).formData();
      const field = x.method === 'sendVoice' ? 'voice' : 'document';
      const text = [...form.entries()].filter(([, v]) => typeof v === 'string');
      expect(Object.fromEntries(text), `${x.method}'s fields`).toEqual(x.params);
      const file = form.get(field) as File;
      const part = x.files[field]!;
      expect({ name: file.name, type: file.type, size: file.size }, `${x.method}'s ${field} part`).toEqual({ name: part.name, type: part.mime, size: part.size });
    }
    const torn = uploads[0]!.raw!;
    await expect(new Response(new Uint8Array(torn.body.subarray(0, torn.body.length - 8)), { headers: { 'content-type': torn.contentType } }).formData()).rejects.toThrow();
  });

  it('a planted wrong request fails the same check, naming the field or the method', async () => {
    const exchanges = await deviceTraffic();
    const first = (m: string) => exchanges.find((x) => x.method === m)!;
    const send = first('sendMessage');
    const poll = first('getUpdates');
    const voice = first('sendVoice');
    const { chat_id: chatId, ...noChat } = send.params;
    const planted: Array<[string, Pick<Exchange, 'method' | 'params' | 'files'>]> = [
      ['chat', { ...send, params: { ...noChat, chat: chatId } }],
      ['messages', { ...poll, params: { ...poll.params, allowed_updates: ['messages'] } }],
      ['audio', { ...voice, files: { audio: voice.files['voice']! } }],
      ['disabled', { ...send, params: { ...send.params, link_preview_options: { disabled: true } } }],
      ['offset', { ...poll, params: { ...poll.params, offset: String(poll.params['offset']) } }],
      ['sendMesage', { ...send, method: 'sendMesage' as Exchange['method'] }],
    ];
    const source = HEADER + planted.map(([, x], i) => requestLine(`n${i}`, x)).join('\n') + '\n';
    const found = typecheck({ 'planted-requests.ts': source });
    const missed = planted.filter(([field], i) => !names(found, FIRST_LINE + i, field)).map(([field]) => field);
    expect(missed, `planted requests whose diagnostic does not name the field:\n${show(found)}`).toEqual([]);
  }, 120_000);
});

describe("the fake's answers, typed by @grammyjs/types", () => {
  it('every answer of every kind (each update, chat and file kind, uploads, getFile, webhooks, refusals) type-checks as the declared result', async () => {
    const exchanges = [...(await everyAnswer()), ...(await deviceTraffic())].filter((x) => x.method !== 'download');
    expect(new Set(exchanges.map((x) => x.method))).toEqual(new Set(Object.keys(FAKE_METHODS)));
    const source = HEADER + exchanges.map((x, i) => answerLine(`a${i}`, x.method, x.answer)).join('\n') + '\n';
    const wrong = typecheck({ 'fake-answers.ts': source });
    expect(show(wrong), 'answers the declarations refuse').toBe('');
    // #update: "At most one of the optional fields can be present in any given update."
    const updates = exchanges.filter((x) => x.method === 'getUpdates' && x.status === 200).flatMap((x) => (x.answer as { result: Array<Record<string, unknown>> }).result);
    expect(updates.length).toBeGreaterThan(9);
    expect(updates.filter((u) => Object.keys(u).length !== 2)).toEqual([]);
    // Refusals carry the service's words and codes; flood control says when to retry (#responseparameters).
    const refusals = exchanges.filter((x) => x.status !== 200).map((x) => x.answer);
    expect(refusals).toEqual([
      { ok: false, error_code: 409, description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first" },
      { ok: false, error_code: 401, description: 'Unauthorized' },
      { ok: false, error_code: 400, description: 'Bad Request: message text is empty' },
      { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
      { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } },
    ]);
  }, 120_000);

  it('a planted wrong answer (the drifts the fake had) fails the same check, naming the field', async () => {
    const exchanges = await everyAnswer();
    const result = (m: string, pred: (r: Record<string, unknown>) => boolean = () => true) =>
      (exchanges.find((x) => x.method === m && x.status === 200 && pred((x.answer as { result: Record<string, unknown> }).result))!.answer as { result: Record<string, unknown> }).result;
    const me = result('getMe');
    const { can_join_groups: _c, ...meShort } = me;
    const voiceMsg = result('sendVoice');
    const { file_unique_id: _u, ...voiceNoUnique } = voiceMsg['voice'] as Record<string, unknown>;
    const { duration: _d, ...voiceNoDuration } = voiceMsg['voice'] as Record<string, unknown>;
    const docMsg = result('sendDocument');
    const superMsg = result('sendMessage', (r) => (r['chat'] as { type: string }).type === 'supergroup');
    const planted: Array<[string, string, unknown]> = [
      ['can_join_groups', 'getMe', meShort],
      ['file_unique_id', 'sendVoice', { ...voiceMsg, voice: voiceNoUnique }],
      ['duration', 'sendVoice', { ...voiceMsg, voice: voiceNoDuration }],
      ['first_name', 'sendMessage', { ...superMsg, chat: { id: (superMsg['chat'] as { id: number }).id, type: 'private' } }],
      ['file_size', 'sendDocument', { ...docMsg, document: { ...(docMsg['document'] as object), file_size: '5' } }],
      ['date', 'sendMessage', { ...superMsg, date: undefined }],
    ];
    const source = HEADER + planted.map(([, m, r], i) => answerLine(`n${i}`, m, { ok: true, result: r })).join('\n') + '\n';
    const found = typecheck({ 'planted-answers.ts': source });
    const missed = planted.filter(([field], i) => !names(found, FIRST_LINE + i, field)).map(([field]) => field);
    expect(missed, `planted answers whose diagnostic does not name the field:\n${show(found)}`).toEqual([]);
  }, 120_000);

  it("the fake's tables are the declarations': each method's parameters, and the update kinds", () => {
    const lines = [`export type Served = Pick<Declared, ${Object.keys(FAKE_METHODS).map((m) => `'${m}'`).join(' | ')}>;`];
    expect(show(typecheck({ 'tables.ts': HEADER + lines.join('\n') + '\n' }))).toBe('');
    const declared = typeKeys('tables.ts', 'Served') as Record<string, string[]>;
    const ours = Object.fromEntries(Object.entries(FAKE_METHODS).map(([m, d]) => [m, [...d.params].sort()]));
    expect(ours).toEqual(declared);
    expect([...UPDATE_TYPES].sort()).toEqual(typeKeys('tables.ts', 'UpdateKind'));
  }, 120_000);
});
