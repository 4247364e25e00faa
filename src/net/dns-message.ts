// DNS messages in their wire form (RFC 1035 4.1) for the mDNS responder
// (src/wifi/mdns-responder.ts): any message is parsed, compression pointers
// followed, every length checked; one that does not parse is dropped whole
// (RFC 6762 §18: such messages are silently ignored). Messages are built
// with names compressed (RFC 1035 4.1.4; RFC 6762 §18.14, also inside PTR,
// SRV and NSEC data, as §6.1's two-byte NSEC next name expects).
//
// Record data is kept in its uncompressed wire form, so records compare byte
// for byte: known answers (§7.1), conflicts (§9) and probe tiebreaking, which
// compares "the raw uncompressed rdata" (§8.2).

import { decode, encode } from '../util/utf8.ts';

export const TYPE_A = 1;
export const TYPE_PTR = 12;
export const TYPE_TXT = 16;
export const TYPE_AAAA = 28;
export const TYPE_SRV = 33;
export const TYPE_NSEC = 47;
export const TYPE_ANY = 255;
export const CLASS_IN = 1;
export const CLASS_ANY = 255;
/** The top bit of a question's class asks for a unicast answer (QU, RFC 6762 §5.4); of a record's class, cache flush (§10.2). */
const TOP_BIT = 0x8000;
export const FLAG_QR = 0x8000;
export const FLAG_AA = 0x0400;
export const FLAG_TC = 0x0200;

const TYPE_NS = 2;
const TYPE_CNAME = 5;
const MAX_NAME_OCTETS = 255;
const MAX_LABEL = 63;
/** Compression pointers a name may follow before it is taken for a loop. */
const MAX_JUMPS = 32;
const MAX_POINTER_TARGET = 0x3fff;

export interface DnsQuestion {
  /** Labels joined by '.' (a '.' or '\' inside a label is escaped with '\'). */
  name: string;
  type: number;
  /** The class without its top bit. */
  cls: number;
  /** QU: the top bit of the class. */
  unicast: boolean;
}

export interface DnsRecord {
  name: string;
  type: number;
  /** The class without its top bit. */
  cls: number;
  /** The cache-flush bit: the top bit of the class. */
  flush: boolean;
  ttl: number;
  /** The record's data, names in it uncompressed. */
  rdata: Uint8Array;
}

export interface DnsMessage {
  id: number;
  flags: number;
  questions: DnsQuestion[];
  answers: DnsRecord[];
  authorities: DnsRecord[];
  additionals: DnsRecord[];
}

/** The labels of a name written with '.' between labels and '\' escapes. */
export function labelsOf(name: string): string[] {
  const out: string[] = [];
  let label = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '\\' && i + 1 < name.length) label += name[++i]!;
    else if (c === '.') {
      out.push(label);
      label = '';
    } else label += c;
  }
  if (label || out.length) out.push(label);
  return out.filter((l) => l.length > 0);
}

function escapeLabel(label: string): string {
  let out = '';
  for (let i = 0; i < label.length; i++) {
    const c = label[i]!;
    out += c === '.' || c === '\\' ? `\\${c}` : c;
  }
  return out;
}

/** A name from its labels. */
export function joinLabels(labels: readonly string[]): string {
  return labels.map(escapeLabel).join('.');
}

/** ASCII letters in lower case: mDNS names compare case-insensitively in ASCII only (RFC 6762 §16). */
export function lowerAscii(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : s[i]!;
  }
  return out;
}

export function sameName(a: string, b: string): boolean {
  return a.length === b.length && lowerAscii(a) === lowerAscii(b);
}

/** Two names in uncompressed wire form, compared as names (ASCII case aside; length octets are under 64, never letters). */
export function sameWireName(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y && (x | 0x20) !== (y | 0x20)) return false;
    if (x !== y && ((x | 0x20) < 97 || (x | 0x20) > 122)) return false;
  }
  return true;
}

/** A name in uncompressed wire form; throws on a label over 63 bytes or a name over 255. */
export function wireName(name: string): Uint8Array {
  const parts: number[] = [];
  for (const label of labelsOf(name)) {
    const bytes = encode(label);
    if (bytes.length > MAX_LABEL) throw new RangeError(`the label "${label}" is over ${MAX_LABEL} bytes`);
    parts.push(bytes.length);
    for (let i = 0; i < bytes.length; i++) parts.push(bytes[i]!);
  }
  parts.push(0);
  if (parts.length > MAX_NAME_OCTETS) throw new RangeError(`the name ${name} is over ${MAX_NAME_OCTETS} bytes`);
  return Uint8Array.from(parts);
}

