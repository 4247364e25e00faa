// The captive-portal DNS answer (RFC 1035 wire format), as a pure function
// over bytes: on the setup network every name is the device, so a phone
// that joins Device-setup sends its connectivity check to the device and
// shows the sign-in page by itself (src/wifi/captive.ts runs it).
//
// What is answered, and how (RFC 1035 4.1; RFC 9619 for QDCOUNT):
// - a query (QR 0, opcode QUERY) with one question, class IN or ANY:
//   type A or ANY gets one A record, the device's address, TTL 60 s; any
//   other type (AAAA, HTTPS, MX...) gets an empty NOERROR answer, so the
//   client falls back to the A record at once instead of timing out;
// - another class: REFUSED; another opcode: NOTIMP; no or several
//   questions, or a question that does not parse: FORMERR (header only);
// - dropped (no answer at all): anything under 12 bytes (no ID to answer)
//   and every response (QR 1), so two responders cannot ping-pong.
// The question is echoed byte for byte (a resolver's 0x20 case mixing
// survives); EDNS and the other sections of the query are ignored, and the
// answer carries none (RFC 6891 6.1.1: a responder without EDNS answers
// without OPT).

import { CLASS_ANY, CLASS_IN, TYPE_A, TYPE_ANY } from './dns-message.ts';

export const DNS_PORT = 53;
/** Short: after the handoff the phone forgets these answers within a minute. */
export const CAPTIVE_TTL_S = 60;

const RCODE_FORMERR = 1;
const RCODE_NOTIMP = 4;
const RCODE_REFUSED = 5;
const MAX_NAME_OCTETS = 255;

export type DnsOutcome = 'answered' | 'empty' | 'refused' | 'error' | 'dropped';

export interface DnsReply {
  /** The bytes to send back, or null to send nothing. */
  reply: Uint8Array | null;
  outcome: DnsOutcome;
  /** The name asked for, lower case, dot-separated ('' for the root); null when there was none. */
  name: string | null;
}

/** The four bytes of a dotted IPv4 address, or null. */
export function ipv4Bytes(address: string): Uint8Array | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!p.length || p.length > 3) return null;
    for (let j = 0; j < p.length; j++) if (p.charCodeAt(j) < 48 || p.charCodeAt(j) > 57) return null;
    const n = Number(p);
    if (n > 255) return null;
    out[i] = n;
  }
  return out;
}

/** Where the question's name ends (after its zero octet) and the name, or null when it does not parse. */
function readName(q: Uint8Array, at: number): { end: number; name: string } | null {
  let octets = 0;
  let name = '';
  for (;;) {
    if (at >= q.length) return null;
    const len = q[at]!;
    // 0xC0 a compression pointer, 0x40/0x80 reserved: nothing precedes the only question to point at.
    if (len & 0xc0) return null;
    octets += len + 1;
    if (octets > MAX_NAME_OCTETS) return null;
    at++;
    if (len === 0) return { end: at, name };
    if (at + len > q.length) return null;
    let label = '';
    for (let i = 0; i < len; i++) {
      const c = q[at + i]!;
      label += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c + 32 : c);
    }
    name += name ? `.${label}` : label;
    at += len;
  }
}

function header(q: Uint8Array, rcode: number, qd: number, an: number): Uint8Array {
  const h = new Uint8Array(12);
  h[0] = q[0]!;
  h[1] = q[1]!;
  // QR 1, the query's opcode, AA 1, TC 0, the query's RD; RA 1, Z/AD/CD 0, the rcode.
  h[2] = 0x80 | (q[2]! & 0x78) | 0x04 | (q[2]! & 0x01);
  h[3] = 0x80 | rcode;
  h[5] = qd;
  h[7] = an;
  return h;
}

function only(h: Uint8Array, outcome: DnsOutcome, name: string | null = null): DnsReply {
  return { reply: h, outcome, name };
}

/** The answer to one datagram on the setup network's DNS port, every name being `address`. */
export function captiveDnsAnswer(query: Uint8Array, address: Uint8Array): DnsReply {
  if (query.length < 12 || query[2]! & 0x80) return { reply: null, outcome: 'dropped', name: null };
  const opcode = (query[2]! >> 3) & 0x0f;
  if (opcode !== 0) return only(header(query, RCODE_NOTIMP, 0, 0), 'error');
  if (query[4] !== 0 || query[5] !== 1) return only(header(query, RCODE_FORMERR, 0, 0), 'error');
  const q = readName(query, 12);
  if (!q || q.end + 4 > query.length) return only(header(query, RCODE_FORMERR, 0, 0), 'error');
  const type = (query[q.end]! << 8) | query[q.end + 1]!;
  const klass = (query[q.end + 2]! << 8) | query[q.end + 3]!;
  const question = query.subarray(12, q.end + 4);
  const a = klass === CLASS_IN || klass === CLASS_ANY ? type === TYPE_A || type === TYPE_ANY : false;
  const rcode = klass === CLASS_IN || klass === CLASS_ANY ? 0 : RCODE_REFUSED;
  const out = new Uint8Array(12 + question.length + (a ? 16 : 0));
  out.set(header(query, rcode, 1, a ? 1 : 0));
  out.set(question, 12);
  if (a) {
    let at = 12 + question.length;
    // NAME: a pointer to the question's name at offset 12; TYPE A, CLASS IN, TTL, RDLENGTH 4, the address.
    out.set([0xc0, 0x0c, 0, TYPE_A, 0, CLASS_IN, (CAPTIVE_TTL_S >>> 24) & 0xff, (CAPTIVE_TTL_S >>> 16) & 0xff, (CAPTIVE_TTL_S >>> 8) & 0xff, CAPTIVE_TTL_S & 0xff, 0, 4], at);
    at += 12;
    out.set(address.subarray(0, 4), at);
  }
  return { reply: out, outcome: rcode ? 'refused' : a ? 'answered' : 'empty', name: q.name };
}
