// Speech to text over the providers' hosted transcription APIs, per the
// sttProv setting: one POST <base>/v1/audio/transcriptions with a
// multipart/form-data body (src/stt/multipart.ts), the audio streamed into
// the request a chunk at a time.
//
//   openai   api.openai.com, model gpt-4o-mini-transcribe, response_format json
//            (openai SDK TranscriptionCreateParams: file, model, response_format)
//   mistral  api.mistral.ai, model voxtral-mini-latest (@mistralai/mistralai
//            AudioTranscriptionRequest: model, file; the answer's text)
//   custom   the custom endpoint's transcription base URL and model (its own,
//            or the endpoint's one base URL and whisper-1), OpenAI-compatible;
//            its key over https only, keyless over plain http (as speech)
//
// Formats: the device sends 16 kHz 16-bit mono WAV; a chat voice note goes
// as the Ogg Opus it came in. OpenAI lists ogg among its input formats
// (flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm) and Mistral's audio
// formats page lists ogg too, so every provider here takes both; a custom
// server that does not gets its refusal passed on.

import type { BodySource, ClientRequest, ClientResult } from '../net/http/client.ts';
import { capBytes } from '../util/cap.ts';
import { isPlainObject, parseJson } from '../util/json.ts';
import { decode } from '../util/utf8.ts';
import { boundaryOf, multipart } from './multipart.ts';

const TRAILING_SLASHES = /\/+$/;

export const TRANSCRIBE_PATH = '/v1/audio/transcriptions';
export const OPENAI_STT_BASE = 'https://api.openai.com';
export const MISTRAL_STT_BASE = 'https://api.mistral.ai';
export const OPENAI_STT_MODEL = 'gpt-4o-mini-transcribe';
export const MISTRAL_STT_MODEL = 'voxtral-mini-latest';
export const CUSTOM_STT_MODEL = 'whisper-1';
/** The whole exchange: the upload of up to a minute of speech and the answer. */
export const STT_TIMEOUT_MS = 60_000;
/** The answer's largest size (a JSON object with the text). */
export const STT_ANSWER_MAX = 64 * 1024;
/** The longest transcript kept (bytes of UTF-8). */
export const TRANSCRIPT_CAP_BYTES = 4096;

export type SttProvider = 'openai' | 'mistral' | 'custom';

/** What transcription needs of the provider settings (keys, the custom endpoint's transcription role). */
export interface SttKeys {
  key(provider: SttProvider): string | null;
  /** The custom endpoint's base URL and model for transcription (src/providers' customFor). */
  customFor(role: 'stt'): { base: string; model: string };
}

export interface SttEndpoint {
  provider: SttProvider;
  base: string;
  key: string | null;
  model: string;
}

export type SttEndpointResult = { ok: true; endpoint: SttEndpoint } | { ok: false; reason: string };

/** The endpoint sttProv names, or why there is none (off, no key, no custom base). */
export function sttEndpoint(keys: SttKeys, setting: unknown): SttEndpointResult {
  const prov = typeof setting === 'string' ? setting.toLowerCase() : 'off';
  if (prov === 'off') return { ok: false, reason: 'stt-off: speech to text is off; set sttProv to openai, mistral or custom' };
  if (prov === 'openai' || prov === 'mistral') {
    const key = keys.key(prov);
    if (!key) return { ok: false, reason: `no-stt-key: sttProv is ${prov}, and no ${prov} key is set; add it on the web page (Assistant > Models)` };
    return { ok: true, endpoint: { provider: prov, base: prov === 'openai' ? OPENAI_STT_BASE : MISTRAL_STT_BASE, key, model: prov === 'openai' ? OPENAI_STT_MODEL : MISTRAL_STT_MODEL } };
  }
  if (prov === 'custom') {
    const role = keys.customFor('stt');
    const base = role.base.trim().replace(TRAILING_SLASHES, '');
    if (!base) return { ok: false, reason: 'no-stt-endpoint: sttProv is custom, and no custom endpoint is set; set its base URL on the web page' };
    return { ok: true, endpoint: { provider: 'custom', base, key: base.startsWith('https://') ? keys.key('custom') : null, model: role.model || CUSTOM_STT_MODEL } };
  }
  return { ok: false, reason: `no-stt-provider: sttProv ${capBytes(prov, 15)} has no transcription endpoint (openai, mistral or custom)` };
}

