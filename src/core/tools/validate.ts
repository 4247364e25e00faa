// The tool-argument validator: the small subset of JSON Schema the tools use,
// checked on XS without a schema library. checkSchema() refuses a schema that
// uses anything outside the subset (so no constraint is ever silently
// ignored: the registry runs it at registration), and validate() answers
// with readable errors, [] meaning valid.
//
// The subset: type (a name or an array of names), properties, required,
// additionalProperties (boolean or schema), enum, minimum, maximum,
// minLength, maxLength, items (one schema), minItems, maxItems; and the
// annotations description, title and default, which validate nothing.
// At the root, JSON Schema 2020-12's $schema (the 2020-12 or draft-07
// dialect, both of which read this subset alike) and $defs; anywhere, a
// $ref to one of those definitions ("#/$defs/<name>"), applied beside the
// node's other keywords as 2020-12 does. A definition that refers to itself
// without descending into a value is refused (it would never end).
//
// Decisions (docs/decisions.md, "Tool server"):
// - minLength/maxLength count code points, as JSON Schema defines them and as
//   Ajv does; the spec's byte caps are the handlers' business, not the schema's.
// - default is documentation for the model; the validator never fills it in.
//   Handlers apply their own defaults to absent arguments.
// - Keywords apply only to values of their kind (minimum to numbers, ...), as
//   in JSON Schema; type is what restricts the kind.

import { isPlainObject, stringify } from '../../util/json.ts';
import type { JsonSchema } from './types.ts';

const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const;
type TypeName = (typeof TYPES)[number];

const KEYWORDS = [
  'type', 'properties', 'required', 'additionalProperties', 'enum', 'minimum', 'maximum',
  'minLength', 'maxLength', 'items', 'minItems', 'maxItems', 'description', 'title', 'default', '$ref',
];
/** Keywords only the root may carry. */
const ROOT_KEYWORDS = ['$schema', '$defs'];
/** The dialects a tool schema may name (MCP 2025-11-25 defaults to 2020-12; draft-07 reads this subset alike). */
export const SCHEMA_DIALECTS = ['https://json-schema.org/draft/2020-12/schema', 'http://json-schema.org/draft-07/schema#'];
const REF_RE = /^#\/\$defs\/([A-Za-z0-9_-]+)$/;

/** Most errors reported for one value (the model needs the first few, not a flood). */
export const MAX_ERRORS = 8;

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * Problems with a schema as a tool's argument schema (root must be type
 * object); [] when it uses only the subset, correctly.
 */
export function checkSchema(schema: unknown): string[] {
  const problems: string[] = [];
  if (!isPlainObject(schema) || schema.type !== 'object') problems.push('(root): an arguments schema must be {"type": "object", ...}');
  if (!isPlainObject(schema)) {
    checkNode(schema, '(root)', problems, {});
    return problems;
  }
  if (schema.$schema !== undefined && SCHEMA_DIALECTS.indexOf(schema.$schema as string) < 0) {
    problems.push(`(root): $schema must be one of ${SCHEMA_DIALECTS.join(', ')}`);
  }
  const defs = schema.$defs;
  if (defs !== undefined && !isPlainObject(defs)) problems.push('(root): $defs must be an object of schemas');
  const root = isPlainObject(defs) ? defs : {};
  for (const [name, def] of Object.entries(root)) {
    if (!REF_RE.test(`#/$defs/${name}`)) problems.push(`(root).$defs: the name ${stringify(name)} is not letters, digits, - or _`);
    checkNode(def, `(root).$defs.${name}`, problems, root);
    if (refLoops(name, root)) problems.push(`(root).$defs.${name}: refers to itself without descending into a value`);
  }
  checkNode(schema, '(root)', problems, root, true);
  return problems;
}

/** Whether following $ref from a definition comes back to it before any keyword descends into a value. */
function refLoops(start: string, defs: Record<string, unknown>): boolean {
  const seen = new Set<string>();
  let name: string | null = start;
  while (name !== null) {
    if (seen.has(name)) return true;
    seen.add(name);
    const def: unknown = defs[name];
    name = isPlainObject(def) && typeof def.$ref === 'string' ? (REF_RE.exec(def.$ref)?.[1] ?? null) : null;
  }
  return false;
}

