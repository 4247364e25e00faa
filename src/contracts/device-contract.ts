// The device-action part of the turn contract: the shape of one device[]
// element, the benign config allow-list with each key's type and range, the
// protected (human-web-only) config keys, and the hosted providers orch_model
// may name. actions.ts validates against these; contract.ts embeds the
// element in the turn object.
//
// Element shape (decision): an object keyed by action kind, every kind key
// present and all but one null, e.g.
//   {"led":{"mode":"pulse","color":{"r":0,"g":80,"b":255},"brightness":null},
//    "lights":null,"config":null,"orch_model":null,"reboot":null,"tts":null}
// rather than a "kind" discriminator with anyOf branches: strict structured
// output (every key required, nullable by a ["type","null"] pair,
// additionalProperties false) expresses it with plain objects, no anyOf and
// no const, which every provider dialect accepts. "Exactly one kind" is then
// "exactly one kind key whose value is not null" (reboot: true).
//
// config (decision): an object of the allow-listed keys, each typed and
// nullable; null means "leave unchanged", so one action may set several keys,
// and a protected key among them refuses the whole action.

import type { BooleanField, Field, NumberField, ObjectField, StringField } from './contract-types.ts';

/** The three hosted providers (wire dialects A, B, C of the spec). */
export const HOSTED_PROVIDERS = ['openai', 'anthropic', 'mistral'] as const;
export type HostedProvider = (typeof HOSTED_PROVIDERS)[number];

export const LED_MODES = ['solid', 'spinner', 'pulse', 'flash', 'rainbow'] as const;
export type LedMode = (typeof LED_MODES)[number];

export const LIGHT_VALUES = ['off', 'full'] as const;
export type LightValue = (typeof LIGHT_VALUES)[number];

export const ACTION_KINDS = ['led', 'lights', 'config', 'orch_model', 'reboot', 'tts'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** Speech-to-text providers sttProv may name (src/stt: the hosted transcription APIs; custom: the custom endpoint's OpenAI-compatible route; off: none). */
export const STT_PROVIDERS = ['off', 'openai', 'mistral', 'custom'] as const;

/** Longest tts text spoken; longer text is cut at a character boundary. */
export const TTS_CAP_BYTES = 1024;
/** Model id cap (as for session_ops model). */
export const MODEL_CAP_BYTES = 39;

const int = (min: number, max: number, doc: string): NumberField => ({ type: 'integer', min, max, doc });
const token = (capBytes: number, doc: string): StringField => ({ type: 'string', capBytes, overLong: 'drop', charset: 'token', doc });
const bool = (doc: string): BooleanField => ({ type: 'boolean', doc });

/**
 * The benign config keys a turn may set, with their value types and ranges.
 * Anything not listed here is refused. Values of unknown domain (names of
 * themes, voices, speech providers) are checked for shape only: a short
 * token of [A-Za-z0-9._-].
 */
export const CONFIG_KEYS = {
  ledBrightness: int(0, 255, 'ring brightness'),
  priority: token(15, 'notification priority level name'),
  posture: token(15, 'assistant posture name'),
  profile: int(0, 2, 'power profile'),
  theme: token(23, 'screen theme name'),
  attnHoldMs: int(0, 600000, 'how long an attention cue holds, ms'),
  sfxLvlN: int(0, 100, 'sound-effect level in Notifier mode'),
  sfxLvlO: int(0, 100, 'sound-effect level in Orchestrator mode'),
  sfxVol: int(0, 100, 'sound-effect volume'),
  sfxTheme: token(23, 'sound-effect theme name'),
  sttProv: { ...token(15, 'speech-to-text provider for voice turns and chat voice notes'), enum: STT_PROVIDERS },
  ttsProv: token(15, 'text-to-speech provider id'),
  ttsVoice: token(39, 'text-to-speech voice id'),
  ttsOn: bool('spoken replies on'),
  sleepOvr: int(-1, 1440, 'screen sleep override, minutes; 0 never sleeps, -1 clears'),
  brightOvr: int(-1, 255, 'screen brightness override; -1 clears'),
  devName: { type: 'string', capBytes: 31, overLong: 'drop', trim: true, charset: 'text', doc: 'device name' },
} as const satisfies Record<string, Field>;

export type ConfigKey = keyof typeof CONFIG_KEYS;
export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[];

/**
 * Keys only the owner may set, through the web page (spec Authentication 13):
 * provider keys, the chat-bot token, the chat allowlist, provider priority and
 * routing, orchestrator host and fabric, the allowlist, the Local Loops blob,
 * the budget governors, plus the device's own secrets. Compared without case.
 * A config action naming one (whatever its value, even null) is refused whole
 * with 'protected-BLOCKED'.
 */
export const PROTECTED_CONFIG_KEYS: readonly string[] = [
  'apiKeyA', 'apiKeyB', 'apiKeyC', 'wsKey', 'tgToken', 'tgAllow', 'provPrio', 'providerPriority', 'routing',
  'fallbacks', 'orchHost', 'orchBase', 'orchModel', 'orchProv', 'fabric', 'allowlist', 'localLoops', 'token',
  'apPass', 'tlsVerify', 'midFail',
];
/** Any key starting with one of these is protected too (budgetDaily, budgetA...). */
export const PROTECTED_CONFIG_PREFIXES: readonly string[] = ['budget'];
/** Any key containing one of these reads as a secret and is protected. */
export const PROTECTED_CONFIG_WORDS: readonly string[] = ['key', 'token', 'secret', 'pass', 'allow'];

const nullableKinds = (fields: Record<ActionKind, Field>): ObjectField => ({
  type: 'object',
  doc: 'one device action: set exactly one kind, the other kinds null',
  fields,
});

/** One device[] element. */
export const DEVICE_ACTION: ObjectField = nullableKinds({
  led: {
    type: 'object',
    doc: 'LED ring animation',
    fields: {
      mode: { type: 'string', enum: LED_MODES, doc: 'animation' },
      color: {
        type: 'object',
        doc: 'null keeps the current color',
        fields: { r: int(0, 255, 'red'), g: int(0, 255, 'green'), b: int(0, 255, 'blue') },
      },
      brightness: int(0, 255, 'null keeps the current brightness'),
    },
  },
  lights: {
    type: 'object',
    doc: 'room lights',
    fields: { value: { type: 'string', enum: LIGHT_VALUES, doc: 'state' } },
  },
  config: { type: 'object', doc: 'settings to change; null keys stay unchanged', fields: CONFIG_KEYS },
  orch_model: {
    type: 'object',
    doc: 'switch the orchestrator model',
    fields: {
      provider: { type: 'string', enum: HOSTED_PROVIDERS, doc: 'hosted provider' },
      model: { type: 'string', capBytes: MODEL_CAP_BYTES, doc: 'model id' },
    },
  },
  reboot: bool('true restarts the device'),
  tts: {
    type: 'object',
    doc: 'speak text aloud',
    fields: { text: { type: 'string', capBytes: TTS_CAP_BYTES, doc: 'what to say' } },
  },
});
