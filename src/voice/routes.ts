// The voice settings the owner sets on the web page: GET /api/voice (each with
// its current value, the choices, and for each provider whether it is ready
// or why not) and POST /api/voice (sttProv, ttsProv, ttsOn, ttsVoice; all or
// nothing). A provider whose key or endpoint is missing is refused with the
// reason, in the words the voice turn itself would say. The values are the
// device's config keys (src/device's actions: the same a device.control or a
// turn's config action sets), applied through the action validator.

import { formRoute } from '../core/form-route.ts';
import type { Route } from '../core/router.ts';
import type { ApplyResult } from '../device/index.ts';
import { jsonResponse } from '../net/http/errors.ts';
import { DEFAULT_TTS_PROVIDER, DEFAULT_TTS_VOICE, TTS_PROVIDERS, ttsEndpoint, type TtsKeys } from '../audio/index.ts';
import { sttEndpoint, type SttKeys } from '../stt/index.ts';
import { STT_PROVIDERS, validateAction, type ConfigKey, type DeviceAction } from '../contracts/index.ts';

/** The device settings as the voice routes read and set them (src/device's DeviceActions). */
export interface VoiceSettingsPort {
  config(key: ConfigKey): unknown;
  apply(action: DeviceAction): ApplyResult;
}

const FIELDS = ['sttProv', 'ttsProv', 'ttsOn', 'ttsVoice'] as const;

export interface VoiceSettingsView {
  sttProv: string;
  ttsProv: string;
  ttsOn: boolean;
  ttsVoice: string;
  choices: { sttProv: readonly string[]; ttsProv: readonly string[] };
  /** Per provider: null when it is ready, else why not (a key or an endpoint missing). */
  ready: { stt: Record<string, string | null>; tts: Record<string, string | null> };
}

export function voiceSettingsView(settings: VoiceSettingsPort, keys: SttKeys & TtsKeys): VoiceSettingsView {
  const stt = settings.config('sttProv');
  const tts = settings.config('ttsProv');
  const voice = settings.config('ttsVoice');
  const sttReady: Record<string, string | null> = {};
  for (const p of STT_PROVIDERS) {
    if (p === 'off') continue;
    const e = sttEndpoint(keys, p);
    sttReady[p] = e.ok ? null : e.reason;
  }
  const ttsReady: Record<string, string | null> = {};
  for (const p of TTS_PROVIDERS) {
    const e = ttsEndpoint(keys, p, voice);
    ttsReady[p] = e.ok ? null : e.reason;
  }
  return {
    sttProv: typeof stt === 'string' ? stt : 'off',
    ttsProv: typeof tts === 'string' ? tts : DEFAULT_TTS_PROVIDER,
    ttsOn: settings.config('ttsOn') === true,
    ttsVoice: typeof voice === 'string' && voice ? voice : DEFAULT_TTS_VOICE,
    choices: { sttProv: STT_PROVIDERS, ttsProv: TTS_PROVIDERS },
    ready: { stt: sttReady, tts: ttsReady },
  };
}

/** Applies the form: an error sentence (nothing changed), or null. */
export function applyVoiceSettings(settings: VoiceSettingsPort, keys: SttKeys & TtsKeys, fields: Map<string, string>): string | null {
  const values: Record<string, unknown> = {};
  for (const [name, raw] of fields) {
    if (name === 'token') continue; // the gate's form field
    if (!(FIELDS as readonly string[]).includes(name)) return `unknown voice setting ${name}`;
    const v = raw.trim();
    if (name === 'ttsOn') {
      if (v !== '0' && v !== '1') return 'ttsOn must be 0 or 1';
      values[name] = v === '1';
    } else values[name] = name === 'ttsVoice' ? v : v.toLowerCase();
  }
  if (!Object.keys(values).length) return 'no voice setting was given';
  // A provider is taken only when it can work: its key or endpoint is there.
  if (typeof values['sttProv'] === 'string' && values['sttProv'] !== 'off') {
    const e = sttEndpoint(keys, values['sttProv']);
    if (!e.ok) return e.reason;
  }
  const ttsProv = typeof values['ttsProv'] === 'string' ? values['ttsProv'] : null;
  if (ttsProv !== null) {
    const e = ttsEndpoint(keys, ttsProv, values['ttsVoice'] ?? settings.config('ttsVoice'));
    if (!e.ok) return e.reason;
  }
  // Voice replies on need a speech provider that can speak.
  if (values['ttsOn'] === true) {
    const e = ttsEndpoint(keys, ttsProv ?? settings.config('ttsProv'), values['ttsVoice'] ?? settings.config('ttsVoice'));
    if (!e.ok) return `voice replies need speech: ${e.reason}`;
  }
  const checked = validateAction({ config: values });
  if (!checked.ok) return `the voice settings were refused (${checked.reason}${checked.key ? `: ${checked.key}` : ''})`;
  const r = settings.apply(checked.action);
  return r.ok ? null : r.note;
}

export function voiceRoutes(settings: VoiceSettingsPort, keys: SttKeys & TtsKeys, log: { info(tag: string, m: string): void }): Route[] {
  return [
    { method: 'GET', path: '/api/voice', handler: () => jsonResponse(voiceSettingsView(settings, keys)) },
    formRoute({
      path: '/api/voice',
      bodyLimit: 1024,
      json: true,
      apply: (f) => applyVoiceSettings(settings, keys, f),
      view: () => voiceSettingsView(settings, keys),
      log: { to: log as never, tag: 'voice', line: (f) => `voice settings changed: ${[...f.keys()].filter((k) => k !== 'token').join(', ')}` },
    }),
  ];
}