/** Reads a name at `at` (pointers followed): its labels and where it ends in place, or null. */
function readName(b: Uint8Array, at: number): { labels: string[]; end: number } | null {
  const labels: string[] = [];
  let end = -1;
  let jumps = 0;
  let octets = 1;
  for (;;) {
    if (at >= b.length) return null;
    const len = b[at]!;
    if ((len & 0xc0) === 0xc0) {
      if (at + 1 >= b.length || ++jumps > MAX_JUMPS) return null;
      if (end < 0) end = at + 2;
      at = ((len & 0x3f) << 8) | b[at + 1]!;
      continue;
    }
    // 0x40 and 0x80: label types no one uses (RFC 6891 9).
    if (len & 0xc0) return null;
    at++;
    if (len === 0) return { labels, end: end < 0 ? at : end };
    octets += len + 1;
    if (octets > MAX_NAME_OCTETS || at + len > b.length) return null;
    labels.push(decode(b, at, at + len));
    at += len;
  }
}

function u16(b: Uint8Array, at: number): number {
  return (b[at]! << 8) | b[at + 1]!;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Record data with the names in it written out (PTR, NS, CNAME, SRV, NSEC); null when it does not parse. */
function readRdata(b: Uint8Array, type: number, at: number, len: number): Uint8Array | null {
  const end = at + len;
  const nameAt = (from: number): { wire: Uint8Array; end: number } | null => {
    const n = readName(b, from);
    return n && n.end <= end ? { wire: wireName(joinLabels(n.labels)), end: n.end } : null;
  };
  if (type === TYPE_PTR || type === TYPE_NS || type === TYPE_CNAME) {
    const n = nameAt(at);
    return n && n.end === end ? n.wire : null;
  }
  if (type === TYPE_SRV) {
    if (len < 7) return null;
    const n = nameAt(at + 6);
    return n && n.end === end ? concat(b.slice(at, at + 6), n.wire) : null;
  }
  if (type === TYPE_NSEC) {
    const n = nameAt(at);
    return n ? concat(n.wire, b.slice(n.end, end)) : null;
  }
  return b.slice(at, end);
}

/** Parses a message; null when any part of it does not parse. */
export function decodeMessage(b: Uint8Array): DnsMessage | null {
  if (b.length < 12) return null;
  const counts = [u16(b, 4), u16(b, 6), u16(b, 8), u16(b, 10)] as const;
  let at = 12;
  const questions: DnsQuestion[] = [];
  try {
    for (let i = 0; i < counts[0]; i++) {
      const n = readName(b, at);
      if (!n || n.end + 4 > b.length) return null;
      const cls = u16(b, n.end + 2);
      questions.push({ name: joinLabels(n.labels), type: u16(b, n.end), cls: cls & ~TOP_BIT, unicast: (cls & TOP_BIT) !== 0 });
      at = n.end + 4;
    }
    const sections: DnsRecord[][] = [[], [], []];
    for (let s = 0; s < 3; s++) {
      for (let i = 0; i < counts[s + 1]!; i++) {
        const n = readName(b, at);
        if (!n || n.end + 10 > b.length) return null;
        const type = u16(b, n.end);
        const cls = u16(b, n.end + 2);
        const ttl = ((b[n.end + 4]! << 24) >>> 0) + (b[n.end + 5]! << 16) + (b[n.end + 6]! << 8) + b[n.end + 7]!;
        const len = u16(b, n.end + 8);
        const dataAt = n.end + 10;
        if (dataAt + len > b.length) return null;
        const rdata = readRdata(b, type, dataAt, len);
        if (!rdata) return null;
        sections[s]!.push({ name: joinLabels(n.labels), type, cls: cls & ~TOP_BIT, flush: (cls & TOP_BIT) !== 0, ttl, rdata });
        at = dataAt + len;
      }
    }
    return { id: u16(b, 0), flags: u16(b, 2), questions, answers: sections[0]!, authorities: sections[1]!, additionals: sections[2]! };
  } catch {
    // a name in record data over 63 bytes a label or 255 in all
    return null;
  }
}

/** Builds messages, compressing each name against the names already written. */
class Writer {
  private out: number[] = [];
  private names = new Map<string, number>();

  bytes(): Uint8Array {
    return Uint8Array.from(this.out);
  }
  u16(n: number): void {
    this.out.push((n >> 8) & 0xff, n & 0xff);
  }
  u32(n: number): void {
    this.u16(Math.floor(n / 0x10000) & 0xffff);
    this.u16(n & 0xffff);
  }
  raw(b: Uint8Array): void {
    for (let i = 0; i < b.length; i++) this.out.push(b[i]!);
  }
  name(labels: readonly string[]): void {
    for (let i = 0; i < labels.length; i++) {
      const key = lowerAscii(joinLabels(labels.slice(i)));
      const at = this.names.get(key);
      if (at !== undefined) return this.u16(0xc000 | at);
      if (this.out.length <= MAX_POINTER_TARGET) this.names.set(key, this.out.length);
      const bytes = encode(labels[i]!);
      this.out.push(bytes.length);
      this.raw(bytes);
    }
    this.out.push(0);
  }
  /** Record data, its names compressed. */
  rdata(r: DnsRecord): void {
    const lengthAt = this.out.length;
    this.u16(0);
    const d = r.rdata;
    const named = r.type === TYPE_PTR || r.type === TYPE_NS || r.type === TYPE_CNAME || r.type === TYPE_NSEC;
    if (named || r.type === TYPE_SRV) {
      const from = r.type === TYPE_SRV ? 6 : 0;
      const n = readName(d, from);
      if (!n) throw new RangeError(`record data of ${r.name} does not hold a name`);
      if (from) this.raw(d.subarray(0, from));
      this.name(n.labels);
      this.raw(d.subarray(n.end));
    } else this.raw(d);
    const len = this.out.length - lengthAt - 2;
    this.out[lengthAt] = (len >> 8) & 0xff;
    this.out[lengthAt + 1] = len & 0xff;
  }
  record(r: DnsRecord): void {
    this.name(labelsOf(r.name));
    this.u16(r.type);
    this.u16(r.cls | (r.flush ? TOP_BIT : 0));
    this.u32(r.ttl);
    this.rdata(r);
  }
}

/** The message in wire form. */
export function encodeMessage(m: DnsMessage): Uint8Array {
  const w = new Writer();
  w.u16(m.id);
  w.u16(m.flags);
  for (const n of [m.questions.length, m.answers.length, m.authorities.length, m.additionals.length]) w.u16(n);
  for (const q of m.questions) {
    w.name(labelsOf(q.name));
    w.u16(q.type);
    w.u16(q.cls | (q.unicast ? TOP_BIT : 0));
  }
  for (const r of [...m.answers, ...m.authorities, ...m.additionals]) w.record(r);
  return w.bytes();
}

/** Same name, type, class and data (TTL and cache flush aside). */
export function sameRecord(a: DnsRecord, b: DnsRecord): boolean {
  return a.type === b.type && a.cls === b.cls && sameName(a.name, b.name) && compareBytes(a.rdata, b.rdata) === 0;
}

/** Byte-wise order; a longer run of equal bytes is later (RFC 6762 §8.2). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * RFC 6762 §8.2's order of records for tiebreaking: class (without the
 * cache-flush bit), then type, then the uncompressed record data as bytes.
 */
export function compareForTiebreak(a: DnsRecord, b: DnsRecord): number {
  if (a.cls !== b.cls) return a.cls - b.cls;
  if (a.type !== b.type) return a.type - b.type;
  return compareBytes(a.rdata, b.rdata);
}

/** A TXT record's data: one string a pair (RFC 6763 §6.1: a single empty string when there is none). */
export function txtRdata(pairs: ReadonlyArray<readonly [string, string]>): Uint8Array {
  const parts: number[] = [];
  for (const [k, v] of pairs) {
    const bytes = encode(`${k}=${v}`);
    if (bytes.length > 255) throw new RangeError(`the TXT string ${k} is over 255 bytes`);
    parts.push(bytes.length);
    for (let i = 0; i < bytes.length; i++) parts.push(bytes[i]!);
  }
  if (!parts.length) parts.push(0);
  return Uint8Array.from(parts);
}

export function srvRdata(port: number, target: string): Uint8Array {
  return concat(Uint8Array.of(0, 0, 0, 0, (port >> 8) & 0xff, port & 0xff), wireName(target));
}

/**
 * RFC 6762 §6.1's restricted NSEC: the next name is the record's own, one
 * bitmap block (number 0) naming the types that do exist.
 */
export function nsecRdata(name: string, types: readonly number[]): Uint8Array {
  const top = Math.max(...types);
  if (top > 255) throw new RangeError('the restricted NSEC names types up to 255');
  const map = new Uint8Array((top >> 3) + 1);
  for (const t of types) map[t >> 3]! |= 0x80 >> (t & 7);
  return concat(concat(wireName(name), Uint8Array.of(0, map.length)), map);
}
