// The record framing of every memory file on the card: append-only records,
// each [u32 length][u32 checksum][payload][u32 length] (little-endian). The
// leading length lets a boot scan walk forward, the trailing one lets the
// episodic log read newest-first backwards, and the checksum (checksum.ts)
// tells a torn or damaged record from a whole one: a reader stops at the
// first record that does not check, so a torn tail is never read as data.

import type { SdCard } from '../hal/index.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { checksum32 } from './checksum.ts';

export const FRAME_OVERHEAD = 12;

function u32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

function put32(b: Uint8Array, at: number, v: number): void {
  b[at] = v & 0xff;
  b[at + 1] = (v >>> 8) & 0xff;
  b[at + 2] = (v >>> 16) & 0xff;
  b[at + 3] = (v >>> 24) & 0xff;
}

/** One record as written to the card. */
export function frame(sha: Sha256Api, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + FRAME_OVERHEAD);
  put32(out, 0, payload.length);
  put32(out, 4, checksum32(sha, payload));
  out.set(payload, 8);
  put32(out, 8 + payload.length, payload.length);
  return out;
}

/**
 * Writes one record whose payload is the concatenation of pieces, without
 * copying them into one buffer (a snapshot's matrix block is megabytes).
 */
export function writeFramePieces(sha: Sha256Api, file: { write(b: Uint8Array): void }, pieces: Uint8Array[]): number {
  let len = 0;
  const h = sha.create();
  for (const p of pieces) {
    len += p.length;
    h.update(p);
  }
  const d = h.digest();
  const head = new Uint8Array(8);
  put32(head, 0, len);
  put32(head, 4, (d[0]! | (d[1]! << 8) | (d[2]! << 16) | (d[3]! << 24)) >>> 0);
  const tail = new Uint8Array(4);
  put32(tail, 0, len);
  file.write(head);
  for (const p of pieces) file.write(p);
  file.write(tail);
  return len + FRAME_OVERHEAD;
}

/** Several records in one buffer, so a burst is one write and one sync. */
export function frames(sha: Sha256Api, payloads: Uint8Array[]): Uint8Array {
  const parts = payloads.map((p) => frame(sha, p));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export interface ReadOptions {
  sha: Sha256Api;
  /** Bytes per card read. */
  window: number;
  /** A length field above this is damage, not a record. */
  maxPayload: number;
}

export interface ForwardResult {
  /** Offset just after the last whole record. */
  end: number;
  /** Bytes after `end` that are not a whole record (a torn tail or damage). */
  torn: boolean;
  size: number;
}

/**
 * Walks a file's records from `from` to its end, handing each payload (a
 * view valid only during the call) to onFrame; onFrame returns false to stop.
 */
export function readForward(
  sd: SdCard,
  path: string,
  from: number,
  opts: ReadOptions,
  onFrame: (payload: Uint8Array, start: number, end: number) => boolean | void,
): ForwardResult {
  const st = sd.stat(path);
  const size = st && !st.isDir ? st.size : 0;
  let off = from;
  let buf: Uint8Array = new Uint8Array(0);
  let bufAt = 0;
  while (off < size) {
    if (size - off < FRAME_OVERHEAD) return { end: off, torn: true, size };
    let local = off - bufAt;
    if (local < 0 || local + 8 > buf.length) {
      buf = sd.read(path, off, Math.min(opts.window, size - off));
      bufAt = off;
      local = 0;
    }
    const len = u32(buf, local);
    const total = len + FRAME_OVERHEAD;
    if (len > opts.maxPayload || off + total > size) return { end: off, torn: true, size };
    if (local + total > buf.length) {
      buf = sd.read(path, off, Math.min(Math.max(opts.window, total), size - off));
      bufAt = off;
      local = 0;
    }
    const payload = buf.subarray(local + 8, local + 8 + len);
    if (u32(buf, local + 8 + len) !== len || u32(buf, local + 4) !== checksum32(opts.sha, payload)) return { end: off, torn: true, size };
    const keepGoing = onFrame(payload, off, off + total);
    off += total;
    if (keepGoing === false) return { end: off, torn: false, size };
  }
  return { end: off, torn: false, size };
}

export interface BackwardResult {
  /** Start offset of the oldest record handed over (everything before it is unread). */
  stop: number;
  /** A record before `stop` does not check: the walk cannot go further back. */
  damaged: boolean;
  bytesRead: number;
}

/**
 * Walks a file's records backwards from `end` (newest first) until onFrame
 * returns false, `budget` bytes have been read, or the file's start.
 */
export function readBackward(
  sd: SdCard,
  path: string,
  end: number,
  budget: number,
  opts: ReadOptions,
  onFrame: (payload: Uint8Array, start: number, end: number) => boolean | void,
): BackwardResult {
  let pos = end;
  let buf: Uint8Array = new Uint8Array(0);
  let bufAt = 0;
  let bytesRead = 0;
  const load = (frameEnd: number, length: number): void => {
    const from = Math.max(0, frameEnd - length);
    buf = sd.read(path, from, frameEnd - from);
    bufAt = from;
    bytesRead += buf.length;
  };
  while (pos > 0) {
    if (bytesRead >= budget) return { stop: pos, damaged: false, bytesRead };
    if (pos < FRAME_OVERHEAD) return { stop: pos, damaged: true, bytesRead };
    if (pos - bufAt < 4 || pos > bufAt + buf.length) load(pos, opts.window);
    const len = u32(buf, pos - bufAt - 4);
    const total = len + FRAME_OVERHEAD;
    if (len > opts.maxPayload || total > pos) return { stop: pos, damaged: true, bytesRead };
    if (pos - total < bufAt) load(pos, Math.max(opts.window, total));
    const start = pos - total - bufAt;
    const payload = buf.subarray(start + 8, start + 8 + len);
    if (u32(buf, start) !== len || u32(buf, start + 4) !== checksum32(opts.sha, payload)) return { stop: pos, damaged: true, bytesRead };
    const keepGoing = onFrame(payload, pos - total, pos);
    pos -= total;
    if (keepGoing === false) return { stop: pos, damaged: false, bytesRead };
  }
  return { stop: 0, damaged: false, bytesRead };
}
