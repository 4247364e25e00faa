#!/usr/bin/env node
// A local fake of the Telegram Bot API, for tests and for trying the chat
// messenger on the simulator without the real service. It keeps one bot and
// answers as the service does (https://core.telegram.org/bots/api), at least
// as strictly; the rules, each citing the documentation, are in
// tools/telegram-rules.mjs:
//
//   /bot<token>/<method>, GET or POST, the method's name in any case, its
//        parameters in the query string, a form, JSON or multipart:
//        getMe (UserFromGetMe), getUpdates (long poll with offsets: an update
//        is confirmed by a later call with a higher offset, a negative offset
//        keeps the last -offset updates and forgets the rest; allowed_updates
//        kept until changed, updates of other kinds not delivered; a second
//        poll ends the held one with 409), sendMessage, sendVoice and
//        sendDocument (a multipart part under the parameter's name or named
//        by attach://, or a file_id; the chat answered as the id names it:
//        user, group, or -100 supergroup), getFile, setWebhook and
//        deleteWebhook (getUpdates answers 409 while a webhook is set)
//   GET  /file/bot<token>/<file_path>     file downloads
//
// A wrong token answers 401, an unknown method 404, like the service; a
// parameter a method does not take is refused (stricter: the service ignores
// it). Known leniency: a private chat is answered as if its user had started
// the bot. Every exchange is kept (exchanges: the parameters as read, the file
// parts, the JSON answered) so tests type them against @grammyjs/types
// (test/unit/chat/bot-api-types.test.ts); grammY's own client drives the fake
// in test/unit/chat/grammy.test.ts. Tests play the people: say() queues a
// user's message (text, photo, document, voice, sticker, an edit), waitSent()
// waits for what the bot sent, fail() scripts error answers (429 with
// retry_after, 409, 500, ...), block() makes a chat refuse messages (403).
// The core is transport-free (handle(method, url, headers, body)), so unit
// tests run it on the in-memory network with a virtual clock
// (test/support/telegram-net.ts) and end-to-end tests over HTTPS with a
// certificate from the test CA for api.telegram.org (start(); the board's
// --route sends that name here).
//
// CLI: node tools/telegram-fake.mjs [--port N] [--token T] [--http]
//      then type "<chat id> <text>" lines to speak as a user.

import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { issueTestCert } from './test-ca.mjs';
import { CAPTION_MAX, chatKindOf, DEFAULT_ALLOWED, DOC, documentMime, DOWNLOAD_MAX, METHODS, methodNamed, oggOpusSeconds, PARSE_MODES, readAllowed, readBool, readChatId, readFileParam, readInt, readJson, readRequest, readString, TEXT_MAX, unknownParam, UPLOAD_MAX, voiceMime } from './telegram-rules.mjs';

export const BOT_API_HOST = 'api.telegram.org';
export const DEFAULT_TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
/** The longest a getUpdates call is held (whatever timeout it asks for). */
const HOLD_MAX_S = 50;

function json(status, value) {
  return { status, headers: { 'Content-Type': 'application/json' }, body: Buffer.from(JSON.stringify(value)), answer: value };
}
/** #making-requests: an unsuccessful answer has ok false, error_code, description, and sometimes parameters (#responseparameters). */
function refuse(code, description, extra = {}) {
  return json(code, { ok: false, error_code: code, description, ...extra });
}
function ok(result) {
  return json(200, { ok: true, result });
}
/** A refusal from a rules helper's {error} (400 unless the text says otherwise). */
function bad(description) {
  return refuse(400, description);
}

const DIRS = { photo: ['photos', 'jpg'], document: ['documents', null], voice: ['voice', 'oga'], sticker: ['stickers', 'webp'] };

/**
 * The fake's state and logic, without a transport. timers: {setTimeout,
 * clearTimeout} (a virtual clock's in unit tests).
 */
