// The relay protocol's framing (docs/cloud-relay.md, protocol v2): every
// frame is a 4-byte big-endian length (of what follows), a 1-byte type, a
// 4-byte big-endian stream id, then the payload. Control frames use stream
// 0; a tunnelled request and its response share one stream id chosen by
// the relay. Heads and control payloads are JSON text; bodies are raw bytes.
// The table (types, sizes, version) is in ./frame-table.ts, which
// tools/cloud-relay.mjs reads too.

import { decode, encode } from '../util/utf8.ts';
import { parseJson, stringify } from '../util/json.ts';
import { FRAME_HEADER, MAX_PAYLOAD } from './frame-table.ts';

export { BODY_CHUNK, F, FRAME_HEADER, MAX_PAYLOAD, PROTOCOL_VERSION } from './frame-table.ts';

export interface Frame {
  type: number;
  stream: number;
  payload: Uint8Array;
}

export function frame(type: number, stream: number, payload: Uint8Array | string = new Uint8Array(0)): Uint8Array {
  const body = typeof payload === 'string' ? encode(payload) : payload;
  if (body.length > MAX_PAYLOAD) throw new Error(`frame payload of ${body.length} bytes is over ${MAX_PAYLOAD}`);
  const out = new Uint8Array(FRAME_HEADER + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 5 + body.length);
  out[4] = type;
  view.setUint32(5, stream >>> 0);
  out.set(body, FRAME_HEADER);
  return out;
}

export function jsonFrame(type: number, stream: number, value: unknown): Uint8Array {
  return frame(type, stream, stringify(value));
}

/** The JSON object of a head or control payload (null when it is not one). */
export function payloadJson(f: Frame): Record<string, unknown> | null {
  const r = parseJson(decode(f.payload));
  return r.ok && r.value !== null && typeof r.value === 'object' && !Array.isArray(r.value) ? (r.value as Record<string, unknown>) : null;
}

/** Reassembles frames from a byte stream; a malformed length is an error (the connection must close). */
export class FrameDecoder {
  private buf = new Uint8Array(0);
  private have = 0;
  error: string | null = null;

  /** Feeds bytes; returns the complete frames they finish. */
  feed(chunk: Uint8Array): Frame[] {
    if (this.error) return [];
    if (this.have + chunk.length > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.have + chunk.length, this.buf.length * 2, 1024));
      grown.set(this.buf.subarray(0, this.have));
      this.buf = grown;
    }
    this.buf.set(chunk, this.have);
    this.have += chunk.length;
    const out: Frame[] = [];
    let at = 0;
    while (this.have - at >= FRAME_HEADER) {
      const view = new DataView(this.buf.buffer, this.buf.byteOffset + at);
      const length = view.getUint32(0);
      if (length < 5 || length - 5 > MAX_PAYLOAD) {
        this.error = `bad frame length ${length}`;
        return out;
      }
      if (this.have - at < 4 + length) break;
      out.push({ type: this.buf[at + 4]!, stream: view.getUint32(5), payload: this.buf.slice(at + FRAME_HEADER, at + 4 + length) });
      at += 4 + length;
    }
    if (at > 0) {
      this.buf.copyWithin(0, at, this.have);
      this.have -= at;
    }
    return out;
  }
}
