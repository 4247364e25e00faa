// A multipart/form-data request body (RFC 7578) built as a BodySource: the
// text fields and each part's head are small strings made up front; the
// file's bytes come from its own source a chunk at a time (a recording read
// from the card, a voice note), so the body is never held whole in the heap.

import type { BodySource } from '../net/http/client.ts';
import { encode } from '../util/utf8.ts';

const QUOTE_OR_BREAK = /["\r\n\\]/;

/** A file part: a name, a media type, and its bytes as a source of known length. */
export interface FilePart {
  field: string;
  filename: string;
  mime: string;
  source: BodySource;
}

export interface MultipartBody {
  /** The Content-Type header, with the boundary. */
  contentType: string;
  source: BodySource;
}

/** A boundary of 24 random hex digits after dashes (random: from the caller's generator). */
export function boundaryOf(random: (bytes: Uint8Array) => void): string {
  const b = new Uint8Array(12);
  random(b);
  let hex = '';
  for (let i = 0; i < b.length; i++) hex += (b[i]! < 16 ? '0' : '') + b[i]!.toString(16);
  return `----desk-assistant-${hex}`;
}

/** A source over bytes already in memory (a bounded buffer), 4 KB at a time. */
export function bytesSource(bytes: Uint8Array, chunk = 4096): BodySource {
  let at = 0;
  return {
    length: bytes.length,
    next() {
      if (at >= bytes.length) return null;
      const out = bytes.subarray(at, Math.min(bytes.length, at + chunk));
      at += out.length;
      return out;
    },
    rewind() {
      at = 0;
    },
  };
}

/**
 * The body: the text fields in the order given, then the file. A field
 * name, a value or a file name with a quote or line break is refused (the
 * firmware makes these itself; a throw means a bug, not bad input).
 */
export function multipart(boundary: string, fields: ReadonlyArray<readonly [string, string]>, file: FilePart): MultipartBody {
  let head = '';
  for (const [name, value] of fields) {
    if (QUOTE_OR_BREAK.test(name)) throw new Error(`multipart: bad field name ${name}`);
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  if (QUOTE_OR_BREAK.test(file.field + file.filename + file.mime)) throw new Error('multipart: bad file part');
  head += `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\nContent-Type: ${file.mime}\r\n\r\n`;
  const pre = encode(head);
  const post = encode(`\r\n--${boundary}--\r\n`);
  let stage = 0;
  const rewind = file.source.rewind;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    source: {
      length: pre.length + file.source.length + post.length,
      // Sent again whole (a kept-alive connection found closed) only when the file's own source can start over.
      ...(rewind
        ? {
            rewind() {
              rewind.call(file.source);
              stage = 0;
            },
          }
        : {}),
      next() {
        if (stage === 0) {
          stage = 1;
          return pre;
        }
        if (stage === 1) {
          const c = file.source.next();
          if (c) return c;
          stage = 2;
        }
        if (stage === 2) {
          stage = 3;
          return post;
        }
        return null;
      },
    },
  };
}
