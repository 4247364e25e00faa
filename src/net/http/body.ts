// Request bodies: application/x-www-form-urlencoded, application/json and
// multipart/form-data (fields and files), parsed on demand with typed errors.

import { parseJson } from '../../util/json.ts';
import { decode } from '../../util/utf8.ts';
import { parseUrlEncoded } from './parse.ts';
import type { HttpRequest } from './types.ts';

export interface FilePart {
  name: string;
  filename: string;
  contentType: string;
  data: Uint8Array;
}

export interface Form {
  fields: Map<string, string>;
  files: FilePart[];
}

export type FormResult = { ok: true; form: Form } | { ok: false; error: string };

function mediaType(req: HttpRequest): string {
  return (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

function param(header: string, name: string): string | null {
  const re = new RegExp(`;\\s*${name}=("([^"]*)"|[^;\\s]*)`, 'i');
  const m = re.exec(header);
  if (!m) return null;
  return m[2] ?? m[1] ?? null;
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  outer: for (let i = from; i <= hay.length - needle.length; i++) {
    if (hay[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function ascii(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

export function parseMultipart(body: Uint8Array, boundary: string): FormResult {
  if (!boundary || boundary.length > 70) return { ok: false, error: 'bad multipart boundary' };
  const delim = ascii(`--${boundary}`);
  const fields = new Map<string, string>();
  const files: FilePart[] = [];
  let at = indexOf(body, delim, 0);
  if (at < 0) return { ok: false, error: 'multipart boundary not found' };
  for (;;) {
    at += delim.length;
    if (body[at] === 45 && body[at + 1] === 45) break; // closing --boundary--
    if (body[at] !== 13 || body[at + 1] !== 10) return { ok: false, error: 'malformed multipart body' };
    at += 2;
    const headEnd = indexOf(body, ascii('\r\n\r\n'), at);
    if (headEnd < 0) return { ok: false, error: 'malformed multipart part' };
    const headers = decode(body.subarray(at, headEnd)).split('\r\n');
    const next = indexOf(body, ascii(`\r\n--${boundary}`), headEnd + 4);
    if (next < 0) return { ok: false, error: 'unterminated multipart body' };
    const data = body.subarray(headEnd + 4, next);
    let disposition = '';
    let contentType = 'text/plain';
    for (const h of headers) {
      const colon = h.indexOf(':');
      const k = h.slice(0, colon).trim().toLowerCase();
      const v = h.slice(colon + 1).trim();
      if (k === 'content-disposition') disposition = v;
      if (k === 'content-type') contentType = v;
    }
    const name = param(disposition, 'name');
    if (name === null) return { ok: false, error: 'multipart part without a name' };
    const filename = param(disposition, 'filename');
    if (filename !== null) files.push({ name, filename, contentType, data: data.slice() });
    else fields.set(name, decode(data));
    at = next + 2;
  }
  return { ok: true, form: { fields, files } };
}

/** The form fields of a urlencoded or multipart body (empty for other types). */
export function parseForm(req: HttpRequest): FormResult {
  const type = mediaType(req);
  if (type === 'application/x-www-form-urlencoded') return { ok: true, form: { fields: parseUrlEncoded(decode(req.body)), files: [] } };
  if (type === 'multipart/form-data') return parseMultipart(req.body, param(req.headers.get('content-type') ?? '', 'boundary') ?? '');
  return { ok: true, form: { fields: new Map(), files: [] } };
}

export type JsonBody = { ok: true; value: unknown } | { ok: false; error: string };

export function parseJsonBody(req: HttpRequest): JsonBody {
  if (mediaType(req) !== 'application/json') return { ok: false, error: 'expected Content-Type: application/json' };
  const r = parseJson(decode(req.body));
  return r.ok ? { ok: true, value: r.value } : { ok: false, error: r.error };
}

/** Query parameters (never consulted for the token on API routes). */
export function queryParams(req: HttpRequest): Map<string, string> {
  return parseUrlEncoded(req.query);
}