/** The audio to send: a file name with its extension (the services go by it), its type, and its bytes. */
export interface AudioUpload {
  filename: string;
  mime: string;
  source: BodySource;
}

/** Whether the provider takes this container ('wav' or 'ogg'). Every provider here takes both (see the header). */
export function acceptsFormat(_provider: SttProvider, format: 'wav' | 'ogg'): boolean {
  return format === 'wav' || format === 'ogg';
}

type Client = { request(req: ClientRequest): Promise<ClientResult> };

export type TranscribeResult = { ok: true; text: string; provider: SttProvider; model: string } | { ok: false; reason: string; cancelled?: boolean };

/** The form fields each provider's SDK sends (the file comes last). */
export function fieldsOf(ep: SttEndpoint): Array<[string, string]> {
  if (ep.provider === 'mistral') return [['model', ep.model]];
  return [
    ['model', ep.model],
    ['response_format', 'json'],
  ];
}

function refusal(status: number, body: Uint8Array): string {
  let detail = '';
  const parsed = parseJson(decode(body.subarray(0, 2048)));
  if (parsed.ok && isPlainObject(parsed.value)) {
    const e = parsed.value['error'] ?? parsed.value['message'] ?? parsed.value['detail'];
    const m = isPlainObject(e) ? e['message'] : typeof e === 'string' ? e : undefined;
    if (typeof m === 'string') detail = `: ${capBytes(m, 120)}`;
  }
  if (status === 401 || status === 403) return `stt-refused: the transcription provider refused the key (HTTP ${status})${detail}`;
  return `stt-failed: the transcription provider answered HTTP ${status}${detail}`;
}

/**
 * Sends the audio in one request and resolves with the transcript (trimmed,
 * capped), or why not. cancel: set onCancel's caller to abort at once.
 */
export async function transcribe(client: Client, ep: SttEndpoint, audio: AudioUpload, random: (b: Uint8Array) => void, cancel?: { onCancel: (() => void) | null }): Promise<TranscribeResult> {
  const body = multipart(boundaryOf(random), fieldsOf(ep), { field: 'file', filename: audio.filename, mime: audio.mime, source: audio.source });
  const headers: Record<string, string> = { 'Content-Type': body.contentType, Accept: 'application/json' };
  if (ep.key && ep.base.startsWith('https://')) headers['Authorization'] = `Bearer ${ep.key}`;
  const r = await client.request({
    method: 'POST',
    url: `${ep.base}${TRANSCRIBE_PATH}`,
    headers,
    bodySource: body.source,
    timeoutMs: STT_TIMEOUT_MS,
    // A transcription changes nothing on the server, and the body rewinds (the recording is read again from the
    // card or RAM): sent again on a fresh connection when a kept-alive one turns out closed.
    idempotent: true,
    maxBodyBytes: STT_ANSWER_MAX,
    ...(cancel ? { cancel } : {}),
  });
  if (!r.ok) {
    if (r.error === 'aborted' && r.message === 'cancelled') return { ok: false, reason: 'cancelled', cancelled: true };
    return { ok: false, reason: `stt-unreachable: the transcription provider could not be reached (${r.error}: ${capBytes(r.message, 80)})` };
  }
  const res = r.response;
  if (res.status !== 200) return { ok: false, reason: refusal(res.status, res.body) };
  const parsed = parseJson(decode(res.body));
  const text = parsed.ok && isPlainObject(parsed.value) ? parsed.value['text'] : undefined;
  if (typeof text !== 'string') return { ok: false, reason: 'stt-bad-answer: the transcription provider answered without a text' };
  return { ok: true, text: capBytes(text.trim(), TRANSCRIPT_CAP_BYTES), provider: ep.provider, model: ep.model };
}
