// One memory as the store's files keep it since the content moved out of RAM
// (format 2): a binary part a boot reads without parsing any JSON (the
// fields every search needs, the term list and the vector), then the content
// and the rare fields as JSON, which are read from the card only for the
// memories a search returns. Little-endian:
//
//   0  u8  op (OP_RECORD)        1 u8 flags (creator 1, permanent 2, pinned 4)
//   2  u16 namespace bytes (n)   4 u32 id high     8 u32 id low
//   12 f32 importance            16 i32 ttl hours  20 f64 created  28 f64 updated
//   36 u16 content bytes         38 u16 words (BM25 length)
//   40 u16 terms (t)             42 u16 dims (d)   44 u32 JSON bytes (j)
//   48 namespace (n bytes of UTF-8), padded to 4
//      terms (t x u32: hash | count), vector (d x i8), JSON (j bytes:
//      {"c": content, "s"?: source, "m"?: metadata, "aa"?: archived at, "w"?: why})

import { stringify } from '../util/json.ts';
import { decode, encode } from '../util/utf8.ts';
import type { MemRecord } from './record.ts';

export const OP_RECORD = 6;
const HEAD = 48;
const CREATOR = 1;
const PERMANENT = 2;
const PINNED = 4;

/** The fields of a record a search needs (everything but the content and the rare fields). */
export interface RecordHot {
  idHi: number;
  idLo: number;
  ns: string;
  importance: number;
  ttlHours: number;
  createdAt: number;
  updatedAt: number;
  creator: boolean;
  permanent: boolean;
  pinned: boolean;
  bytes: number;
  words: number;
}

/** The fields read from the card for the memories shown. */
export interface RecordCold {
  content: string;
  source: string;
  metadata: Record<string, unknown> | null;
  archivedAt?: number;
  why?: string;
}

/** A decoded record: hot fields, views of its terms and vector in the payload, where its JSON lies in the payload. */
export interface DecodedRecord {
  hot: RecordHot;
  terms: Uint32Array;
  vec: Int8Array;
  coldAt: number;
  coldLength: number;
}

/** A memory id (16 hex digits) as two 32-bit halves. */
export function idHalves(id: string): [number, number] {
  return [parseInt(id.slice(0, 8), 16) >>> 0, parseInt(id.slice(8, 16), 16) >>> 0];
}

function hex8(n: number): string {
  const s = (n >>> 0).toString(16);
  return '00000000'.slice(s.length) + s;
}

export function idOf(hi: number, lo: number): string {
  return hex8(hi) + hex8(lo);
}

export function coldJson(r: Pick<MemRecord, 'content' | 'source' | 'metadata' | 'archivedAt' | 'why'>): Uint8Array {
  const o: Record<string, unknown> = { c: r.content };
  if (r.source !== 'self') o['s'] = r.source;
  if (r.metadata) o['m'] = r.metadata;
  if (r.archivedAt !== undefined) o['aa'] = r.archivedAt;
  if (r.why) o['w'] = r.why;
  return encode(stringify(o));
}

/** The record's payload; `cold` is its JSON (coldJson), given when already at hand. */
export function encodeRecord(r: MemRecord, vec: Int8Array, terms: Uint32Array, words: number, cold: Uint8Array = coldJson(r)): Uint8Array {
  const ns = encode(r.ns);
  const nsPad = (ns.length + 3) & ~3;
  const out = new Uint8Array(HEAD + nsPad + terms.length * 4 + vec.length + cold.length);
  const dv = new DataView(out.buffer);
  const [hi, lo] = idHalves(r.id);
  out[0] = OP_RECORD;
  out[1] = (r.creator ? CREATOR : 0) | (r.permanent ? PERMANENT : 0) | (r.pinned ? PINNED : 0);
  dv.setUint16(2, ns.length, true);
  dv.setUint32(4, hi, true);
  dv.setUint32(8, lo, true);
  dv.setFloat32(12, r.importance, true);
  dv.setInt32(16, r.ttlHours, true);
  dv.setFloat64(20, r.createdAt, true);
  dv.setFloat64(28, r.updatedAt, true);
  dv.setUint16(36, Math.min(0xffff, r.bytes), true);
  dv.setUint16(38, Math.min(0xffff, words), true);
  dv.setUint16(40, terms.length, true);
  dv.setUint16(42, vec.length, true);
  dv.setUint32(44, cold.length, true);
  out.set(ns, HEAD);
  let at = HEAD + nsPad;
  for (let i = 0; i < terms.length; i++, at += 4) dv.setUint32(at, terms[i]!, true);
  out.set(new Uint8Array(vec.buffer, vec.byteOffset, vec.length), at);
  out.set(cold, at + vec.length);
  return out;
}

/** Reads a record payload (null when it is not one, or damaged); terms and vector are copies. */
export function decodeRecord(p: Uint8Array): DecodedRecord | null {
  if (p.length < HEAD || p[0] !== OP_RECORD) return null;
  const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
  const nsLen = dv.getUint16(2, true);
  const nTerms = dv.getUint16(40, true);
  const dims = dv.getUint16(42, true);
  const coldLength = dv.getUint32(44, true);
  const termsAt = HEAD + ((nsLen + 3) & ~3);
  const vecAt = termsAt + nTerms * 4;
  const coldAt = vecAt + dims;
  if (coldAt + coldLength !== p.length) return null;
  const terms = new Uint32Array(nTerms);
  for (let i = 0; i < nTerms; i++) terms[i] = dv.getUint32(termsAt + i * 4, true);
  const flags = p[1]!;
  return {
    hot: {
      idHi: dv.getUint32(4, true),
      idLo: dv.getUint32(8, true),
      ns: nsLen ? decode(p, HEAD, HEAD + nsLen) : '',
      importance: dv.getFloat32(12, true),
      ttlHours: dv.getInt32(16, true),
      createdAt: dv.getFloat64(20, true),
      updatedAt: dv.getFloat64(28, true),
      creator: (flags & CREATOR) !== 0,
      permanent: (flags & PERMANENT) !== 0,
      pinned: (flags & PINNED) !== 0,
      bytes: dv.getUint16(36, true),
      words: dv.getUint16(38, true),
    },
    terms,
    vec: new Int8Array(p.slice(vecAt, coldAt).buffer),
    coldAt,
    coldLength,
  };
}

/** The JSON part of a record (from decodeRecord's coldAt/coldLength); null when it does not parse. */
export function decodeCold(bytes: Uint8Array): RecordCold | null {
  let o: unknown;
  try {
    o = JSON.parse(decode(bytes));
  } catch {
    return null;
  }
  if (!o || typeof o !== 'object' || typeof (o as Record<string, unknown>)['c'] !== 'string') return null;
  const j = o as Record<string, unknown>;
  const cold: RecordCold = {
    content: j['c'] as string,
    source: typeof j['s'] === 'string' ? j['s'] : 'self',
    metadata: j['m'] && typeof j['m'] === 'object' && !Array.isArray(j['m']) ? (j['m'] as Record<string, unknown>) : null,
  };
  if (typeof j['aa'] === 'number') cold.archivedAt = j['aa'];
  if (typeof j['w'] === 'string') cold.why = j['w'];
  return cold;
}
