// The Telegram Bot API client over the device's HTTPS client: getMe,
// getUpdates (long poll), sendMessage, sendVoice and sendDocument (multipart
// uploads), getFile and the file download. Every call answers a typed result
// and never throws. The bot token lives only inside this object: it is part
// of every request path (the Bot API puts it there), so it is registered
// with the log redactor by its owner (ChatSettings), and no result, error
// text or log line made here ever carries a URL.

import type { ClientResult, HttpClient } from '../net/http/client.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode, encode } from '../util/utf8.ts';
import { multipartBody } from './multipart.ts';

export const BOT_API_HOST = 'api.telegram.org';
/** Seconds a getUpdates call waits for news on the server (long poll). */
export const POLL_TIMEOUT_S = 25;
/** The client's deadline above the long poll's own. */
const POLL_SLACK_MS = 10_000;
const CALL_TIMEOUT_MS = 30_000;
const UPLOAD_TIMEOUT_MS = 120_000;
/** The Bot API refuses downloads over 20 MB. */
export const DOWNLOAD_MAX = 20 * 1024 * 1024;
/** A getUpdates answer holds at most 100 updates of at most 4096 characters: far below this. */
const ANSWER_MAX = 2 * 1024 * 1024;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
/** The shape of a bot token: the bot's numeric id, a colon, the secret part. */
const TOKEN_SHAPE = /^(\d{3,20}):[A-Za-z0-9_-]{20,100}$/;
const FILE_PATH_SHAPE = /^[A-Za-z0-9_./-]{1,256}$/;

/** Why a call failed: the network, the service's answer, or a refusal (with the Bot API's error code). */
export type BotErrorKind = 'no-token' | 'network' | 'timeout' | 'unauthorized' | 'conflict' | 'rate-limit' | 'refused' | 'server' | 'malformed' | 'too-large';

export type BotResult<T> = { ok: true; value: T } | { ok: false; error: BotErrorKind; code: number; message: string; retryAfterS: number | null };

export interface BotUser {
  id: number;
  isBot: boolean;
  firstName: string;
  username: string | null;
}

export interface BotChat {
  id: number;
  type: string;
  /** A group's title or a person's name. */
  title: string;
  username: string | null;
}

export interface BotFileRef {
  fileId: string;
  size: number | null;
  name: string | null;
  mime: string | null;
}

/** One inbound message, reduced to what the device uses. */
export interface BotMessage {
  messageId: number;
  chat: BotChat;
  from: BotUser | null;
  /** Unix seconds. */
  date: number;
  text: string;
  caption: string;
  kind: 'text' | 'photo' | 'document' | 'voice' | 'audio' | 'other';
  file: BotFileRef | null;
}

export interface BotUpdate {
  updateId: number;
  /** Null for updates the device does not handle (edits, channel posts, ...): they are confirmed and skipped. */
  message: BotMessage | null;
}

export interface BotFile {
  fileId: string;
  size: number | null;
  path: string | null;
}

export interface Upload {
  name: string;
  bytes: Uint8Array;
  mime: string;
}

/** The numeric bot id of a token, or null when the token is not token-shaped. */
export function botIdOf(token: string): string | null {
  const m = TOKEN_SHAPE.exec(token);
  return m ? m[1]! : null;
}

export function isBotToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function readUser(v: unknown): BotUser | null {
  if (!isPlainObject(v) || num(v['id']) === null) return null;
  return { id: v['id'] as number, isBot: v['is_bot'] === true, firstName: str(v['first_name']), username: str(v['username']) || null };
}

function readChat(v: unknown): BotChat | null {
  if (!isPlainObject(v) || num(v['id']) === null) return null;
  const name = [str(v['first_name']), str(v['last_name'])].filter(Boolean).join(' ');
  return { id: v['id'] as number, type: str(v['type']) || 'private', title: str(v['title']) || name, username: str(v['username']) || null };
}

function readFile(v: unknown, name: string | null = null): BotFileRef | null {
  if (!isPlainObject(v) || !str(v['file_id'])) return null;
  return { fileId: str(v['file_id']), size: num(v['file_size']), name: str(v['file_name']) || name, mime: str(v['mime_type']) || null };
}

