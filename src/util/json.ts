// JSON helpers: a parse that never throws (model output and request bodies
// are untrusted), the firmware's stringify (JSON.stringify that also takes
// the objects a preloaded module keeps in flash), a stable stringify (sorted
// keys) for content hashes and reproducible output, the plain-object test
// the parsers share, and JSON request and answer bodies as bytes.

import { decode, encode } from './utf8.ts';

export type JsonResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Parses text; on failure error is the parser's own message. */
export function parseJson(text: unknown): JsonResult {
  if (typeof text !== 'string') return { ok: false, error: 'input is not a string' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, error: errorMessage(e) };
  }
}

/** The message of a thrown value, whatever was thrown. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  try {
    return String(e);
  } catch {
    return 'unknown error';
  }
}

/** A copy of every object the walk meets: a copy is in RAM, so XS's stringify can mark it. */
function copyObjects(_key: string, v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  return Array.isArray(v) ? [...(v as unknown[])] : { ...(v as Record<string, unknown>) };
}

/**
 * JSON.stringify for the firmware (the lint rule no-restricted-properties
 * sends every other use here). On the device the objects a preloaded module
 * made at its top level stay in flash, and XS's JSON.stringify refuses them
 * ("read only value": it marks each object it enters, and a flash object
 * takes no mark), while the simulator, which does not preload, never sees it.
 * The native stringify runs first; when it meets such an object, the walk runs
 * again with a replacer that hands it a copy of every object, members copied
 * in turn as the walk reaches them. Same text either way.
 */
export function stringify(value: unknown, space?: string | number): string {
  try {
    return JSON.stringify(value, null, space);
  } catch (e) {
    if (!(e instanceof TypeError) || !e.message.includes('read only')) throw e;
    return JSON.stringify(value, copyObjects, space);
  }
}

/** A JSON object: not null, not an array. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * JSON text with object keys sorted (by UTF-16 code unit order), so equal
 * values always give equal text. Like JSON.stringify, undefined and functions
 * are skipped in objects and read as null in arrays, and non-finite numbers
 * read as null; toJSON is not consulted. Throws TypeError on a cycle.
 */
export function stableStringify(value: unknown): string {
  const seen: object[] = [];
  const walk = (v: unknown): string | undefined => {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v);
      case 'number':
        return Number.isFinite(v) ? JSON.stringify(v) : 'null';
      case 'boolean':
        return v ? 'true' : 'false';
      case 'bigint':
        throw new TypeError('bigint is not JSON');
      case 'object':
        break;
      default:
        return undefined;
    }
    const o = v as object;
    if (seen.indexOf(o) >= 0) throw new TypeError('cycle in value');
    seen.push(o);
    let s: string;
    if (Array.isArray(o)) {
      s = '[' + o.map((x: unknown) => walk(x) ?? 'null').join(',') + ']';
    } else {
      const rec = o as Record<string, unknown>;
      const parts: string[] = [];
      for (const k of Object.keys(rec).sort()) {
        const w = walk(rec[k]);
        if (w !== undefined) parts.push(JSON.stringify(k) + ':' + w);
      }
      s = '{' + parts.join(',') + '}';
    }
    seen.pop();
    return s;
  };
  return walk(value) ?? 'null';
}

/**
 * The request body: one JSON.stringify and one encode into a buffer of
 * exactly the right size, which the HTTP client writes once with the head.
 */
export function jsonBody(value: unknown): Uint8Array {
  return encode(stringify(value));
}

/** A body as a JSON object, or null (not JSON, or not an object). */
export function readObject(body: Uint8Array): Record<string, unknown> | null {
  const p = parseJson(decode(body));
  return p.ok && isPlainObject(p.value) ? p.value : null;
}
