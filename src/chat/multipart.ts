// multipart/form-data bodies for uploads (the Bot API's sendVoice and
// sendDocument), built into one buffer so the client writes it once. The
// boundary is a fixed string, lengthened until no part contains it.

import { concatBytes } from '../util/bytes.ts';
import { encode } from '../util/utf8.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const UNSAFE_NAME = /["\\\r\n]/;

export interface FilePartIn {
  field: string;
  name: string;
  mime: string;
  bytes: Uint8Array;
}

function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0];
  outer: for (let i = 0; i <= hay.length - needle.length; i++) {
    if (hay[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** A quoted-string-safe file name (quotes, backslashes and line breaks become '_'). */
export function safeFileName(name: string): string {
  return replaceEvery(name, UNSAFE_NAME, '_') || 'file';
}

export function multipartBody(fields: ReadonlyArray<readonly [string, string]>, files: readonly FilePartIn[]): { contentType: string; body: Uint8Array } {
  let boundary = 'desk-assistant-part-7f3a9c2e5b1d';
  // The boundary must not occur inside any part: lengthen it until it does not.
  for (let round = 0; files.some((f) => contains(f.bytes, encode(boundary))) || fields.some(([, v]) => v.includes(boundary)); round++) boundary += `-${round}x`;
  const pieces: Uint8Array[] = [];
  for (const [name, value] of fields) {
    pieces.push(encode(`--${boundary}\r\nContent-Disposition: form-data; name="${safeFileName(name)}"\r\n\r\n${value}\r\n`));
  }
  for (const f of files) {
    pieces.push(encode(`--${boundary}\r\nContent-Disposition: form-data; name="${safeFileName(f.field)}"; filename="${safeFileName(f.name)}"\r\nContent-Type: ${f.mime}\r\n\r\n`));
    pieces.push(f.bytes);
    pieces.push(encode('\r\n'));
  }
  pieces.push(encode(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: concatBytes(pieces) };
}
