// One long-term memory as the store keeps it, and its compact form in the
// store's files: [u8 op][u32 json length][json][int8 vector]. The JSON uses
// short keys because 6000 of them are read at every boot.

import { encode, decode, utf8Length } from '../util/utf8.ts';
import { stringify } from '../util/json.ts';

export interface MemRecord {
  /** Deterministic content hash (namespace and content), 16 hex digits. */
  id: string;
  /** Whose memory: '' for the device owner, else the person's chat id. */
  ns: string;
  content: string;
  /** importance_score, 0-1. */
  importance: number;
  /** Hours to live from updatedAt; -1 for none. */
  ttlHours: number;
  /** Wall-clock ms of the first write. */
  createdAt: number;
  /** Wall-clock ms of the last write or duplicate bump: TTL and recency count from here. */
  updatedAt: number;
  source: string;
  /** Written at a person's direct request (a tool call, the web, the console), not the model's own turn. */
  creator: boolean;
  permanent: boolean;
  pinned: boolean;
  metadata: Record<string, unknown> | null;
  /** UTF-8 bytes of content (for quotas). */
  bytes: number;
  /** Archive only: when and why it left the working set. */
  archivedAt?: number;
  why?: string;
}

/** One change of a store: journaled (or kept for the card's return), then applied to its index (vector-store.ts commit). */
export type StoreChange = { put: MemRecord; vec: Int8Array; norm: number } | { del: string } | { flush: boolean };

export const OP_PUT = 1;
export const OP_DELETE = 2;
export const OP_FLUSH = 3;
export const OP_HEADER = 9;
/** Snapshot blocks: every record's JSON in one array, then every vector in one matrix, in the same order. */
export const OP_META = 4;
export const OP_MATRIX = 5;

export interface FileHeader {
  /** 1: records of JSON; 2: record-bin.ts. */
  v: number;
  gen: number;
  emb: { provider: string; model: string; dims: number };
}

function toJson(r: MemRecord): Record<string, unknown> {
  const o: Record<string, unknown> = { id: r.id, c: r.content, b: r.bytes, i: r.importance, t: r.ttlHours, ca: r.createdAt, ua: r.updatedAt, s: r.source };
  if (r.ns) o['n'] = r.ns;
  if (r.creator) o['cf'] = 1;
  if (r.permanent) o['p'] = 1;
  if (r.pinned) o['pin'] = 1;
  if (r.metadata) o['m'] = r.metadata;
  if (r.archivedAt !== undefined) o['aa'] = r.archivedAt;
  if (r.why) o['w'] = r.why;
  return o;
}

function fromJson(o: Record<string, unknown>, bytes: number): MemRecord | null {
  if (typeof o['id'] !== 'string' || typeof o['c'] !== 'string' || typeof o['i'] !== 'number' || typeof o['t'] !== 'number') return null;
  const r: MemRecord = {
    id: o['id'],
    ns: typeof o['n'] === 'string' ? o['n'] : '',
    content: o['c'],
    importance: o['i'],
    ttlHours: o['t'],
    createdAt: typeof o['ca'] === 'number' ? o['ca'] : 0,
    updatedAt: typeof o['ua'] === 'number' ? o['ua'] : typeof o['ca'] === 'number' ? o['ca'] : 0,
    source: typeof o['s'] === 'string' ? o['s'] : 'self',
    creator: o['cf'] === 1,
    permanent: o['p'] === 1,
    pinned: o['pin'] === 1,
    metadata: o['m'] && typeof o['m'] === 'object' && !Array.isArray(o['m']) ? (o['m'] as Record<string, unknown>) : null,
    bytes,
  };
  if (typeof o['aa'] === 'number') r.archivedAt = o['aa'];
  if (typeof o['w'] === 'string') r.why = o['w'];
  return r;
}

