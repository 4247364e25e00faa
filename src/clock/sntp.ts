// SNTP packets (RFC 4330, with the checks of RFC 5905): the client request
// and the validation of a server's reply, as pure functions over bytes, so
// the same code runs on the device, the simulator and the unit tests.
//
// The request carries nothing but the version and mode, and a random 64-bit
// transmit timestamp (RFC 9109's advice: it leaks no clock and is a nonce an
// off-path forger must guess); the server echoes it as the originate
// timestamp, which is how a reply is matched to its request. The time is
// computed on the monotonic clock (T1 and T4), so a wrong wall clock cannot
// skew it: at T4 the time is T3 plus half the round trip less the server's
// own hold time.

/** Seconds from 1900-01-01 (NTP's era 0) to 1970-01-01. */
export const NTP_UNIX_OFFSET_S = 2208988800;
export const NTP_PORT = 123;
export const NTP_PACKET_BYTES = 48;
/** A reply that puts the clock before this (2025-01-01) is refused: no server answers with an older time by mistake. */
export const MIN_VALID_WALL_MS = 1735689600000;
/** RFC 4330 section 3: seconds with the top bit clear are era 1 (2036-2104), so the firmware keeps time past 2036. */
const ERA_1_PIVOT = 0x80000000;
const TWO_32 = 4294967296;

/** What the client remembers of a request it sent. */
export interface SntpRequest {
  /** The 48 bytes to send. */
  packet: Uint8Array;
  /** The transmit timestamp as sent (8 bytes): the reply must echo it. */
  nonce: Uint8Array;
  /** The monotonic ms when it was handed to the network (T1). */
  sentMono: number;
}

export type SntpResult =
  | { ok: true; wallMs: number; roundTripMs: number; stratum: number }
  /** Not an answer to this request (a stray or forged packet): keep waiting. */
  | { ok: false; kind: 'ignore'; reason: string }
  /** A Kiss-o'-Death (stratum 0): the server says stop (DENY, RSTR) or slow down (RATE). */
  | { ok: false; kind: 'kiss'; code: string; reason: string }
  /** An answer to this request that cannot be used (unsynchronized server, bad time). */
  | { ok: false; kind: 'bad'; reason: string };

/** A client request (version 4, mode 3) with a fresh random transmit timestamp. */
export function sntpRequest(random: (bytes: Uint8Array) => void, sentMono: number): SntpRequest {
  const packet = new Uint8Array(NTP_PACKET_BYTES);
  packet[0] = (4 << 3) | 3;
  const nonce = new Uint8Array(8);
  random(nonce);
  // A zero transmit timestamp is a malformed request: servers drop it.
  if (nonce.every((b) => b === 0)) nonce[7] = 1;
  packet.set(nonce, 40);
  return { packet, nonce, sentMono };
}

/** An NTP timestamp (seconds and fraction since 1900, era-corrected) as Unix ms. */
export function ntpToUnixMs(bytes: Uint8Array, at: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 8);
  let seconds = view.getUint32(0);
  if (seconds < ERA_1_PIVOT) seconds += TWO_32;
  return (seconds - NTP_UNIX_OFFSET_S) * 1000 + (view.getUint32(4) / TWO_32) * 1000;
}

/** Unix ms as an NTP timestamp written at `at` (the inverse of ntpToUnixMs, era 0 until 2036, then era 1). */
export function writeNtpTime(bytes: Uint8Array, at: number, unixMs: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 8);
  const whole = Math.floor(unixMs / 1000);
  view.setUint32(0, (whole + NTP_UNIX_OFFSET_S) % TWO_32);
  view.setUint32(4, Math.min(TWO_32 - 1, Math.floor(((unixMs - whole * 1000) / 1000) * TWO_32)));
}

function sameBytes(a: Uint8Array, at: number, b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (a[at + i] !== b[i]) return false;
  return true;
}

/** The kiss code of a stratum-0 reply: four ASCII capitals in the reference id (RFC 5905 7.4), else null. */
function kissCode(reply: Uint8Array): string | null {
  let code = '';
  for (let i = 12; i < 16; i++) {
    const c = reply[i]!;
    if (c < 0x41 || c > 0x5a) return null;
    code += String.fromCharCode(c);
  }
  return code;
}

/**
 * Checks a datagram against the request it may answer (RFC 4330 section 5)
 * and, when it is good, gives the wall-clock time at `receivedMono` (T4).
 */
export function readSntpReply(req: SntpRequest, reply: Uint8Array, receivedMono: number): SntpResult {
  if (reply.length < NTP_PACKET_BYTES) return { ok: false, kind: 'ignore', reason: `${reply.length} bytes, not an NTP packet` };
  const mode = reply[0]! & 7;
  const version = (reply[0]! >> 3) & 7;
  if (mode !== 4) return { ok: false, kind: 'ignore', reason: `mode ${mode}, not a server reply` };
  if (version < 1 || version > 4) return { ok: false, kind: 'ignore', reason: `version ${version}` };
  // The originate timestamp must be our nonce: anything else answers someone else (or is forged).
  if (!sameBytes(reply, 24, req.nonce)) return { ok: false, kind: 'ignore', reason: 'not an answer to this request' };
  const stratum = reply[1]!;
  if (stratum === 0) {
    const code = kissCode(reply);
    if (code !== null) return { ok: false, kind: 'kiss', code, reason: `the server sent a Kiss-o'-Death (${code})` };
    // chrony answers so while it has no source itself: leap indicator 3, stratum 0, no reference id.
    return { ok: false, kind: 'bad', reason: 'stratum 0: the server is not synchronized' };
  }
  if (stratum > 15) return { ok: false, kind: 'bad', reason: `stratum ${stratum}: the server is not synchronized` };
  if (reply[0]! >> 6 === 3) return { ok: false, kind: 'bad', reason: 'leap indicator 3: the server is not synchronized' };
  if (reply.subarray(40, 48).every((b) => b === 0)) return { ok: false, kind: 'bad', reason: 'no transmit timestamp' };
  const t2 = ntpToUnixMs(reply, 32);
  const t3 = ntpToUnixMs(reply, 40);
  const hold = t3 - t2;
  const elapsed = receivedMono - req.sentMono;
  // A second of slack either way: the server's and our clocks tick at their own grain.
  if (hold < -1000 || hold > elapsed + 1000) return { ok: false, kind: 'bad', reason: `the server's receive and transmit times disagree (${Math.round(hold)} ms held, ${Math.round(elapsed)} ms round trip)` };
  const roundTripMs = Math.max(0, elapsed - Math.max(0, hold));
  const wallMs = t3 + roundTripMs / 2;
  if (!(wallMs >= MIN_VALID_WALL_MS)) return { ok: false, kind: 'bad', reason: 'the time it gave is before 2025' };
  return { ok: true, wallMs, roundTripMs, stratum };
}
