// CONFIG, protocol version 1 (docs/notifier-protocol.md): the link's
// settings a bonded central reads and writes. They are the device's own
// config keys (NVS cfg, the same a config device action sets), so the web
// page, a turn and the phone see one value.
//
//   0  u8  version (1)
//   1  records, back to back: u8 key, u8 length L, L bytes of value
//
// Keys:
//   0x01 ledBrightness  u8, 0-255: the ring's brightness
//   0x02 attnHoldMs     u32le, 0-600000: how long an attention animation holds
//   0x03 sfxLvlN        u8, 0-100: the sound-effect level in Notifier mode
//   0x04 devName        UTF-8, 1-31 bytes, no control characters: the name the
//                       link advertises (from the next start of the link)
//
// A read answers every key with the value in force (devName: empty while
// unset). A write names one or more keys, each at most once; every value is
// checked before any is saved, and all are saved in one NVS write or none.

import { DEFAULT_SFX_LEVEL } from '../audio/index.ts';
import { DEFAULT_ATTN_HOLD_MS } from '../device/index.ts';
import { DEFAULT_LED_BRIGHTNESS } from '../device/index.ts';
import { encode, isWellFormedUtf8, decode } from '../util/utf8.ts';
import { MAX_VALUE_BYTES, PROTOCOL_VERSION, refuse, RESULT, type Refusal } from './protocol.ts';

export const CONFIG_KEY = { ledBrightness: 0x01, attnHoldMs: 0x02, sfxLvlN: 0x03, devName: 0x04 } as const;
export const ATTN_HOLD_MAX_MS = 600_000;
export const SFX_LEVEL_MAX = 100;
export const DEV_NAME_MAX_BYTES = 31;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface NotifierConfig {
  ledBrightness: number;
  attnHoldMs: number;
  sfxLvlN: number;
  devName: string;
}

export type ConfigChange = Partial<NotifierConfig>;
export type ConfigResult = { ok: true; change: ConfigChange } | Refusal;

/** The settings in force, with the defaults for unset keys. */
export function configInForce(read: (key: keyof NotifierConfig) => unknown): NotifierConfig {
  const int = (k: keyof NotifierConfig, fallback: number): number => {
    const v = read(k);
    return typeof v === 'number' ? v : fallback;
  };
  const name = read('devName');
  return {
    ledBrightness: int('ledBrightness', DEFAULT_LED_BRIGHTNESS),
    attnHoldMs: int('attnHoldMs', DEFAULT_ATTN_HOLD_MS),
    sfxLvlN: int('sfxLvlN', DEFAULT_SFX_LEVEL),
    devName: typeof name === 'string' ? name : '',
  };
}

/** The CONFIG value a read answers. */
export function encodeConfig(c: NotifierConfig): Uint8Array {
  const name = encode(c.devName);
  const out = new Uint8Array(1 + 3 + 6 + 3 + 2 + name.length);
  const view = new DataView(out.buffer);
  let at = 0;
  out[at++] = PROTOCOL_VERSION;
  out.set([CONFIG_KEY.ledBrightness, 1, c.ledBrightness & 0xff], at);
  at += 3;
  out.set([CONFIG_KEY.attnHoldMs, 4], at);
  view.setUint32(at + 2, c.attnHoldMs >>> 0, true);
  at += 6;
  out.set([CONFIG_KEY.sfxLvlN, 1, c.sfxLvlN & 0xff], at);
  at += 3;
  out.set([CONFIG_KEY.devName, name.length], at);
  out.set(name, at + 2);
  return out;
}

/** Parses a whole CONFIG write; any fault refuses all of it. */
export function parseConfigWrite(bytes: Uint8Array): ConfigResult {
  if (bytes.length < 1 || bytes.length > MAX_VALUE_BYTES) return refuse(RESULT.badLength, `a CONFIG write is 1-${MAX_VALUE_BYTES} bytes; this one is ${bytes.length}`);
  if (bytes[0] !== PROTOCOL_VERSION) return refuse(RESULT.badVersion, `protocol version ${bytes[0]}; this firmware speaks ${PROTOCOL_VERSION}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const change: ConfigChange = {};
  const seen = new Set<number>();
  let at = 1;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) return refuse(RESULT.truncated, `the record header at byte ${at} runs past the end`);
    const key = bytes[at]!;
    const len = bytes[at + 1]!;
    const start = at + 2;
    if (start + len > bytes.length) return refuse(RESULT.truncated, `the record at byte ${at} says ${len} bytes; ${bytes.length - start} are left`);
    if (seen.has(key)) return refuse(RESULT.duplicate, `key 0x${key.toString(16).padStart(2, '0')} twice`);
    seen.add(key);
    switch (key) {
      case CONFIG_KEY.ledBrightness:
        if (len !== 1) return refuse(RESULT.badValue, `ledBrightness is 1 byte, not ${len}`);
        change.ledBrightness = bytes[start]!;
        break;
      case CONFIG_KEY.attnHoldMs: {
        if (len !== 4) return refuse(RESULT.badValue, `attnHoldMs is 4 bytes, not ${len}`);
        const v = view.getUint32(start, true);
        if (v > ATTN_HOLD_MAX_MS) return refuse(RESULT.badValue, `attnHoldMs is 0-${ATTN_HOLD_MAX_MS}, not ${v}`);
        change.attnHoldMs = v;
        break;
      }
      case CONFIG_KEY.sfxLvlN:
        if (len !== 1) return refuse(RESULT.badValue, `sfxLvlN is 1 byte, not ${len}`);
        if (bytes[start]! > SFX_LEVEL_MAX) return refuse(RESULT.badValue, `sfxLvlN is 0-${SFX_LEVEL_MAX}, not ${bytes[start]}`);
        change.sfxLvlN = bytes[start]!;
        break;
      case CONFIG_KEY.devName: {
        if (len < 1 || len > DEV_NAME_MAX_BYTES) return refuse(RESULT.badText, `devName is 1-${DEV_NAME_MAX_BYTES} bytes, not ${len}`);
        if (!isWellFormedUtf8(bytes, start, start + len)) return refuse(RESULT.badText, 'devName is not well-formed UTF-8');
        const name = decode(bytes, start, start + len);
        if (CONTROL.test(name) || name.trim() !== name) return refuse(RESULT.badText, 'devName has control characters or spaces at its ends');
        change.devName = name;
        break;
      }
      default:
        return refuse(RESULT.unknownRecord, `key 0x${key.toString(16).padStart(2, '0')} is not in protocol version ${PROTOCOL_VERSION}`);
    }
    at = start + len;
  }
  if (seen.size === 0) return refuse(RESULT.empty, 'the write names no setting');
  return { ok: true, change };
}
