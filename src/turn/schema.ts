// The wire JSON schema of the turn, generated from contract.ts, in the form
// strict structured-output modes need (OpenAI strict rules, which the other
// dialects accept too):
// - every object lists all its properties in required and sets
//   additionalProperties false;
// - every sub-field is nullable through a ["type","null"] pair (an enum then
//   lists null as well); at the top level reply, memory and ask are plain
//   strings and the optional fields are nullable;
// - array items are not nullable;
// - retired fields (wire: false) are left out.
// Keywords are limited to type, properties, required, additionalProperties,
// items, enum and (on request) description: the subset every strict dialect
// and Ajv's strict mode accept. Caps and ranges live in the prompt's field
// documentation and are enforced by the parser and the action validator.

import type { Field, ObjectField } from '../contracts/index.ts';
import { TURN, onWire } from '../contracts/index.ts';
import { stringify } from '../util/json.ts';

export type JsonSchema = { [key: string]: unknown };

export interface SchemaOptions {
  /** Copy each field's doc line into description (larger; off by default). */
  descriptions?: boolean;
}

function typeOf(t: string, nullable: boolean): string | string[] {
  return nullable ? [t, 'null'] : t;
}

function fieldSchema(f: Field, nullable: boolean, o: SchemaOptions): JsonSchema {
  const out: JsonSchema = {};
  switch (f.type) {
    case 'string':
      out.type = typeOf('string', nullable);
      if (f.enum) out.enum = nullable ? [...f.enum, null] : [...f.enum];
      break;
    case 'number':
    case 'integer':
    case 'boolean':
      out.type = typeOf(f.type, nullable);
      break;
    case 'array':
      out.type = typeOf('array', nullable);
      out.items = fieldSchema(f.items, false, o);
      break;
    case 'object':
      Object.assign(out, objectSchema(f, nullable, () => true, o));
      break;
  }
  if (o.descriptions) out.description = f.doc;
  return out;
}

function objectSchema(f: ObjectField, nullable: boolean, fieldNullable: (name: string, f: Field) => boolean, o: SchemaOptions): JsonSchema {
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const [name, sub] of Object.entries(f.fields)) {
    if (!onWire(sub)) continue;
    properties[name] = fieldSchema(sub, fieldNullable(name, sub), o);
    required.push(name);
  }
  return { type: typeOf('object', nullable), properties, required, additionalProperties: false };
}

/** A fresh copy of the wire schema. */
export function buildTurnSchema(o: SchemaOptions = {}): JsonSchema {
  const root = objectSchema(TURN, false, (_name, sub) => !(sub.type === 'string' && sub.required === true), o);
  if (o.descriptions) root.description = TURN.doc;
  return root;
}

/** Built when the module loads (on the device: the preload, so the text is in flash). */
const SCHEMA_TEXT = stringify(buildTurnSchema());

/** The wire schema as JSON text, built once: request bodies embed it as is. */
export function turnSchemaText(): string {
  return SCHEMA_TEXT;
}
