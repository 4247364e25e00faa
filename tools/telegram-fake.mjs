#!/usr/bin/env node
// A local fake of the Telegram Bot API, for tests and for trying the chat
// messenger on the simulator without the real service. It keeps one bot:
//
//   POST /bot<token>/getMe, getUpdates (long poll with offsets: an update is
//        confirmed by a later call with a higher offset, as the service does),
//        sendMessage, sendVoice, sendDocument (multipart), getFile
//   GET  /file/bot<token>/<file_path>     file downloads
//
// A wrong token answers 401 like the service. Tests play the people: say()
// queues a user's message (text, photo, document, voice), waitSent() waits
// for what the bot sent, fail() scripts error answers (429 with retry_after,
// 409, 500, ...), block() makes a chat refuse messages (403). The core is
// transport-free (handle(method, url, headers, body)), so unit tests run it
// on the in-memory network with a virtual clock (test/support/telegram-net.ts)
// and end-to-end tests over HTTPS with a certificate from the test CA for
// api.telegram.org (start(); the board's --route sends that name here).
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

export const BOT_API_HOST = 'api.telegram.org';
export const DEFAULT_TOKEN = '123456789:AAH-fake-token-for-tests-0123456789abc';
/** The longest a getUpdates call is held (whatever timeout it asks for). */
const HOLD_MAX_S = 50;

function json(status, value) {
  return { status, headers: { 'Content-Type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}
function refuse(code, description, extra = {}) {
  return json(code, { ok: false, error_code: code, description, ...extra });
}

function parseMultipart(body, contentType) {
  const m = /boundary=("?)([^";]+)\1/i.exec(contentType);
  if (!m) return null;
  const delim = Buffer.from(`--${m[2]}`);
  const fields = {};
  const files = {};
  let at = body.indexOf(delim);
  if (at < 0) return null;
  for (;;) {
    at += delim.length;
    if (body[at] === 45 && body[at + 1] === 45) break;
    at += 2;
    const headEnd = body.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return null;
    const head = body.subarray(at, headEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), headEnd + 4);
    if (next < 0) return null;
    const data = body.subarray(headEnd + 4, next);
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    const filename = /filename="([^"]*)"/i.exec(head)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? 'application/octet-stream';
    if (name !== undefined) {
      if (filename !== undefined) files[name] = { name: filename, mime: type, bytes: Buffer.from(data) };
      else fields[name] = data.toString('utf8');
    }
    at = next + 2;
  }
  return { fields, files };
}

/**
 * The fake's state and logic, without a transport. timers: {setTimeout,
 * clearTimeout} (a virtual clock's in unit tests).
 */