/** Reads one message object; null when it lacks a chat. */
export function readMessage(v: unknown): BotMessage | null {
  if (!isPlainObject(v)) return null;
  const chat = readChat(v['chat']);
  if (!chat) return null;
  const base = { messageId: num(v['message_id']) ?? 0, chat, from: readUser(v['from']), date: num(v['date']) ?? 0, text: str(v['text']), caption: str(v['caption']) };
  if (Array.isArray(v['photo']) && v['photo'].length) {
    // Sizes come smallest first; the largest is the photo itself.
    return { ...base, kind: 'photo', file: readFile(v['photo'][v['photo'].length - 1]) };
  }
  if (isPlainObject(v['document'])) return { ...base, kind: 'document', file: readFile(v['document']) };
  if (isPlainObject(v['voice'])) return { ...base, kind: 'voice', file: readFile(v['voice']) };
  if (isPlainObject(v['audio'])) return { ...base, kind: 'audio', file: readFile(v['audio']) };
  if (typeof v['text'] === 'string') return { ...base, kind: 'text', file: null };
  return { ...base, kind: 'other', file: null };
}

/** Reads a getUpdates result; updates without a usable message come back with message null. */
export function readUpdates(v: unknown): BotUpdate[] | null {
  if (!Array.isArray(v)) return null;
  const out: BotUpdate[] = [];
  for (const u of v) {
    if (!isPlainObject(u) || num(u['update_id']) === null) continue;
    out.push({ updateId: u['update_id'] as number, message: readMessage(u['message']) });
  }
  return out;
}

export class BotApi {
  private token = '';

  constructor(
    private readonly client: Pick<HttpClient, 'request'>,
    /** Scheme and host of the Bot API (tests may point elsewhere; the device always uses the real host). */
    private readonly base = `https://${BOT_API_HOST}`,
  ) {}

  setToken(token: string): void {
    this.token = token;
  }
  hasToken(): boolean {
    return this.token !== '';
  }

  private fail<T>(error: BotErrorKind, message: string, code = 0, retryAfterS: number | null = null): BotResult<T> {
    return { ok: false, error, code, message, retryAfterS };
  }

  /** Turns the HTTP exchange into the Bot API's result, with errors typed. */
  private read<T>(r: ClientResult, take: (result: unknown) => T | null): BotResult<T> {
    if (!r.ok) {
      if (r.error === 'timeout') return this.fail('timeout', 'the Bot API did not answer in time');
      if (r.error === 'too-large') return this.fail('too-large', 'the Bot API answer was too large');
      return this.fail('network', `the Bot API could not be reached (${r.error})`);
    }
    const { status, body } = r.response;
    const parsed = parseJson(decode(body));
    const doc = parsed.ok && isPlainObject(parsed.value) ? parsed.value : null;
    if (doc && doc['ok'] === true) {
      const value = take(doc['result']);
      return value === null ? this.fail('malformed', 'the Bot API answered something unexpected', status) : { ok: true, value };
    }
    const code = (doc && num(doc['error_code'])) ?? status;
    // The description is the service's own sentence (it never echoes the token).
    const description = doc ? str(doc['description']).slice(0, 200) : '';
    const params = doc && isPlainObject(doc['parameters']) ? doc['parameters'] : null;
    const retry = params ? num(params['retry_after']) : null;
    const message = description || `HTTP ${status}`;
    if (code === 401 || code === 404) return this.fail('unauthorized', `the bot token was refused (${message})`, code);
    if (code === 409) return this.fail('conflict', message, code);
    if (code === 429) return this.fail('rate-limit', message, code, retry ?? 5);
    if (code >= 500) return this.fail('server', message, code);
    if (!doc) return this.fail('malformed', `the Bot API answered HTTP ${status} without a result`, status);
    return this.fail('refused', message, code);
  }

  private async call<T>(method: string, params: Record<string, unknown>, take: (result: unknown) => T | null, timeoutMs = CALL_TIMEOUT_MS, cancel?: { onCancel: (() => void) | null }): Promise<BotResult<T>> {
    if (!this.token) return this.fail('no-token', 'no bot token is set');
    const r = await this.client.request({
      method: 'POST',
      url: `${this.base}/bot${this.token}/${method}`,
      headers: { 'Content-Type': 'application/json' },
      body: encode(stringify(params)),
      timeoutMs,
      maxBodyBytes: ANSWER_MAX,
      ...(cancel ? { cancel } : {}),
    });
    return this.read(r, take);
  }

