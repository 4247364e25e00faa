// Text-to-speech through the provider the ttsProv setting names (config
// keys ttsProv, ttsVoice), OpenAI-style: POST <base>/v1/audio/speech with
// {model, input, voice, response_format}.
//
//   openai (default)  provider A's host with its key (set on the web page)
//   custom            the custom endpoint's speech base URL and model (its
//                     own, or the endpoint's one base URL and tts-1: an
//                     OpenAI-compatible speech server such as a local Piper);
//                     its key only over https, keyless over plain http (as
//                     every provider key)
//
// Anything else, or no key for the provider, is refused with a sentence
// saying what to set; nothing is sent. The speaker asks for WAV (streamed
// into the mixer as it arrives), a chat voice message for Ogg Opus, which
// the Bot API takes as a voice message as it is.

import type { ClientRequest, ClientResult } from '../net/http/client.ts';
import { capBytes } from '../util/cap.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode } from '../util/utf8.ts';

const TRAILING_SLASHES = /\/+$/;

export const TTS_PROVIDERS = ['openai', 'custom'] as const;
export type TtsProvider = (typeof TTS_PROVIDERS)[number];
export const DEFAULT_TTS_PROVIDER: TtsProvider = 'openai';
export const DEFAULT_TTS_VOICE = 'alloy';
export const OPENAI_TTS_BASE = 'https://api.openai.com';
/** Provider A's speech model; a custom server gets the common OpenAI-compatible name. */
export const OPENAI_TTS_MODEL = 'gpt-4o-mini-tts';
export const CUSTOM_TTS_MODEL = 'tts-1';
export const TTS_TIMEOUT_MS = 30_000;
/** A voice message's largest answer (Ogg Opus: minutes of speech). */
export const VOICE_MESSAGE_MAX = 2 * 1024 * 1024;

export interface TtsEndpoint {
  provider: TtsProvider;
  /** https://host[:port] (no path). */
  base: string;
  /** Sent as a Bearer token over https only. */
  key: string | null;
  model: string;
  voice: string;
}

/** What the speech client needs of the provider settings (human-web-only: keys, the custom endpoint's speech role). */
export interface TtsKeys {
  key(provider: 'openai' | 'custom'): string | null;
  /** The custom endpoint's base URL and model for speech (src/providers' customFor). */
  customFor(role: 'tts'): { base: string; model: string };
}

export type EndpointResult = { ok: true; endpoint: TtsEndpoint } | { ok: false; reason: string };

/** The endpoint ttsProv and ttsVoice name, or why there is none. */
export function ttsEndpoint(keys: TtsKeys, provSetting: unknown, voiceSetting: unknown): EndpointResult {
  const prov = typeof provSetting === 'string' ? provSetting.toLowerCase() : DEFAULT_TTS_PROVIDER;
  const voice = typeof voiceSetting === 'string' && voiceSetting ? voiceSetting : DEFAULT_TTS_VOICE;
  if (prov === 'openai') {
    const key = keys.key('openai');
    if (!key) return { ok: false, reason: 'no-tts-key: speech uses provider A (openai), and no openai key is set; add it on the web page (Assistant > Models), or set ttsProv custom' };
    return { ok: true, endpoint: { provider: 'openai', base: OPENAI_TTS_BASE, key, model: OPENAI_TTS_MODEL, voice } };
  }
  if (prov === 'custom') {
    const role = keys.customFor('tts');
    const base = role.base.trim().replace(TRAILING_SLASHES, '');
    if (!base) return { ok: false, reason: 'no-tts-endpoint: ttsProv is custom, and no custom endpoint is set; set its base URL on the web page' };
    const https = base.startsWith('https://');
    return { ok: true, endpoint: { provider: 'custom', base, key: https ? keys.key('custom') : null, model: role.model || CUSTOM_TTS_MODEL, voice } };
  }
  return { ok: false, reason: `no-tts-provider: ttsProv ${capBytes(prov, 15)} has no speech endpoint on this device (openai or custom)` };
}