function checkNode(node: unknown, at: string, out: string[], defs: Record<string, unknown>, isRoot = false): void {
  if (!isPlainObject(node)) {
    out.push(`${at}: a schema must be an object`);
    return;
  }
  for (const k of Object.keys(node)) {
    if (KEYWORDS.indexOf(k) >= 0 || (isRoot && ROOT_KEYWORDS.indexOf(k) >= 0)) continue;
    out.push(ROOT_KEYWORDS.indexOf(k) >= 0 ? `${at}: ${k} is allowed only at the root` : `${at}: keyword ${k} is not supported`);
  }
  if (node.$ref !== undefined) {
    const m = typeof node.$ref === 'string' ? REF_RE.exec(node.$ref) : null;
    if (!m) out.push(`${at}: $ref must be "#/$defs/<name>"`);
    else if (!Object.hasOwn(defs, m[1]!)) out.push(`${at}: $ref names ${m[1]}, which $defs does not define`);
  }
  const t = node.type;
  if (t !== undefined) {
    const names = Array.isArray(t) ? t : [t];
    if (names.length === 0 || names.some((n) => TYPES.indexOf(n as TypeName) < 0) || new Set(names).size !== names.length) {
      out.push(`${at}: type must be one of ${TYPES.join(', ')} or a non-empty array of them without repeats`);
    }
  }
  if (node.properties !== undefined) {
    if (!isPlainObject(node.properties)) out.push(`${at}: properties must be an object`);
    else for (const [k, v] of Object.entries(node.properties)) checkNode(v, `${at}.${k}`, out, defs);
  }
  if (node.required !== undefined && (!Array.isArray(node.required) || node.required.some((r) => typeof r !== 'string'))) {
    out.push(`${at}: required must be an array of names`);
  }
  const ap = node.additionalProperties;
  if (ap !== undefined && typeof ap !== 'boolean') checkNode(ap, `${at}.additionalProperties`, out, defs);
  if (node.enum !== undefined) {
    const e = node.enum;
    if (!Array.isArray(e) || e.length === 0) out.push(`${at}: enum must be a non-empty array`);
    else if (e.some((x, i) => e.findIndex((y) => jsonEqual(x, y)) !== i)) out.push(`${at}: enum must not repeat a value`);
  }
  for (const k of ['minimum', 'maximum']) {
    if (node[k] !== undefined && (typeof node[k] !== 'number' || !Number.isFinite(node[k]))) out.push(`${at}: ${k} must be a number`);
  }
  for (const k of ['minLength', 'maxLength', 'minItems', 'maxItems']) {
    if (node[k] !== undefined && !isCount(node[k])) out.push(`${at}: ${k} must be a whole number of at least 0`);
  }
  if (node.items !== undefined) {
    if (Array.isArray(node.items)) out.push(`${at}: items must be one schema (tuples are not supported)`);
    else checkNode(node.items, `${at}[]`, out, defs);
  }
}

function typeOf(v: unknown): TypeName | 'other' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isFinite(v) ? 'number' : 'other';
    case 'object':
      return 'object';
    default:
      return 'other';
  }
}

function hasType(v: unknown, name: TypeName): boolean {
  const actual = typeOf(v);
  if (name === 'integer') return actual === 'number' && Number.isInteger(v);
  return actual === name;
}

/** JSON equality (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Length in code points (JSON Schema's and Ajv's measure). */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function describe(v: unknown): string {
  const t = typeOf(v);
  return t === 'number' && Number.isInteger(v) ? 'integer' : t;
}

function show(v: unknown): string {
  const s = stringify(v);
  return s.length > 40 ? s.slice(0, 37) + '...' : s;
}

/** Errors of value against schema, at most MAX_ERRORS; [] = valid. Never throws. */
export function validate(schema: JsonSchema, value: unknown): string[] {
  const out: string[] = [];
  walk(schema, value, '', out, isPlainObject(schema.$defs) ? schema.$defs : {});
  return out;
}

function walk(s: JsonSchema, v: unknown, at: string, out: string[], defs: Record<string, unknown>): void {
  if (out.length >= MAX_ERRORS) return;
  const where = at || '(arguments)';
  const push = (m: string): void => {
    if (out.length < MAX_ERRORS) out.push(`${where}: ${m}`);
  };
  if (typeof s.$ref === 'string') {
    const name = REF_RE.exec(s.$ref)?.[1];
    const def = name === undefined ? undefined : defs[name];
    // checkSchema vouched for the reference at registration; a schema that skipped it refers to nothing.
    if (isPlainObject(def)) walk(def, v, at, out, defs);
  }
  if (s.type !== undefined) {
    const names = (Array.isArray(s.type) ? s.type : [s.type]) as TypeName[];
    if (!names.some((n) => hasType(v, n))) {
      push(`expected ${names.join(' or ')}, got ${describe(v)}`);
      return; // the other keywords would only repeat the mismatch
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => jsonEqual(e, v))) {
    push(`must be one of ${s.enum.map(show).join(', ')}`);
  }
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) push(`must be at least ${s.minimum}`);
    if (typeof s.maximum === 'number' && v > s.maximum) push(`must be at most ${s.maximum}`);
  }
  if (typeof v === 'string' && (s.minLength !== undefined || s.maxLength !== undefined)) {
    const n = codePoints(v);
    if (typeof s.minLength === 'number' && n < s.minLength) push(s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters`);
    if (typeof s.maxLength === 'number' && n > s.maxLength) push(`must be at most ${s.maxLength} characters`);
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems) push(`must have at least ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && v.length > s.maxItems) push(`must have at most ${s.maxItems} items`);
    if (isPlainObject(s.items)) v.forEach((item, i) => walk(s.items as JsonSchema, item, `${at}[${i}]`, out, defs));
  }
  if (isPlainObject(v)) {
    const props = isPlainObject(s.properties) ? s.properties : {};
    if (Array.isArray(s.required)) {
      for (const r of s.required) if (typeof r === 'string' && !Object.hasOwn(v, r)) push(`${r} is required`);
    }
    for (const k of Object.keys(v)) {
      const path = at ? `${at}.${k}` : k;
      if (Object.hasOwn(props, k)) {
        if (isPlainObject(props[k])) walk(props[k] as JsonSchema, v[k], path, out, defs);
      } else if (s.additionalProperties === false) {
        if (out.length < MAX_ERRORS) out.push(`${path}: unknown argument`);
      } else if (isPlainObject(s.additionalProperties)) {
        walk(s.additionalProperties, v[k], path, out, defs);
      }
    }
  }
}
