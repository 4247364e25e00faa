// FRAME, protocol version 1 (docs/notifier-protocol.md): what a bonded
// central writes to change the ring and the screen. Parsed whole before
// anything is applied, so a bad frame is refused without changing anything.
//
//   0  u8     version (1)
//   1  u8     flags (0; every bit reserved)
//   2  u32le  seq: the central's sequence number, echoed in STATUS once applied
//   6  records, back to back: u8 type, u16le length L, L bytes of body
//
// Records (each type at most once; applied in the order written):
//   0x01 LED     mode u8 (0 off, 1 solid, 2 spinner, 3 pulse, 4 flash,
//                5 rainbow), r, g, b u8 [, brightness u8]: 4 or 5 bytes;
//                without brightness the ring keeps the brightness it had
//   0x02 ANIM    animation u8 (0 boot, 1 thinking, 2 listening, 3 success,
//                4 error) [, hold u16le ms, 0 = until the ring changes]: 1 or
//                3 bytes; without hold the attnHoldMs setting applies
//   0x03 NOTICE  hold u16le s (0 = until tapped, replaced or cleared),
//                title length u8 (1-48), title, body (0-400 bytes): UTF-8,
//                no control characters (the body may have line feeds)
//   0x04 CLEAR   (empty) clears the notice; not with NOTICE
//   0x05 WAKE    (empty) wakes the screen

import type { AnimId } from '../device/index.ts';
import type { Rgb } from '../contracts/index.ts';
import type { LedMode } from '../contracts/index.ts';
import { decode, isWellFormedUtf8 } from '../util/utf8.ts';
import { MAX_VALUE_BYTES, PROTOCOL_VERSION, refuse, RESULT, type Refusal } from './protocol.ts';

export const FRAME_HEADER_BYTES = 6;
export const RECORD_HEADER_BYTES = 3;
export const TITLE_MAX_BYTES = 48;
export const BODY_MAX_BYTES = 400;

export const RECORD = { led: 0x01, anim: 0x02, notice: 0x03, clear: 0x04, wake: 0x05 } as const;
/** LED record mode byte to the led layer's mode. */
export const LED_MODE_CODES: ReadonlyArray<LedMode | 'off'> = ['off', 'solid', 'spinner', 'pulse', 'flash', 'rainbow'];
export const ANIM_COUNT = 5;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f]/;

export type FrameRecord =
  | { kind: 'led'; mode: LedMode | 'off'; color: Rgb; brightness: number | null }
  | { kind: 'anim'; anim: AnimId; holdMs: number | null }
  | { kind: 'notice'; holdS: number; title: string; body: string }
  | { kind: 'clear' }
  | { kind: 'wake' };

export interface Frame {
  seq: number;
  records: FrameRecord[];
}

export type FrameResult = { ok: true; frame: Frame } | Refusal;

/** The text of bytes[start, end), or null when it is not well-formed UTF-8 or has a control character it may not. */
function text(bytes: Uint8Array, start: number, end: number, allowLf: boolean): string | null {
  if (!isWellFormedUtf8(bytes, start, end)) return null;
  const s = decode(bytes, start, end);
  return (allowLf ? CONTROL_BUT_LF : CONTROL).test(s) ? null : s;
}

