// The device-action validator: takes one device[] element as parsed JSON (or
// a device.control tool argument) and returns a typed action or a refusal.
// Refusal reasons are fixed tokens; they never carry a value from the input,
// so a refused secret cannot leak through the refusal (spec Authentication 13).
// Only allow-listed config key names are ever echoed back, in `key`.
//
// Precedence: a config object naming a protected key refuses the element with
// 'protected-BLOCKED' before any other check, so an attempt on a protected key
// is always reported as such. Applying an action (and refusing reboot in
// unattended turns or from device.control) is the caller's business.

import { capBytes } from '../util/cap.ts';
import { utf8Length } from '../util/utf8.ts';
import { isPlainObject } from '../util/json.ts';
import type { Field } from './contract-types.ts';
import {
  ACTION_KINDS,
  CONFIG_KEYS,
  HOSTED_PROVIDERS,
  LED_MODES,
  LIGHT_VALUES,
  MODEL_CAP_BYTES,
  PROTECTED_CONFIG_KEYS,
  PROTECTED_CONFIG_PREFIXES,
  PROTECTED_CONFIG_WORDS,
  TTS_CAP_BYTES,
  type ActionKind,
  type ConfigKey,
  type HostedProvider,
  type LedMode,
  type LightValue,
} from './device-contract.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DECIMAL_INT = /^-?[0-9]{1,9}$/;
const WHITESPACE = /\s/;

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

export type ConfigValues = Partial<Record<ConfigKey, number | string | boolean>>;

export type DeviceAction =
  | { kind: 'led'; mode: LedMode; color: Rgb | null; brightness: number | null }
  | { kind: 'lights'; value: LightValue }
  | { kind: 'config'; values: ConfigValues }
  | { kind: 'orch_model'; provider: HostedProvider; model: string }
  | { kind: 'reboot' }
  | { kind: 'tts'; text: string };

export type RefusalReason =
  | 'not-object' // the element is not a JSON object
  | 'no-kind' // no action kind set
  | 'several-kinds' // more than one kind set
  | 'unknown-kind' // a key that is not an action kind is set
  | 'bad-params' // the kind's parameters are not an object (reboot: not true or an object)
  | 'bad-mode'
  | 'bad-color'
  | 'bad-brightness'
  | 'bad-value' // lights value, or a config value of the wrong type or range
  | 'protected-BLOCKED' // config names a human-web-only key
  | 'unknown-key' // config names a key that is not on the allow-list
  | 'empty-config' // config sets no key
  | 'bad-provider'
  | 'bad-model'
  | 'empty-text';

export type ActionResult =
  | { ok: true; action: DeviceAction }
  | { ok: false; reason: RefusalReason; kind?: ActionKind; key?: ConfigKey };

const refuse = (reason: RefusalReason, kind?: ActionKind, key?: ConfigKey): ActionResult => {
  const r: ActionResult = { ok: false, reason };
  if (kind !== undefined) r.kind = kind;
  if (key !== undefined) r.key = key;
  return r;
};

const has = (list: readonly string[], s: string): boolean => list.indexOf(s) >= 0;

/** True when a config key is human-web-only (never settable by a turn or a tool). */
export function isProtectedConfigKey(key: string): boolean {
  if (Object.hasOwn(CONFIG_KEYS, key)) return false;
  const k = key.toLowerCase();
  for (const p of PROTECTED_CONFIG_KEYS) if (p.toLowerCase() === k) return true;
  for (const p of PROTECTED_CONFIG_PREFIXES) if (k.startsWith(p)) return true;
  for (const w of PROTECTED_CONFIG_WORDS) if (k.indexOf(w) >= 0) return true;
  return false;
}

const isAbsent = (v: unknown): boolean => v === null || v === undefined;

function isInt(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

function enumValue<T extends string>(v: unknown, values: readonly T[]): T | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  return has(values, s) ? (s as T) : undefined;
}