export type SpeechFormat = 'wav' | 'opus';

type Client = { request(req: ClientRequest): Promise<ClientResult> };

export type SpeechResult = { ok: true; bytes: number; body: Uint8Array } | { ok: false; reason: string };

function requestOf(ep: TtsEndpoint, text: string, format: SpeechFormat): ClientRequest {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: format === 'wav' ? 'audio/wav' : 'audio/ogg' };
  if (ep.key && ep.base.startsWith('https://')) headers['Authorization'] = `Bearer ${ep.key}`;
  return {
    method: 'POST',
    url: `${ep.base}/v1/audio/speech`,
    headers,
    body: stringify({ model: ep.model, input: text, voice: ep.voice, response_format: format }),
    timeoutMs: TTS_TIMEOUT_MS,
    // Speech changes nothing on the server: sent again on a fresh connection if a kept-alive one was closed.
    idempotent: true,
  };
}

/** A refusal's sentence from the status and the provider's error body (its message only, capped). */
function refusal(status: number, body: Uint8Array): string {
  let detail = '';
  const parsed = parseJson(decode(body.subarray(0, 2048)));
  if (parsed.ok && isPlainObject(parsed.value)) {
    const e = parsed.value['error'];
    const m = isPlainObject(e) ? e['message'] : typeof e === 'string' ? e : undefined;
    if (typeof m === 'string') detail = `: ${capBytes(m, 120)}`;
  }
  if (status === 401 || status === 403) return `tts-refused: the speech provider refused the key (HTTP ${status})${detail}`;
  return `tts-failed: the speech provider answered HTTP ${status}${detail}`;
}

/**
 * Asks for speech and streams the answer's bytes to onChunk (which may stop
 * it by returning false). Resolves with the byte count, or why it failed.
 * cancel: its onCancel closes the request (a stop).
 */
export async function streamSpeech(client: Client, ep: TtsEndpoint, text: string, format: SpeechFormat, onChunk: (bytes: Uint8Array) => boolean, cancel?: { onCancel: (() => void) | null }): Promise<SpeechResult> {
  let status = 0;
  let bytes = 0;
  const errorBody: Uint8Array[] = [];
  const req = requestOf(ep, text, format);
  if (cancel) req.cancel = cancel;
  req.onHead = (s) => {
    status = s;
    return true;
  };
  req.onBody = (chunk) => {
    if (status !== 200) {
      if (errorBody.length < 4) errorBody.push(chunk.slice());
      return true;
    }
    bytes += chunk.length;
    return onChunk(chunk);
  };
  const r = await client.request(req);
  if (status !== 0 && status !== 200) {
    const all = new Uint8Array(errorBody.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of errorBody) {
      all.set(c, at);
      at += c.length;
    }
    return { ok: false, reason: refusal(status, all) };
  }
  if (!r.ok && r.error !== 'aborted') return { ok: false, reason: `tts-unreachable: the speech provider could not be reached (${r.error}: ${capBytes(r.message, 80)})` };
  return { ok: true, bytes, body: new Uint8Array(0) };
}

/** Asks for speech and keeps the whole answer (a voice message), at most VOICE_MESSAGE_MAX bytes. */
export async function fetchSpeech(client: Client, ep: TtsEndpoint, text: string, format: SpeechFormat): Promise<SpeechResult> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let tooLarge = false;
  const r = await streamSpeech(client, ep, text, format, (c) => {
    size += c.length;
    if (size > VOICE_MESSAGE_MAX) {
      tooLarge = true;
      return false;
    }
    chunks.push(c.slice());
    return true;
  });
  if (!r.ok) return r;
  if (tooLarge) return { ok: false, reason: `tts-too-large: the speech is over ${VOICE_MESSAGE_MAX} bytes` };
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.length;
  }
  return { ok: true, bytes: size, body };
}
