// STATUS, protocol version 1 (docs/notifier-protocol.md): readable by any
// central, bonded or not (spec, Authentication 16), and notified after every
// FRAME or CONFIG write. It tells a central which protocol to speak, which
// firmware runs, and whether its last write was applied.
//
//   0   u8     protocol version (1)
//   1   u8     flags: bit 0 the reading link is bonded; bit 1 a notice shows
//              on the screen; bit 2 the board has an LED ring; bit 3 the
//              device keeps at least one bond
//   2   u32le  seq: the sequence number of the last frame applied (0: none since the link started)
//   6   u32le  frames applied since the link started (the sequence counter)
//   10  u8     the result of the last FRAME or CONFIG write (0 ok; protocol.ts RESULT)
//   11  u8     n, the firmware version's length (at most 31)
//   12  n      the firmware version, ASCII (vX.Y.Z)

import { encode } from '../util/utf8.ts';
import { PROTOCOL_VERSION } from './protocol.ts';

export const STATUS_FLAG = { bonded: 1, notice: 2, ring: 4, hasBonds: 8 } as const;
export const VERSION_MAX_BYTES = 31;

export interface StatusFields {
  bonded: boolean;
  notice: boolean;
  ring: boolean;
  hasBonds: boolean;
  seq: number;
  frames: number;
  last: number;
  firmware: string;
}

export function encodeStatus(s: StatusFields): Uint8Array {
  const version = encode(s.firmware).subarray(0, VERSION_MAX_BYTES);
  const out = new Uint8Array(12 + version.length);
  const view = new DataView(out.buffer);
  out[0] = PROTOCOL_VERSION;
  out[1] = (s.bonded ? STATUS_FLAG.bonded : 0) | (s.notice ? STATUS_FLAG.notice : 0) | (s.ring ? STATUS_FLAG.ring : 0) | (s.hasBonds ? STATUS_FLAG.hasBonds : 0);
  view.setUint32(2, s.seq >>> 0, true);
  view.setUint32(6, s.frames >>> 0, true);
  out[10] = s.last & 0xff;
  out[11] = version.length;
  out.set(version, 12);
  return out;
}

/** Reads a STATUS value back (tests and a central written in TypeScript); null when it is not version 1's layout. */
export function decodeStatus(bytes: Uint8Array): (StatusFields & { version: number }) | null {
  if (bytes.length < 12 || bytes[0] !== PROTOCOL_VERSION || bytes.length !== 12 + bytes[11]!) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let firmware = '';
  for (const b of bytes.subarray(12)) firmware += String.fromCharCode(b);
  return {
    version: bytes[0],
    bonded: (bytes[1]! & STATUS_FLAG.bonded) !== 0,
    notice: (bytes[1]! & STATUS_FLAG.notice) !== 0,
    ring: (bytes[1]! & STATUS_FLAG.ring) !== 0,
    hasBonds: (bytes[1]! & STATUS_FLAG.hasBonds) !== 0,
    seq: view.getUint32(2, true),
    frames: view.getUint32(6, true),
    last: bytes[10]!,
    firmware,
  };
}