  getMe(): Promise<BotResult<BotUser>> {
    return this.call('getMe', {}, readUser);
  }

  /**
   * Long-polls for updates from `offset` on (every update below it is
   * confirmed to the service by this call). `cancel` ends a waiting poll.
   */
  getUpdates(offset: number, limit: number, cancel?: { onCancel: (() => void) | null }, timeoutS = POLL_TIMEOUT_S): Promise<BotResult<BotUpdate[]>> {
    const params = { offset, limit, timeout: timeoutS, allowed_updates: ['message'] };
    return this.call('getUpdates', params, readUpdates, timeoutS * 1000 + POLL_SLACK_MS, cancel);
  }

  sendMessage(chatId: string, text: string): Promise<BotResult<number>> {
    // Plain text: no parse_mode, so nothing in a reply needs escaping.
    return this.call('sendMessage', { chat_id: chatId, text, link_preview_options: { is_disabled: true } }, (m) => (isPlainObject(m) ? (num(m['message_id']) ?? 0) : null));
  }

  private async upload(method: string, field: string, chatId: string, file: Upload, caption: string): Promise<BotResult<number>> {
    if (!this.token) return this.fail('no-token', 'no bot token is set');
    const fields: Array<[string, string]> = [['chat_id', chatId]];
    if (caption) fields.push(['caption', caption]);
    const form = multipartBody(fields, [{ field, name: file.name, mime: file.mime, bytes: file.bytes }]);
    const r = await this.client.request({
      method: 'POST',
      url: `${this.base}/bot${this.token}/${method}`,
      headers: { 'Content-Type': form.contentType },
      body: form.body,
      timeoutMs: UPLOAD_TIMEOUT_MS,
      maxBodyBytes: ANSWER_MAX,
    });
    return this.read(r, (m) => (isPlainObject(m) ? (num(m['message_id']) ?? 0) : null));
  }

  /** A voice message: OGG with Opus audio, as the Bot API asks. */
  sendVoice(chatId: string, audio: Upload, caption = ''): Promise<BotResult<number>> {
    return this.upload('sendVoice', 'voice', chatId, audio, caption);
  }

  sendDocument(chatId: string, doc: Upload, caption = ''): Promise<BotResult<number>> {
    return this.upload('sendDocument', 'document', chatId, doc, caption);
  }

  getFile(fileId: string): Promise<BotResult<BotFile>> {
    return this.call('getFile', { file_id: fileId }, (f) => (isPlainObject(f) && str(f['file_id']) ? { fileId: str(f['file_id']), size: num(f['file_size']), path: str(f['file_path']) || null } : null));
  }

  /**
   * Downloads a file getFile described, streaming it to `onChunk` (which may
   * refuse by returning false), at most `maxBytes`.
   */
  async download(path: string, onChunk: (bytes: Uint8Array) => boolean, maxBytes = DOWNLOAD_MAX): Promise<BotResult<number>> {
    if (!this.token) return this.fail('no-token', 'no bot token is set');
    if (!FILE_PATH_SHAPE.test(path) || path.includes('..')) return this.fail('malformed', 'the file path is not one the Bot API gives');
    let received = 0;
    let status = 0;
    const r = await this.client.request({
      method: 'GET',
      url: `${this.base}/file/bot${this.token}/${path}`,
      timeoutMs: UPLOAD_TIMEOUT_MS,
      onHead: (s) => {
        status = s;
        return s === 200;
      },
      onBody: (chunk) => {
        received += chunk.length;
        if (received > maxBytes) return false;
        return onChunk(chunk);
      },
    });
    if (received > maxBytes) return this.fail('too-large', `the file is larger than ${maxBytes} bytes`);
    if (!r.ok) {
      if (status && status !== 200) return this.fail(status === 401 || status === 404 ? 'refused' : 'server', `the download was refused (HTTP ${status})`, status);
      return this.read<number>(r, () => null);
    }
    return { ok: true, value: received };
  }
}
