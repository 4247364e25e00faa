// Request bodies: application/x-www-form-urlencoded, application/json and
// multipart/form-data (fields and files), parsed on demand with typed errors.

import { parseJson } from '../../util/json.ts';
import { decode } from '../../util/utf8.ts';
import { concatBytes } from '../../util/bytes.ts';
import { headerParam, MultipartReader, type PartHead } from './multipart.ts';
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

/** The body's media type, lowercased, without parameters. */
export function mediaType(req: Pick<HttpRequest, 'headers'>): string {
  return (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A whole multipart body, read by the same reader that streams uploads (multipart.ts). */
export function parseMultipart(body: Uint8Array, boundary: string): FormResult {
  const fields = new Map<string, string>();
  const files: FilePart[] = [];
  let part: PartHead | null = null;
  let pieces: Uint8Array[] = [];
  const reader = new MultipartReader(boundary, {
    begin(head) {
      part = head;
      pieces = [];
    },
    data(bytes) {
      pieces.push(bytes.slice());
    },
    end() {
      const head = part!;
      const data = pieces.length === 1 ? pieces[0]! : concatBytes(pieces);
      if (head.filename !== null) files.push({ name: head.name, filename: head.filename, contentType: head.contentType, data });
      else fields.set(head.name, decode(data));
      pieces = [];
    },
  });
  reader.feed(body);
  reader.finish();
  return reader.error ? { ok: false, error: reader.error } : { ok: true, form: { fields, files } };
}

/** The boundary of a multipart/form-data request ('' when it names none). */
export function boundaryOf(req: Pick<HttpRequest, 'headers'>): string {
  return headerParam(req.headers.get('content-type') ?? '', 'boundary') ?? '';
}

/** The form fields of a urlencoded or multipart body (empty for other types). */
export function parseForm(req: HttpRequest): FormResult {
  const type = mediaType(req);
  if (type === 'application/x-www-form-urlencoded') return { ok: true, form: { fields: parseUrlEncoded(decode(req.body)), files: [] } };
  if (type === 'multipart/form-data') return parseMultipart(req.body, boundaryOf(req));
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
