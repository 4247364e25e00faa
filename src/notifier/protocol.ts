// The Notifier protocol's shared parts (docs/notifier-protocol.md): its
// version, the largest value a write may carry, and the result codes a
// refused FRAME or CONFIG write leaves in STATUS (the byte a central reads
// to learn why: a BLE stack cannot carry our reasons in its error answer).

import { replaceEachMatch } from '../util/replace.ts';

/** Protocol version 1: FRAME, CONFIG and STATUS layouts as documented. */
export const PROTOCOL_VERSION = 1;
/** ATT's largest attribute value: a FRAME or CONFIG write is at most this long. */
export const MAX_VALUE_BYTES = 512;

export const RESULT = {
  ok: 0,
  /** Shorter than its header, or longer than MAX_VALUE_BYTES. */
  badLength: 1,
  /** A protocol version this firmware does not speak. */
  badVersion: 2,
  /** Reserved flag bits set. */
  badFlags: 3,
  /** A record (or its length byte) runs past the end of the value. */
  truncated: 4,
  /** A record type (FRAME) or key (CONFIG) this version does not know. */
  unknownRecord: 5,
  /** The same record type or key twice in one write. */
  duplicate: 6,
  /** A value out of range or of the wrong length. */
  badValue: 7,
  /** Text that is not well-formed UTF-8, too long or empty, or has control characters. */
  badText: 8,
  /** Records that contradict each other (a notice and a clear). */
  conflict: 9,
  /** The link is not bonded and encrypted. */
  notBonded: 10,
  /** A CONFIG write with nothing in it. */
  empty: 11,
  /** The settings could not be saved (NVS); nothing changed. */
  storage: 12,
} as const;

export type ResultCode = (typeof RESULT)[keyof typeof RESULT];

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const CAPITAL = /([A-Z])/;
const NAMES: Record<number, string> = {};
for (const [name, code] of Object.entries(RESULT)) NAMES[code] = replaceEachMatch(name, CAPITAL, (c) => `-${c.toLowerCase()}`);

/** 'bad-length', 'unknown-record', ... for logs and the console. */
export function resultName(code: number): string {
  return NAMES[code] ?? `code-${code}`;
}

/** A refusal: the code STATUS reports, and a sentence for the console and the log. */
export interface Refusal {
  ok: false;
  code: ResultCode;
  reason: string;
}

export function refuse(code: ResultCode, reason: string): Refusal {
  return { ok: false, code, reason };
}