function parseRecord(type: number, body: Uint8Array, at: number): FrameRecord | Refusal {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  switch (type) {
    case RECORD.led: {
      if (body.length !== 4 && body.length !== 5) return refuse(RESULT.badValue, `LED record at byte ${at}: 4 or 5 bytes, not ${body.length}`);
      const mode = LED_MODE_CODES[body[0]!];
      if (mode === undefined) return refuse(RESULT.badValue, `LED record at byte ${at}: mode ${body[0]} (0-${LED_MODE_CODES.length - 1})`);
      return { kind: 'led', mode, color: { r: body[1]!, g: body[2]!, b: body[3]! }, brightness: body.length === 5 ? body[4]! : null };
    }
    case RECORD.anim: {
      if (body.length !== 1 && body.length !== 3) return refuse(RESULT.badValue, `ANIM record at byte ${at}: 1 or 3 bytes, not ${body.length}`);
      if (body[0]! >= ANIM_COUNT) return refuse(RESULT.badValue, `ANIM record at byte ${at}: animation ${body[0]} (0-${ANIM_COUNT - 1})`);
      return { kind: 'anim', anim: body[0] as AnimId, holdMs: body.length === 3 ? view.getUint16(1, true) : null };
    }
    case RECORD.notice: {
      if (body.length < 3) return refuse(RESULT.badValue, `NOTICE record at byte ${at}: at least 3 bytes`);
      const holdS = view.getUint16(0, true);
      const titleLen = body[2]!;
      if (titleLen < 1 || titleLen > TITLE_MAX_BYTES) return refuse(RESULT.badText, `NOTICE record at byte ${at}: the title is 1-${TITLE_MAX_BYTES} bytes, not ${titleLen}`);
      if (3 + titleLen > body.length) return refuse(RESULT.truncated, `NOTICE record at byte ${at}: the title runs past the record`);
      if (body.length - 3 - titleLen > BODY_MAX_BYTES) return refuse(RESULT.badText, `NOTICE record at byte ${at}: the body is at most ${BODY_MAX_BYTES} bytes`);
      const title = text(body, 3, 3 + titleLen, false);
      if (title === null) return refuse(RESULT.badText, `NOTICE record at byte ${at}: the title is not well-formed UTF-8 without control characters`);
      const bodyText = text(body, 3 + titleLen, body.length, true);
      if (bodyText === null) return refuse(RESULT.badText, `NOTICE record at byte ${at}: the body is not well-formed UTF-8 without control characters`);
      return { kind: 'notice', holdS, title, body: bodyText };
    }
    case RECORD.clear:
    case RECORD.wake:
      if (body.length !== 0) return refuse(RESULT.badValue, `${type === RECORD.clear ? 'CLEAR' : 'WAKE'} record at byte ${at}: no body`);
      return { kind: type === RECORD.clear ? 'clear' : 'wake' };
    default:
      return refuse(RESULT.unknownRecord, `record type 0x${type.toString(16).padStart(2, '0')} at byte ${at} is not in protocol version ${PROTOCOL_VERSION}`);
  }
}

/** Parses a whole FRAME value; any fault refuses all of it. */
export function parseFrame(bytes: Uint8Array): FrameResult {
  if (bytes.length < FRAME_HEADER_BYTES) return refuse(RESULT.badLength, `a frame has a ${FRAME_HEADER_BYTES}-byte header; this one is ${bytes.length} bytes`);
  if (bytes.length > MAX_VALUE_BYTES) return refuse(RESULT.badLength, `a frame is at most ${MAX_VALUE_BYTES} bytes; this one is ${bytes.length}`);
  if (bytes[0] !== PROTOCOL_VERSION) return refuse(RESULT.badVersion, `protocol version ${bytes[0]}; this firmware speaks ${PROTOCOL_VERSION}`);
  if (bytes[1] !== 0) return refuse(RESULT.badFlags, `flags 0x${bytes[1]!.toString(16)}: every bit is reserved in version ${PROTOCOL_VERSION}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const seq = view.getUint32(2, true);
  const records: FrameRecord[] = [];
  const seen = new Set<number>();
  let at = FRAME_HEADER_BYTES;
  while (at < bytes.length) {
    if (at + RECORD_HEADER_BYTES > bytes.length) return refuse(RESULT.truncated, `the record header at byte ${at} runs past the end`);
    const type = bytes[at]!;
    const len = view.getUint16(at + 1, true);
    const start = at + RECORD_HEADER_BYTES;
    if (start + len > bytes.length) return refuse(RESULT.truncated, `the record at byte ${at} says ${len} bytes; ${bytes.length - start} are left`);
    if (seen.has(type)) return refuse(RESULT.duplicate, `record type 0x${type.toString(16).padStart(2, '0')} twice`);
    seen.add(type);
    const r = parseRecord(type, bytes.subarray(start, start + len), at);
    if ('ok' in r) return r;
    records.push(r);
    at = start + len;
  }
  if (seen.has(RECORD.notice) && seen.has(RECORD.clear)) return refuse(RESULT.conflict, 'a frame cannot both show and clear a notice');
  return { ok: true, frame: { seq, records } };
}

/** Builds a FRAME value (tests, the docs' examples, a central written in TypeScript). */
export function encodeFrame(seq: number, records: ReadonlyArray<{ type: number; body: Uint8Array }>): Uint8Array {
  const size = FRAME_HEADER_BYTES + records.reduce((n, r) => n + RECORD_HEADER_BYTES + r.body.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = PROTOCOL_VERSION;
  view.setUint32(2, seq >>> 0, true);
  let at = FRAME_HEADER_BYTES;
  for (const r of records) {
    out[at] = r.type;
    view.setUint16(at + 1, r.body.length, true);
    out.set(r.body, at + RECORD_HEADER_BYTES);
    at += RECORD_HEADER_BYTES + r.body.length;
  }
  return out;
}
