// Types for tools/telegram-rules.mjs.

export const DOC: string;
export const UPDATE_TYPES: string[];
export const DEFAULT_ALLOWED: string[];
export const METHODS: Record<'getMe' | 'getUpdates' | 'sendMessage' | 'sendVoice' | 'sendDocument' | 'getFile' | 'setWebhook' | 'deleteWebhook', { params: string[]; file?: string }>;
export function methodNamed(name: string): string | null;
export const PARSE_MODES: string[];
export const TEXT_MAX: number;
export const CAPTION_MAX: number;
export const DOWNLOAD_MAX: number;
export const UPLOAD_MAX: number;
export function parseMultipart(body: Buffer, contentType: string): { fields: Record<string, string>; files: Record<string, { name: string; mime: string; bytes: Buffer }> } | null;
export function readRequest(url: string, headers: Record<string, string | string[] | undefined>, body: Buffer): { params: Record<string, unknown>; files: Record<string, { name: string; mime: string; bytes: Buffer }>; via: string; refusal?: undefined } | { refusal: string };
export function unknownParam(method: string, params: Record<string, unknown>, files: Record<string, unknown>): string | null;
type Read<T> = { value: T | undefined; error?: undefined } | { error: string; value?: undefined };
export function readInt(params: Record<string, unknown>, name: string, range?: { min?: number; max?: number }): Read<number>;
export function readBool(params: Record<string, unknown>, name: string): Read<boolean>;
export function readString(params: Record<string, unknown>, name: string): Read<string>;
export function readJson(params: Record<string, unknown>, name: string, shape: 'array' | 'object'): Read<unknown>;
export function readAllowed(params: Record<string, unknown>): Read<string[]>;
export function chatKindOf(id: number): 'private' | 'group' | 'supergroup';
export function readChatId(params: Record<string, unknown>): { id: number } | { username: string } | { error: string };
export function readFileParam(params: Record<string, unknown>, files: Record<string, { name: string; mime: string; bytes: Buffer }>, name: string): { upload: { name: string; mime: string; bytes: Buffer } } | { fileId: string } | { error: string };
export function voiceMime(bytes: Buffer): string | null;
export function oggOpusSeconds(bytes: Buffer): number | null;
export function documentMime(name: string, partMime: string | null): string;
