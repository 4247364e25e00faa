// Types for tools/telegram-fake.mjs.

export const BOT_API_HOST: string;
export const DEFAULT_TOKEN: string;

export interface FakeResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface SentMessage {
  method: 'sendMessage' | 'sendVoice' | 'sendDocument';
  chat: string;
  text: string;
  file?: { name: string; mime: string; bytes: Buffer };
  messageId: number;
  at: number;
}

export interface Exchange {
  method: 'getMe' | 'getUpdates' | 'sendMessage' | 'sendVoice' | 'sendDocument' | 'getFile' | 'setWebhook' | 'deleteWebhook' | 'download';
  /** How the parameters came: JSON, multipart, a form, the query string, or none. */
  via: 'json' | 'multipart' | 'form' | 'query' | 'none';
  params: Record<string, unknown>;
  files: Record<string, { name: string; mime: string; size: number }>;
  /** A multipart upload's body and Content-Type as they came. */
  raw?: { contentType: string; body: Buffer };
  status: number;
  answer: unknown;
  at: number;
}

export interface SayOptions {
  firstName?: string;
  username?: string;
  fromId?: number;
  title?: string;
  isBot?: boolean;
  edited?: boolean;
  photo?: Uint8Array;
  document?: { name: string; bytes: Uint8Array; mime?: string };
  voice?: Uint8Array;
  sticker?: boolean;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(t: unknown): void;
}

export interface BotApiFake {
  token: string;
  botId: number;
  username: string;
  handle(method: string, url: string, headers: Record<string, string | string[] | undefined>, body: Uint8Array): Promise<FakeResponse>;
  /** Queues a user's message; returns its update_id. */
  say(chatId: string | number, text: string, options?: SayOptions): number;
  addFile(bytes: Uint8Array, name?: string | null, mime?: string | null, kind?: 'photo' | 'document' | 'voice' | 'sticker'): string;
  sent: SentMessage[];
  calls: Array<{ method: string; params?: Record<string, unknown>; path?: string; at: number }>;
  /** Every call of a method the fake knows, and each download: the parameters as read, the file parts, the JSON answered (null for a download). */
  exchanges: Exchange[];
  updates: Array<Record<string, unknown> & { update_id: number }>;
  /** Updates allowed_updates kept from the bot. */
  dropped: Array<Record<string, unknown> & { update_id: number }>;
  confirmed(): number;
  unconfirmed(): Array<Record<string, unknown> & { update_id: number }>;
  allowedUpdates(): string[];
  fail(method: string, code: number, options?: { description?: string; retryAfter?: number; times?: number }): void;
  block(chatId: string | number, on?: boolean): void;
  setToken(token: string): void;
  to(chatId: string | number): SentMessage[];
  waitSent(pred: (sent: SentMessage[]) => boolean, timeoutMs?: number): Promise<SentMessage[]>;
  release(): void;
}

export function createBotApi(options?: { token?: string; username?: string; timers?: Timers; startUpdateId?: number }): BotApiFake;

export interface BotApiServer {
  port: number;
  bot: BotApiFake;
  close(): Promise<void>;
}

export function start(options?: { port?: number; tls?: boolean; token?: string; username?: string; timers?: Timers }): Promise<BotApiServer>;
export function routeArgs(port: number, targetPort?: number): string[];