function pack(op: number, json: string, vec: Int8Array | null): Uint8Array {
  const j = encode(json);
  const out = new Uint8Array(5 + j.length + (vec ? vec.length : 0));
  out[0] = op;
  out[1] = j.length & 0xff;
  out[2] = (j.length >>> 8) & 0xff;
  out[3] = (j.length >>> 16) & 0xff;
  out[4] = (j.length >>> 24) & 0xff;
  out.set(j, 5);
  if (vec) out.set(new Uint8Array(vec.buffer, vec.byteOffset, vec.length), 5 + j.length);
  return out;
}

export function encodePut(r: MemRecord, vec: Int8Array): Uint8Array {
  return pack(OP_PUT, stringify(toJson(r)), vec);
}
export function encodeDelete(id: string): Uint8Array {
  return pack(OP_DELETE, stringify({ id }), null);
}
export function encodeFlush(keepPermanent: boolean): Uint8Array {
  return pack(OP_FLUSH, stringify({ keep: keepPermanent ? 1 : 0 }), null);
}
export function encodeHeader(h: FileHeader): Uint8Array {
  return pack(OP_HEADER, stringify(h), null);
}

/**
 * The pieces of a snapshot's record block: op byte, then the records' JSON
 * array (one decode and one JSON.parse at load instead of one per record).
 */
export function encodeMetaBlock(recs: MemRecord[]): Uint8Array[] {
  return [Uint8Array.of(OP_META), encode(`[${recs.map((r) => stringify(toJson(r))).join(',')}]`)];
}

/** Parses a record block's payload (after the op byte). */
export function decodeMetaBlock(p: Uint8Array): MemRecord[] | null {
  let arr: unknown;
  try {
    arr = JSON.parse(decode(p, 1, p.length));
  } catch {
    return null;
  }
  if (!Array.isArray(arr)) return null;
  const out: MemRecord[] = [];
  for (const o of arr) {
    if (!o || typeof o !== 'object') return null;
    const obj = o as Record<string, unknown>;
    const rec = fromJson(obj, typeof obj['b'] === 'number' ? obj['b'] : 0);
    if (!rec) return null;
    if (typeof obj['b'] !== 'number') rec.bytes = utf8Length(rec.content);
    out.push(rec);
  }
  return out;
}

export type Decoded =
  | { op: typeof OP_PUT; rec: MemRecord; vec: Int8Array }
  | { op: typeof OP_DELETE; id: string }
  | { op: typeof OP_FLUSH; keep: boolean }
  | { op: typeof OP_HEADER; header: FileHeader }
  | null;

/** Decodes one payload; vectors are copied out (the payload is a view into a read buffer). */
export function decodePayload(p: Uint8Array, dims: number): Decoded {
  if (p.length < 5) return null;
  const len = (p[1]! | (p[2]! << 8) | (p[3]! << 16) | (p[4]! << 24)) >>> 0;
  if (5 + len > p.length) return null;
  let o: unknown;
  try {
    o = JSON.parse(decode(p, 5, 5 + len));
  } catch {
    return null;
  }
  if (!o || typeof o !== 'object') return null;
  const obj = o as Record<string, unknown>;
  switch (p[0]) {
    case OP_PUT: {
      if (p.length !== 5 + len + dims) return null;
      const rec = fromJson(obj, typeof obj['b'] === 'number' ? obj['b'] : 0);
      if (!rec) return null;
      if (typeof obj['b'] !== 'number') rec.bytes = utf8Length(rec.content);
      return { op: OP_PUT, rec, vec: new Int8Array(p.slice(5 + len).buffer) };
    }
    case OP_DELETE:
      return typeof obj['id'] === 'string' ? { op: OP_DELETE, id: obj['id'] } : null;
    case OP_FLUSH:
      return { op: OP_FLUSH, keep: obj['keep'] === 1 };
    case OP_HEADER: {
      const emb = obj['emb'] as FileHeader['emb'] | undefined;
      if (typeof obj['gen'] !== 'number' || !emb || typeof emb.dims !== 'number') return null;
      return { op: OP_HEADER, header: { v: typeof obj['v'] === 'number' ? obj['v'] : 1, gen: obj['gen'], emb: { provider: String(emb.provider), model: String(emb.model), dims: emb.dims } } };
    }
    default:
      return null;
  }
}
