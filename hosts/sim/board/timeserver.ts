// The simulated network's time server: an NTP server (RFC 5905 server mode,
// version of the request) on a UDP socket on 127.0.0.1 that answers every
// datagram the firmware sends to port 123 (the Udp service routes them here
// unless a test routes that address elsewhere). It serves the board's world
// time: real time plus every warp the board has sent, plus an offset a test
// may set; a test may also make it silent, send a Kiss-o'-Death, or claim to
// be unsynchronized (control op time.server).
//
// At least as strict as ntpd and chrony with what it answers: a datagram
// shorter than the 48-byte header, not in client mode (3), or of a version
// outside 1-4 is dropped without a word, as they drop it before answering
// (chrony: ntp_core.c's header and version checks ahead of
// NCR_ProcessRxUnknown); stricter, so is a request without a transmit
// timestamp (a client that sends none cannot match the answer).

import { createSocket, type Socket } from 'node:dgram';
import type { Json, Service } from './service.ts';

export type TimeServerMode = 'answer' | 'silent' | 'kod' | 'unsynced';
export const TIME_SERVER_MODES: readonly TimeServerMode[] = ['answer', 'silent', 'kod', 'unsynced'];

const NTP_UNIX_OFFSET_S = 2208988800;
const TWO_32 = 4294967296;

function writeTime(out: Uint8Array, at: number, unixMs: number): void {
  const view = new DataView(out.buffer, out.byteOffset + at, 8);
  const whole = Math.floor(unixMs / 1000);
  view.setUint32(0, (whole + NTP_UNIX_OFFSET_S) % TWO_32);
  view.setUint32(4, Math.min(TWO_32 - 1, Math.floor(((unixMs - whole * 1000) / 1000) * TWO_32)));
}

/**
 * The reply a server gives to `request` at `nowMs` (Unix ms), or null when
 * it drops the request. kod sends stratum 0 with `kissCode` as the reference
 * id; unsynced sends leap indicator 3 and stratum 16.
 */
export function ntpAnswer(request: Uint8Array, nowMs: number, mode: TimeServerMode = 'answer', kissCode = 'DENY'): Uint8Array | null {
  if (request.length < 48) return null;
  const version = (request[0]! >> 3) & 7;
  if ((request[0]! & 7) !== 3 || version < 1 || version > 4) return null;
  if (request.subarray(40, 48).every((b) => b === 0)) return null;
  if (mode === 'silent') return null;
  const out = new Uint8Array(48);
  const leap = mode === 'answer' ? 0 : 3;
  out[0] = (leap << 6) | (version << 3) | 4;
  out[1] = mode === 'kod' ? 0 : mode === 'unsynced' ? 16 : 2;
  out[2] = request[2]! || 6; // the client's poll, or 64 s
  out[3] = 0xec; // precision 2^-20 s
  const view = new DataView(out.buffer);
  view.setUint32(4, 0x00000200); // root delay ~8 ms
  view.setUint32(8, 0x00000400); // root dispersion ~16 ms
  if (mode === 'kod') for (let i = 0; i < 4; i++) out[12 + i] = kissCode.charCodeAt(i) & 0x7f;
  else out.set([127, 0, 0, 1], 12); // stratum 2: the upstream server's IPv4 address
  writeTime(out, 16, nowMs - 64_000);
  out.set(request.subarray(40, 48), 24); // originate = the client's transmit timestamp, bit for bit
  writeTime(out, 32, nowMs);
  writeTime(out, 40, nowMs);
  return out;
}

export class TimeServer implements Service {
  readonly ops = {};
  private socket: Socket | null = null;
  port: number | null = null;
  mode: TimeServerMode = 'answer';
  offsetMs = 0;
  kissCode = 'DENY';
  queries = 0;
  answers = 0;

  /** now: the board's world time (Unix ms). */
  constructor(private readonly now: () => number) {
    const socket = createSocket('udp4');
    socket.on('error', () => {});
    socket.on('message', (msg, rinfo) => {
      this.queries++;
      const reply = ntpAnswer(new Uint8Array(msg.buffer, msg.byteOffset, msg.length), this.now() + this.offsetMs, this.mode, this.kissCode);
      if (!reply) return;
      this.answers++;
      socket.send(reply, rinfo.port, rinfo.address, () => {});
    });
    socket.bind({ port: 0, address: '127.0.0.1' }, () => {
      this.port = socket.address().port;
    });
    this.socket = socket;
  }

  /** Control op time.server: any of mode, offsetMs, code (the kiss code, 4 letters). */
  set(args: Json): Json {
    if (args['mode'] !== undefined) {
      if (!TIME_SERVER_MODES.includes(args['mode'] as TimeServerMode)) throw new TypeError(`mode must be one of ${TIME_SERVER_MODES.join(', ')}`);
      this.mode = args['mode'] as TimeServerMode;
    }
    if (args['offsetMs'] !== undefined) {
      const v = args['offsetMs'];
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError('offsetMs must be a number');
      this.offsetMs = v;
    }
    if (args['code'] !== undefined) {
      const c = args['code'];
      if (typeof c !== 'string' || !/^[A-Z]{4}$/.test(c)) throw new TypeError('code must be four capital letters (DENY, RSTR, RATE)');
      this.kissCode = c;
    }
    return this.status();
  }

  status(): Json {
    return { port: this.port, mode: this.mode, offsetMs: this.offsetMs, code: this.kissCode, queries: this.queries, answers: this.answers };
  }

  shutdown(): void {
    this.socket?.close();
    this.socket = null;
  }
}