function hasControl(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

const TOKEN_RE = /^[A-Za-z0-9._-]+$/;

/**
 * A config value checked against its key's definition. Integers and booleans
 * may also arrive as their JSON text ("40", "true"), as a non-strict provider
 * may send them. undefined when the value does not fit.
 */
function configValue(v: unknown, f: Field): number | string | boolean | undefined {
  switch (f.type) {
    case 'integer': {
      const n = typeof v === 'string' && DECIMAL_INT.test(v) ? Number(v) : v;
      return isInt(n, f.min ?? -Infinity, f.max ?? Infinity) ? n : undefined;
    }
    case 'boolean':
      if (typeof v === 'boolean') return v;
      return v === 'true' ? true : v === 'false' ? false : undefined;
    case 'string': {
      if (typeof v !== 'string') return undefined;
      const s = f.trim ? v.trim() : v;
      if (s.length === 0 || (f.capBytes !== undefined && utf8Length(s) > f.capBytes)) return undefined;
      if (f.charset === 'token' && !TOKEN_RE.test(s)) return undefined;
      if (f.charset === 'text' && hasControl(s)) return undefined;
      if (f.enum && !has(f.enum, s)) return undefined;
      return s;
    }
    default:
      return undefined;
  }
}

function validateLed(p: unknown): ActionResult {
  if (!isPlainObject(p)) return refuse('bad-params', 'led');
  const mode = enumValue(p.mode, LED_MODES);
  if (mode === undefined) return refuse('bad-mode', 'led');
  let color: Rgb | null = null;
  if (!isAbsent(p.color)) {
    const c = p.color;
    if (!isPlainObject(c)) return refuse('bad-color', 'led');
    // Strict output makes r, g, b nullable: all null means "no color", and a
    // single null component reads as 0 ({r:255} is red).
    if (!(isAbsent(c.r) && isAbsent(c.g) && isAbsent(c.b))) {
      const r = isAbsent(c.r) ? 0 : c.r;
      const g = isAbsent(c.g) ? 0 : c.g;
      const b = isAbsent(c.b) ? 0 : c.b;
      if (!isInt(r, 0, 255) || !isInt(g, 0, 255) || !isInt(b, 0, 255)) return refuse('bad-color', 'led');
      color = { r, g, b };
    }
  }
  let brightness: number | null = null;
  if (!isAbsent(p.brightness)) {
    if (!isInt(p.brightness, 0, 255)) return refuse('bad-brightness', 'led');
    brightness = p.brightness;
  }
  return { ok: true, action: { kind: 'led', mode, color, brightness } };
}

function validateLights(p: unknown): ActionResult {
  if (!isPlainObject(p)) return refuse('bad-params', 'lights');
  const value = enumValue(p.value, LIGHT_VALUES);
  if (value === undefined) return refuse('bad-value', 'lights');
  return { ok: true, action: { kind: 'lights', value } };
}

function validateConfig(p: unknown): ActionResult {
  if (!isPlainObject(p)) return refuse('bad-params', 'config');
  const keys = Object.keys(p);
  for (const k of keys) if (isProtectedConfigKey(k)) return refuse('protected-BLOCKED', 'config');
  const values: ConfigValues = {};
  let n = 0;
  for (const k of keys) {
    const v = p[k];
    if (isAbsent(v)) continue;
    if (!Object.hasOwn(CONFIG_KEYS, k)) return refuse('unknown-key', 'config');
    const key = k as ConfigKey;
    const value = configValue(v, CONFIG_KEYS[key]);
    if (value === undefined) return refuse('bad-value', 'config', key);
    values[key] = value;
    n++;
  }
  if (n === 0) return refuse('empty-config', 'config');
  return { ok: true, action: { kind: 'config', values } };
}

function validateOrchModel(p: unknown): ActionResult {
  if (!isPlainObject(p)) return refuse('bad-params', 'orch_model');
  const provider = enumValue(p.provider, HOSTED_PROVIDERS);
  if (provider === undefined) return refuse('bad-provider', 'orch_model');
  // A cut model id names another model (or none): refuse rather than cap.
  const model = typeof p.model === 'string' ? p.model.trim() : '';
  if (model.length === 0 || utf8Length(model) > MODEL_CAP_BYTES || WHITESPACE.test(model) || hasControl(model)) {
    return refuse('bad-model', 'orch_model');
  }
  return { ok: true, action: { kind: 'orch_model', provider, model } };
}

function validateReboot(p: unknown): ActionResult {
  if (p !== true && !isPlainObject(p)) return refuse('bad-params', 'reboot');
  return { ok: true, action: { kind: 'reboot' } };
}

function validateTts(p: unknown): ActionResult {
  if (!isPlainObject(p)) return refuse('bad-params', 'tts');
  const text = typeof p.text === 'string' ? capBytes(p.text.trim(), TTS_CAP_BYTES) : '';
  if (text.length === 0) return refuse('empty-text', 'tts');
  return { ok: true, action: { kind: 'tts', text } };
}

const VALIDATORS: Record<ActionKind, (p: unknown) => ActionResult> = {
  led: validateLed,
  lights: validateLights,
  config: validateConfig,
  orch_model: validateOrchModel,
  reboot: validateReboot,
  tts: validateTts,
};

/** Validates one device[] element: exactly one action kind, with valid parameters. */
export function validateAction(raw: unknown): ActionResult {
  if (!isPlainObject(raw)) return refuse('not-object');
  if (isPlainObject(raw.config)) {
    for (const k of Object.keys(raw.config)) if (isProtectedConfigKey(k)) return refuse('protected-BLOCKED', 'config');
  }
  let kind: ActionKind | null = null;
  let count = 0;
  for (const k of Object.keys(raw)) {
    const v = raw[k];
    // Strict output sends every kind key; the unused ones are null (reboot: false).
    if (isAbsent(v) || (k === 'reboot' && v === false)) continue;
    if (!has(ACTION_KINDS, k)) return refuse('unknown-kind');
    kind = k as ActionKind;
    count++;
  }
  if (kind === null) return refuse('no-kind');
  if (count > 1) return refuse('several-kinds');
  return VALIDATORS[kind](raw[kind]);
}

export interface ValidatedActions {
  actions: DeviceAction[];
  refused: { index: number; reason: RefusalReason; kind?: ActionKind; key?: ConfigKey }[];
}

/** Validates every element of a turn's device[] in order. */
export function validateActions(items: readonly unknown[]): ValidatedActions {
  const out: ValidatedActions = { actions: [], refused: [] };
  items.forEach((item, index) => {
    const r = validateAction(item);
    if (r.ok) out.actions.push(r.action);
    else out.refused.push({ index, reason: r.reason, ...(r.kind ? { kind: r.kind } : {}), ...(r.key ? { key: r.key } : {}) });
  });
  return out;
}