export function createBotApi({ token = DEFAULT_TOKEN, username = 'desk_test_bot', timers = { setTimeout, clearTimeout }, startUpdateId = 700000000 } = {}) {
  const botId = Number(token.split(':')[0]);
  const updates = [];
  let confirmed = 0;
  let nextUpdateId = startUpdateId;
  let nextMessageId = 1;
  let nextFile = 1;
  const sent = [];
  const calls = [];
  const files = new Map();
  const failures = [];
  const blocked = new Set();
  const pollWaiters = new Set();
  const sentWaiters = new Set();
  let currentToken = token;

  const wakePolls = () => {
    for (const w of [...pollWaiters]) w();
  };

  function addFile(bytes, name = null, mime = null) {
    const id = `file-${nextFile++}`;
    files.set(id, { id, path: `documents/${id}${name ? `-${name.replace(/[^A-Za-z0-9_.-]/g, '_')}` : ''}`, bytes: Buffer.from(bytes), name, mime });
    return id;
  }

  function say(chatId, text, options = {}) {
    const chat = { id: Number(chatId), type: Number(chatId) < 0 ? 'group' : 'private', ...(Number(chatId) < 0 ? { title: options.title ?? 'A group' } : { first_name: options.firstName ?? 'Tester' }) };
    const from = { id: options.fromId ?? Math.abs(Number(chatId)), is_bot: options.isBot === true, first_name: options.firstName ?? 'Tester', ...(options.username ? { username: options.username } : {}) };
    const message = { message_id: nextMessageId++, from, chat, date: Math.floor(Date.now() / 1000) };
    if (options.photo) {
      const id = addFile(options.photo, null, 'image/jpeg');
      message.photo = [{ file_id: `${id}-small`, file_unique_id: 's', width: 90, height: 90, file_size: 10 }, { file_id: id, file_unique_id: 'u', width: 800, height: 600, file_size: options.photo.length }];
      if (text) message.caption = text;
    } else if (options.document) {
      const id = addFile(options.document.bytes, options.document.name, options.document.mime ?? 'application/octet-stream');
      message.document = { file_id: id, file_unique_id: 'u', file_name: options.document.name, mime_type: options.document.mime ?? 'application/octet-stream', file_size: options.document.bytes.length };
      if (text) message.caption = text;
    } else if (options.voice) {
      const id = addFile(options.voice, null, 'audio/ogg');
      message.voice = { file_id: id, file_unique_id: 'u', duration: 2, mime_type: 'audio/ogg', file_size: options.voice.length };
    } else if (options.sticker) {
      message.sticker = { file_id: 'sticker', width: 1, height: 1 };
    } else message.text = text;
    const update = { update_id: nextUpdateId++, ...(options.edited ? { edited_message: message } : { message }) };
    updates.push(update);
    wakePolls();
    return update.update_id;
  }

  function record(entry) {
    sent.push(entry);
    for (const w of [...sentWaiters]) w();
    return entry;
  }

  function takeFailure(method) {
    const i = failures.findIndex((f) => f.method === method || f.method === '*');
    if (i < 0) return null;
    const f = failures[i];
    if (--f.times <= 0) failures.splice(i, 1);
    return refuse(f.code, f.description ?? `fake error ${f.code}`, f.retryAfter ? { parameters: { retry_after: f.retryAfter } } : {});
  }

  async function getUpdates(params) {
    const offset = Number(params.offset ?? 0);
    if (offset > 0) confirmed = Math.max(confirmed, offset);
    const limit = Math.max(1, Math.min(100, Number(params.limit ?? 100)));
    const pending = () => updates.filter((u) => u.update_id >= confirmed).slice(0, limit);
    let now = pending();
    const timeoutS = Math.min(HOLD_MAX_S, Math.max(0, Number(params.timeout ?? 0)));
    if (!now.length && timeoutS > 0) {
      await new Promise((resolveWait) => {
        const done = () => {
          timers.clearTimeout(timer);
          pollWaiters.delete(done);
          resolveWait();
        };
        const timer = timers.setTimeout(done, timeoutS * 1000);
        pollWaiters.add(done);
      });
      now = pending();
    }
    return json(200, { ok: true, result: now });
  }

  function message(chatId, extra) {
    return { message_id: nextMessageId++, from: { id: botId, is_bot: true, first_name: 'Desk', username }, chat: { id: Number(chatId), type: 'private' }, date: Math.floor(Date.now() / 1000), ...extra };
  }

  /** One request. url: the path (and query); body: the raw bytes. Resolves {status, headers, body}. */
  async function handle(httpMethod, url, headers, bodyBytes) {
    const path = url.split('?')[0];
    const body = Buffer.from(bodyBytes ?? []);
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(path);
    if (fileMatch) {
      calls.push({ method: 'download', path: fileMatch[2], at: Date.now() });
      if (fileMatch[1] !== currentToken) return refuse(401, 'Unauthorized');
      const f = [...files.values()].find((x) => x.path === fileMatch[2]);
      if (!f) return refuse(404, 'Not Found');
      return { status: 200, headers: { 'Content-Type': f.mime ?? 'application/octet-stream' }, body: f.bytes };
    }
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(path);
    if (!m) return refuse(404, 'Not Found');
    const method = m[2];
    const type = String(headers['content-type'] ?? '');
    let params = {};
    let upload = {};
    if (type.startsWith('multipart/form-data')) {
      const mp = parseMultipart(body, type);
      if (!mp) return refuse(400, 'Bad Request: malformed multipart body');
      params = mp.fields;
      upload = mp.files;
    } else if (body.length) {
      try {
        params = JSON.parse(body.toString('utf8'));
      } catch {
        return refuse(400, 'Bad Request: body is not JSON');
      }
    }
    calls.push({ method, params, at: Date.now() });
    if (m[1] !== currentToken) return refuse(401, 'Unauthorized');
    const failure = takeFailure(method);
    if (failure) return failure;
    switch (method) {
      case 'getMe':
        return json(200, { ok: true, result: { id: botId, is_bot: true, first_name: 'Desk', username } });
      case 'getUpdates':
        return getUpdates(params);
      case 'sendMessage': {
        const text = String(params.text ?? '');
        if (!params.chat_id) return refuse(400, 'Bad Request: chat_id is empty');
        if (!text.trim()) return refuse(400, 'Bad Request: message text is empty');
        if (text.length > 4096) return refuse(400, 'Bad Request: message is too long');
        if (blocked.has(String(params.chat_id))) return refuse(403, 'Forbidden: bot was blocked by the user');
        const msg = message(params.chat_id, { text });
        record({ method, chat: String(params.chat_id), text, messageId: msg.message_id, at: Date.now() });
        return json(200, { ok: true, result: msg });
      }
      case 'sendVoice':
      case 'sendDocument': {
        const field = method === 'sendVoice' ? 'voice' : 'document';
        const file = upload[field];
        if (!params.chat_id) return refuse(400, 'Bad Request: chat_id is empty');
        if (!file) return refuse(400, `Bad Request: there is no ${field} in the request`);
        if (blocked.has(String(params.chat_id))) return refuse(403, 'Forbidden: bot was blocked by the user');
        const msg = message(params.chat_id, { [field]: { file_id: addFile(file.bytes, file.name, file.mime), file_name: file.name } });
        record({ method, chat: String(params.chat_id), text: params.caption ?? '', file, messageId: msg.message_id, at: Date.now() });
        return json(200, { ok: true, result: msg });
      }
      case 'getFile': {
        const f = files.get(String(params.file_id ?? ''));
        if (!f) return refuse(400, 'Bad Request: invalid file_id');
        return json(200, { ok: true, result: { file_id: f.id, file_unique_id: 'u', file_size: f.bytes.length, file_path: f.path } });
      }
      default:
        return refuse(404, 'Not Found');
    }
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
    updates,
    /** The offset the bot last confirmed up to. */
    confirmed: () => confirmed,
    /** Updates not yet confirmed by the bot. */
    unconfirmed: () => updates.filter((u) => u.update_id >= confirmed),
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
    release: wakePolls,
  };
}

/** The fake over HTTP(S) on 127.0.0.1 (HTTPS with a test-CA certificate for api.telegram.org). */
export function start({ port = 0, tls = true, token = DEFAULT_TOKEN, username } = {}) {
  const bot = createBotApi({ token, ...(username ? { username } : {}) });
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
