// The one shape of a route that takes a form and changes something: read the
// fields (urlencoded or multipart, and a JSON object where the route allows
// it), answer 400 when the body cannot be read, apply, log the change, and
// answer JSON. Routes declare what differs (path, limits, how to apply, what
// to answer) and formRoute() writes the rest once (docs/architecture.md).

import type { Log } from '../log/log.ts';
import { mediaType, parseForm, parseJsonBody, queryParams, type FilePart } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpRequest, HttpResponse } from '../net/http/types.ts';
import { isPlainObject } from '../util/json.ts';
import { unchanged } from '../util/sentence.ts';
import type { Access, Route } from './router.ts';

export type FieldsResult = { ok: true; fields: Map<string, string>; files: FilePart[] } | { ok: false; error: string };

/**
 * How a JSON object body becomes fields: true gives strings as they are,
 * booleans as 1 or 0, anything else as String(value); 'scalars' gives
 * strings, numbers and booleans as String(value) and refuses any other member.
 */
export type JsonFields = boolean | 'scalars';

/**
 * The fields of a form body (urlencoded or multipart; none for other types).
 * With json, a JSON object body gives its members as fields too (JsonFields).
 */
export function formFields(req: HttpRequest, json: JsonFields = false): FieldsResult {
  if (json && mediaType(req) === 'application/json') {
    const j = parseJsonBody(req);
    if (!j.ok) return { ok: false, error: j.error };
    if (!isPlainObject(j.value)) return { ok: false, error: 'the body must be a JSON object' };
    const fields = new Map<string, string>();
    for (const [k, v] of Object.entries(j.value)) {
      if (json === 'scalars') {
        if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return { ok: false, error: `${k} must be a string` };
        fields.set(k, String(v));
      } else fields.set(k, typeof v === 'string' ? v : typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
    }
    return { ok: true, fields, files: [] };
  }
  const f = parseForm(req);
  return f.ok ? { ok: true, fields: f.form.fields, files: f.form.files } : { ok: false, error: f.error };
}

/**
 * A body that is typed JSON (an object, its members as they are) or else a
 * form (its fields as strings): the one reader for routes that take either;
 * a string says why the body cannot be read.
 */
export function bodyObject(req: HttpRequest): Record<string, unknown> | string {
  if (mediaType(req) === 'application/json') {
    const j = parseJsonBody(req);
    if (!j.ok) return j.error;
    return isPlainObject(j.value) ? j.value : 'the body must be a JSON object';
  }
  const f = parseForm(req);
  return f.ok ? Object.fromEntries(f.form.fields) : f.error;
}

/** What apply() answers: a response as it is; a string names what is wrong (400 bad-setting, "... Nothing was changed."); null answers view(). */
export type Applied = HttpResponse | string | null;

export interface FormRouteSpec {
  path: string;
  /** POST unless said. */
  method?: string;
  access?: Access;
  bodyLimit?: number;
  /** Also read a JSON object body as the fields (formFields). */
  json?: JsonFields;
  /** Also read fields the body does not carry from the query string (body first). */
  query?: boolean;
  /**
   * A body that is not a readable form: 'reject' answers 400 bad-request with
   * the reader's error (or `unreadable`, the route's own words, fixed or made
   * from the reader's error); 'empty' goes
   * on with no fields, for routes whose apply() answers a missing field itself.
   */
  onUnreadable?: 'reject' | 'empty';
  unreadable?: string | ((error: string) => string);
  apply(fields: Map<string, string>, req: HttpRequest, files: FilePart[]): Applied | Promise<Applied>;
  /** The answer after a change (apply() returned null). */
  view?(): unknown;
  /** The log line of an applied change (apply() returned null or a 2xx response). */
  log?: { to: Log; tag: string; line(fields: Map<string, string>): string };
}

function answer(spec: FormRouteSpec, fields: Map<string, string>, r: Applied): HttpResponse {
  if (typeof r === 'string') return errorResponse(400, 'bad-setting', unchanged(r));
  const res = r ?? jsonResponse(spec.view ? spec.view() : {});
  if (spec.log && res.status >= 200 && res.status < 300) spec.log.to.info(spec.log.tag, spec.log.line(fields));
  return res;
}

/** A route that reads a form, applies it and answers JSON: the one copy of that shape. */
export function formRoute(spec: FormRouteSpec): Route {
  const route: Route = {
    method: spec.method ?? 'POST',
    path: spec.path,
    handler: (req) => {
      const read = formFields(req, spec.json);
      if (!read.ok && spec.onUnreadable !== 'empty') {
        const words = spec.unreadable;
        return errorResponse(400, 'bad-request', typeof words === 'function' ? words(read.error) : (words ?? read.error));
      }
      const fields = read.ok ? read.fields : new Map<string, string>();
      if (spec.query) for (const [k, v] of queryParams(req)) if (!fields.has(k)) fields.set(k, v);
      const r = spec.apply(fields, req, read.ok ? read.files : []);
      return r instanceof Promise ? r.then((v) => answer(spec, fields, v)) : answer(spec, fields, r);
    },
  };
  if (spec.access !== undefined) route.access = spec.access;
  if (spec.bodyLimit !== undefined) route.bodyLimit = spec.bodyLimit;
  return route;
}