export function createBotApi({ token = DEFAULT_TOKEN, username = 'desk_test_bot', timers = { setTimeout, clearTimeout }, startUpdateId = 700000000 } = {}) {
  const botId = Number(token.split(':')[0]);
  /** #user; what getMe adds is #getme's UserFromGetMe (the can_* and supports_* fields, "Returned only in getMe"). */
  const botUser = { id: botId, is_bot: true, first_name: 'Desk', username };
  const updates = [];
  /** Updates below this id are confirmed (#getupdates: "An update is considered confirmed as soon as getUpdates is called with an offset higher than its update_id"). */
  let confirmed = 0;
  let nextUpdateId = startUpdateId;
  let nextMessageId = 1;
  let nextFile = 1;
  /** #getupdates allowed_updates: "If not specified, the previous setting will be used"; never set, the default. */
  let allowed = DEFAULT_ALLOWED;
  let webhookUrl = '';
  /** The getUpdates call held now, if any: a second one ends it (409, as the service does). */
  let held = null;
  const sent = [];
  const calls = [];
  const exchanges = [];
  const dropped = [];
  const files = new Map();
  const chats = new Map();
  const failures = [];
  const blocked = new Set();
  const pollWaiters = new Set();
  const sentWaiters = new Set();
  let currentToken = token;

  const wakePolls = (why = 'news') => {
    for (const w of [...pollWaiters]) w(why);
  };

  /** Stores a file as the service would (#file: file_id, a file_unique_id unique to it, a file_path under the kind's folder). */
  function addFile(bytes, name = null, mime = null, kind = 'document') {
    const n = nextFile++;
    const id = `file-${n}`;
    const [dir, ext] = DIRS[kind] ?? DIRS.document;
    const suffix = ext ?? (name && /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]) ?? 'dat';
    files.set(id, { id, unique: `AgAD-u${n}`, path: `${dir}/file_${n}.${suffix}`, bytes: Buffer.from(bytes), name, mime });
    return id;
  }
  const fileOf = (id) => files.get(id);

  /** The chat an id names: one seen in a message, else as the id's range says (https://core.telegram.org/api/bots/ids). */
  function chatObject(id, options = {}) {
    const known = chats.get(id);
    if (known && !options.title && !options.firstName) return known;
    const kind = chatKindOf(id);
    const chat = kind === 'private' ? { id, type: 'private', first_name: options.firstName ?? 'Tester', ...(options.username ? { username: options.username } : {}) } : { id, type: kind, title: options.title ?? (kind === 'group' ? 'A group' : 'A supergroup') };
    chats.set(id, chat);
    return chat;
  }

  /** Queues an update of `kind` unless allowed_updates excludes it (#getupdates: such updates are not delivered; earlier ones are). */
  function queueUpdate(kind, value) {
    const update = { update_id: nextUpdateId++, [kind]: value };
    if (!allowed.includes(kind)) {
      dropped.push(update);
      return update.update_id;
    }
    updates.push(update);
    wakePolls();
    return update.update_id;
  }

  function say(chatId, text, options = {}) {
    const chat = chatObject(Number(chatId), options);
    const fromId = options.fromId ?? Math.abs(Number(chatId));
    const from = { id: fromId, is_bot: options.isBot === true, first_name: options.firstName ?? 'Tester', ...(options.username ? { username: options.username } : {}) };
    const message = { message_id: nextMessageId++, from, chat, date: Math.floor(Date.now() / 1000) };
    if (options.photo) {
      // #photosize: the sizes of one photo, smallest first; each is a file of its own.
      const small = addFile(options.photo.subarray(0, Math.min(options.photo.length, 16)), null, 'image/jpeg', 'photo');
      const id = addFile(options.photo, null, 'image/jpeg', 'photo');
      message.photo = [
        { file_id: small, file_unique_id: fileOf(small).unique, width: 90, height: 68, file_size: fileOf(small).bytes.length },
        { file_id: id, file_unique_id: fileOf(id).unique, width: 800, height: 600, file_size: options.photo.length },
      ];
      if (text) message.caption = text;
    } else if (options.document) {
      const mime = options.document.mime ?? 'application/octet-stream';
      const id = addFile(options.document.bytes, options.document.name, mime, 'document');
      message.document = { file_id: id, file_unique_id: fileOf(id).unique, file_name: options.document.name, mime_type: mime, file_size: options.document.bytes.length };
      if (text) message.caption = text;
    } else if (options.voice) {
      const id = addFile(options.voice, null, 'audio/ogg', 'voice');
      message.voice = { file_id: id, file_unique_id: fileOf(id).unique, duration: oggOpusSeconds(Buffer.from(options.voice)) ?? 2, mime_type: 'audio/ogg', file_size: options.voice.length };
    } else if (options.sticker) {
      const id = addFile(Buffer.from('RIFF'), null, 'image/webp', 'sticker');
      message.sticker = { file_id: id, file_unique_id: fileOf(id).unique, type: 'regular', width: 512, height: 512, is_animated: false, is_video: false, emoji: '👍' };
    } else message.text = text;
    // #update edited_message: "New version of a message"; #message edit_date.
    if (options.edited) return queueUpdate('edited_message', { ...message, edit_date: message.date });
    return queueUpdate('message', message);
  }

  function record(entry) {
    sent.push(entry);
    // Waiters hear of it once the answer is on its way back (after this turn of the event loop), so a
    // test that acts on a send (a clock warp) does not overtake the device's reading of the answer.
    setImmediate(() => {
      for (const w of [...sentWaiters]) w();
    });
    return entry;
  }

  function takeFailure(method) {
    const i = failures.findIndex((f) => f.method === method || f.method === '*');
    if (i < 0) return null;
    const f = failures[i];
    if (--f.times <= 0) failures.splice(i, 1);
    // #responseparameters retry_after: "In case of exceeding flood control, the number of seconds left to wait".
    return refuse(f.code, f.description ?? `fake error ${f.code}`, f.retryAfter ? { parameters: { retry_after: f.retryAfter } } : {});
  }

  /** Updates not yet confirmed, oldest first. */
  const pending = () => updates.filter((u) => u.update_id >= confirmed);

  async function getUpdates(params) {
    // #getwebhookinfo / #setwebhook: getUpdates "will not work if an outgoing webhook is set up".
    if (webhookUrl) return refuse(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
    const offset = readInt(params, 'offset');
    // #getupdates limit: "Values between 1-100 are accepted" (stricter: outside is refused, not clamped).
    const limit = readInt(params, 'limit', { min: 1, max: 100 });
    const timeout = readInt(params, 'timeout', { min: 0 });
    const allow = readAllowed(params);
    for (const r of [offset, limit, timeout, allow]) if (r.error) return bad(r.error);
    if (allow.value) allowed = allow.value;
    if (offset.value > 0) confirmed = Math.max(confirmed, offset.value);
    else if (offset.value < 0) {
      // #getupdates offset: "The negative offset can be specified to retrieve updates starting from -offset update from the end of the updates queue. All previous updates will be forgotten."
      const queue = pending();
      confirmed = queue.length > -offset.value ? queue[queue.length + offset.value].update_id : confirmed;
    }
    const take = () => pending().slice(0, limit.value ?? 100);
    let now = take();
    // The service holds a long poll at most 50 s, whatever timeout asks (observed; the documentation names no bound).
    const timeoutS = Math.min(HOLD_MAX_S, timeout.value ?? 0);
    // A second getUpdates ends the one held: "Conflict: terminated by other getUpdates request" (#getupdates; one poller per bot).
    if (held) held('terminated');
    if (!now.length && timeoutS > 0) {
      const why = await new Promise((resolveWait) => {
        const done = (reason) => {
          timers.clearTimeout(timer);
          pollWaiters.delete(done);
          if (held === done) held = null;
          resolveWait(reason);
        };
        const timer = timers.setTimeout(() => done('timeout'), timeoutS * 1000);
        pollWaiters.add(done);
        held = done;
      });
      if (why === 'terminated') return refuse(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running');
      now = take();
    }
    return ok(now);
  }

  /** #message: what a send answers, sent by the bot into the chat chat_id names. */
  function message(chat, extra) {
    return { message_id: nextMessageId++, from: botUser, chat, date: Math.floor(Date.now() / 1000), ...extra };
  }

  /** The chat of chat_id, or a refusal in the service's words. */
  function targetChat(params) {
    const c = readChatId(params);
    if (c.error) return { refusal: bad(c.error) };
    const chat = c.username !== undefined ? [...chats.values()].find((x) => x.username === c.username) : chatObject(c.id);
    if (!chat) return { refusal: bad('Bad Request: chat not found') };
    if (blocked.has(String(chat.id))) return { refusal: refuse(403, 'Forbidden: bot was blocked by the user') };
    return { chat };
  }

  /** #sendvoice, #senddocument caption: 0-1024 characters; parse_mode one the service knows (#formatting-options). */
  function captionOf(params) {
    const caption = readString(params, 'caption');
    if (caption.error) return caption;
    if ((caption.value ?? '').length > CAPTION_MAX) return { error: 'Bad Request: message caption is too long' };
    if (params.parse_mode !== undefined && !PARSE_MODES.includes(params.parse_mode)) return { error: `Bad Request: unsupported parse_mode` };
    return caption;
  }

  function sendMessage(params) {
    const target = targetChat(params);
    if (target.refusal) return target.refusal;
    const text = readString(params, 'text');
    if (text.error) return bad(text.error);
    // #sendmessage text: "1-4096 characters after entities parsing".
    if (!text.value || !text.value.trim()) return bad('Bad Request: message text is empty');
    if (text.value.length > TEXT_MAX) return bad('Bad Request: message is too long');
    if (params.parse_mode !== undefined && !PARSE_MODES.includes(params.parse_mode)) return bad('Bad Request: unsupported parse_mode');
    const preview = readJson(params, 'link_preview_options', 'object');
    if (preview.error) return bad(preview.error);
    const msg = message(target.chat, { text: text.value });
    record({ method: 'sendMessage', chat: String(target.chat.id), text: text.value, messageId: msg.message_id, at: Date.now() });
    return ok(msg);
  }

  function sendFile(method, params, upload) {
    const field = METHODS[method].file;
    const target = targetChat(params);
    if (target.refusal) return target.refusal;
    const caption = captionOf(params);
    if (caption.error) return bad(caption.error);
    const duration = readInt(params, 'duration', { min: 0 });
    if (duration.error) return bad(duration.error);
    const given = readFileParam(params, upload, field);
    if (given.error) return bad(given.error);
    let file;
    if (given.fileId !== undefined) {
      // #sending-files: "Pass a file_id as String to send a file that exists on the Telegram servers" (the fake fetches no URLs).
      const known = fileOf(given.fileId);
      if (!known) return bad('Bad Request: wrong file identifier/HTTP URL specified');
      file = { name: known.name ?? `${field}.dat`, mime: known.mime ?? 'application/octet-stream', bytes: known.bytes };
    } else file = given.upload;
    if (file.bytes.length > UPLOAD_MAX) return refuse(413, 'Request Entity Too Large');
    if (!file.bytes.length) return bad(`Bad Request: file must be non-empty`);
    let media;
    if (method === 'sendVoice') {
      const mime = voiceMime(file.bytes);
      if (!mime) return bad(`Bad Request: a voice message must be an .OGG file encoded with OPUS, an .MP3 or an .M4A (${DOC}#sendvoice); stricter than the service, which may deliver it as a file`);
      const id = addFile(file.bytes, file.name, mime, 'voice');
      // #voice duration: "Duration of the audio in seconds as defined by sender"; the service reads it from the file when not given.
      media = { voice: { duration: duration.value ?? oggOpusSeconds(file.bytes) ?? 0, mime_type: mime, file_id: id, file_unique_id: fileOf(id).unique, file_size: file.bytes.length } };
    } else {
      const disable = readBool(params, 'disable_content_type_detection');
      if (disable.error) return bad(disable.error);
      const mime = disable.value ? (file.mime ?? 'application/octet-stream') : documentMime(file.name, file.mime);
      const id = addFile(file.bytes, file.name, mime, 'document');
      media = { document: { file_name: file.name, mime_type: mime, file_id: id, file_unique_id: fileOf(id).unique, file_size: file.bytes.length } };
    }
    const msg = message(target.chat, { ...media, ...(caption.value ? { caption: caption.value } : {}) });
    record({ method, chat: String(target.chat.id), text: caption.value ?? '', file, messageId: msg.message_id, at: Date.now() });
    return ok(msg);
  }

  function getFile(params) {
    const id = readString(params, 'file_id');
    if (id.error) return bad(id.error);
    if (!id.value) return bad('Bad Request: file_id is empty');
    const f = fileOf(id.value);
    if (!f) return bad('Bad Request: invalid file_id');
    // #getfile: "bots can download files of up to 20MB in size".
    if (f.bytes.length > DOWNLOAD_MAX) return bad('Bad Request: file is too big');
    return ok({ file_id: f.id, file_unique_id: f.unique, file_size: f.bytes.length, file_path: f.path });
  }

  function setWebhook(method, params) {
    const drop = readBool(params, 'drop_pending_updates');
    if (drop.error) return bad(drop.error);
    let url = '';
    if (method === 'setWebhook') {
      const u = readString(params, 'url');
      if (u.error || u.value === undefined) return bad(u.error ?? 'Bad Request: url is empty');
      // #setwebhook url: "HTTPS URL to send updates to. Use an empty string to remove webhook integration".
      if (u.value && !u.value.startsWith('https://')) return bad('Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
      const allow = readAllowed(params);
      if (allow.error) return bad(allow.error);
      if (allow.value) allowed = allow.value;
      url = u.value;
    }
    // #deletewebhook drop_pending_updates: "Pass True to drop all pending updates".
    if (drop.value) confirmed = nextUpdateId;
    webhookUrl = url;
    if (url && held) held('terminated');
    return ok(true);
  }

  /** One request, answered. */
  async function answer(httpMethod, path, url, headers, body) {
    // #getfile: "The file can then be downloaded via the link https://api.telegram.org/file/bot<token>/<file_path>".
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(path);
    if (fileMatch) {
      calls.push({ method: 'download', path: fileMatch[2], at: Date.now() });
      const head = { method: 'download', params: { file_path: fileMatch[2] } };
      if (httpMethod !== 'GET' && httpMethod !== 'HEAD') return { ...refuse(405, 'Method Not Allowed'), ...head };
      if (fileMatch[1] !== currentToken) return { ...refuse(401, 'Unauthorized'), ...head };
      const f = [...files.values()].find((x) => x.path === fileMatch[2]);
      if (!f) return { ...refuse(404, 'Not Found'), ...head };
      return { status: 200, headers: { 'Content-Type': f.mime ?? 'application/octet-stream' }, body: httpMethod === 'HEAD' ? Buffer.alloc(0) : f.bytes, ...head };
    }
    // #making-requests: "https://api.telegram.org/bot<token>/METHOD_NAME", GET or POST.
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
    if (!m || (httpMethod !== 'GET' && httpMethod !== 'POST')) return refuse(404, 'Not Found');
    const req = readRequest(url, headers, body);
    const method = methodNamed(m[2]);
    calls.push({ method: method ?? m[2], params: req.params ?? {}, at: Date.now() });
    if (m[1] !== currentToken) return { ...refuse(401, 'Unauthorized'), method };
    if (!method) return refuse(404, 'Not Found');
    const head = { method, via: req.via, params: req.params, files: Object.fromEntries(Object.entries(req.files ?? {}).map(([k, f]) => [k, { name: f.name, mime: f.mime, size: f.bytes.length }])) };
    // An upload's body as it came, for judges of multipart/form-data we did not write.
    if (req.via === 'multipart') head.raw = { contentType: String(headers['content-type']), body };
    if (req.refusal) return { ...bad(req.refusal), ...head };
    const unknown = unknownParam(method, req.params, req.files);
    if (unknown) return { ...bad(unknown), ...head };
    const failure = takeFailure(method);
    if (failure) return { ...failure, ...head };
    switch (method) {
      case 'getMe':
        return { ...ok({ ...botUser, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false, can_connect_to_business: false, has_main_web_app: false, has_topics_enabled: false, allows_users_to_create_topics: false, can_manage_bots: false, supports_join_request_queries: false }), ...head };
      case 'getUpdates':
        return { ...(await getUpdates(req.params)), ...head };
      case 'sendMessage':
        return { ...sendMessage(req.params), ...head };
      case 'sendVoice':
      case 'sendDocument':
        return { ...sendFile(method, req.params, req.files), ...head };
      case 'getFile':
        return { ...getFile(req.params), ...head };
      default:
        return { ...setWebhook(method, req.params), ...head };
    }
  }

  /** One request. url: the path (and query); body: the raw bytes. Resolves {status, headers, body}. */
  async function handle(httpMethod, url, headers, bodyBytes) {
    const r = await answer(httpMethod, url.split('?')[0], url, headers, Buffer.from(bodyBytes ?? []));
    if (r.method) exchanges.push({ method: r.method, via: r.via ?? 'none', params: r.params ?? {}, files: r.files ?? {}, ...(r.raw ? { raw: r.raw } : {}), status: r.status, answer: r.answer ?? null, at: Date.now() });
    return { status: r.status, headers: r.headers, body: r.body };
  }

  return {
    token,
    botId,
    username,
    handle,
    say,
    addFile,
    /** Every message the bot sent (sendMessage, sendVoice, sendDocument), in order. */
    sent,
    /** Every call (method, params), in order. */
    calls,
    /** Every call of a method the fake knows (and each download), with the parameters as read, the file parts and the JSON answered. */
    exchanges,
    updates,
    /** Updates allowed_updates kept from the bot (never delivered). */
    dropped,
    /** The offset the bot last confirmed up to. */
    confirmed: () => confirmed,
    /** Updates not yet confirmed by the bot. */
    unconfirmed: pending,
    /** The update kinds the bot receives now (#getupdates allowed_updates). */
    allowedUpdates: () => [...allowed],
    /** Script errors: the next `times` calls of `method` ('*' for any) answer `code`. */
    fail(method, code, { description, retryAfter, times = 1 } = {}) {
      failures.push({ method, code, description, retryAfter, times });
    },
    block(chatId, on = true) {
      if (on) blocked.add(String(chatId));
      else blocked.delete(String(chatId));
    },
    /** Changes the token the service accepts (the old one then answers 401). */
    setToken(t) {
      currentToken = t;
    },
    /** Sent messages to a chat. */
    to(chatId) {
      return sent.filter((s) => s.chat === String(chatId));
    },
    /** Waits until pred(sent) holds (a real-time wait: for end-to-end tests). */
    waitSent(pred, timeoutMs = 10_000) {
      return new Promise((resolveWait, reject) => {
        const check = () => {
          if (pred(sent)) {
            sentWaiters.delete(check);
            clearTimeout(t);
            resolveWait(sent);
            return true;
          }
          return false;
        };
        const t = setTimeout(() => {
          sentWaiters.delete(check);
          reject(new Error(`the bot did not send what was expected within ${timeoutMs} ms; sent: ${JSON.stringify(sent.map((s) => [s.chat, s.text]))}`));
        }, timeoutMs);
        if (!check()) sentWaiters.add(check);
      });
    },
    /** Releases held polls (closing). */
    release: () => wakePolls('news'),
  };
}

/** The fake over HTTP(S) on 127.0.0.1 (HTTPS with a test-CA certificate for api.telegram.org). */
export function start({ port = 0, tls = true, token = DEFAULT_TOKEN, username, timers } = {}) {
  const bot = createBotApi({ token, ...(username ? { username } : {}), ...(timers ? { timers } : {}) });
  const sockets = new Set();
  const handler = (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      bot.handle(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks)).then(
        (r) => {
          if (res.destroyed) return;
          res.writeHead(r.status, { ...r.headers, 'Content-Length': r.body.length });
          res.end(r.body);
        },
        () => {
          if (!res.destroyed) res.writeHead(500).end();
        },
      );
    });
  };
  const server = tls ? createHttpsServer(issueTestCert([BOT_API_HOST]), handler) : createHttpServer(handler);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => {});
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const actual = server.address().port;
      resolvePort({
        port: actual,
        bot,
        close: () =>
          new Promise((r) => {
            bot.release();
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

/** The board arguments that send api.telegram.org:443 (or :80) to the fake. */
export function routeArgs(port, targetPort = 443) {
  return ['--route', `${BOT_API_HOST}:${targetPort}=127.0.0.1:${port}`];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8444' }, token: { type: 'string', default: DEFAULT_TOKEN }, http: { type: 'boolean', default: false } } });
  const fake = await start({ port: Number(values.port), tls: !values.http, token: values.token });
  console.log(`Bot API fake on ${values.http ? 'http' : 'https'}://127.0.0.1:${fake.port} for token ${values.token}`);
  console.log(`simulator: ${routeArgs(fake.port, values.http ? 80 : 443).join(' ')}`);
  console.log('type "<chat id> <text>" to send a message as that chat');
  let shown = 0;
  setInterval(() => {
    for (; shown < fake.bot.sent.length; shown++) console.log(`bot -> ${fake.bot.sent[shown].chat}: ${fake.bot.sent[shown].text}`);
  }, 200);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const m = /^(-?\d+)\s+(.*)$/.exec(line.trim());
    if (m) fake.bot.say(m[1], m[2]);
  });
}
