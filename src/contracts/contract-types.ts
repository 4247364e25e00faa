// The small descriptor language the turn contract is written in. One tree of
// these describes the turn object; the wire schema, the prompt's field
// documentation and the parser's caps and defaults are all read from it.

interface FieldBase {
  /** One short line for the prompt's field documentation. */
  doc: string;
  /** False for retired fields: still parsed, never offered on the wire or in the prompt. */
  wire?: false;
}

export interface StringField extends FieldBase {
  type: 'string';
  /** UTF-8 byte cap; the parser cuts at a code point boundary. */
  capBytes?: number;
  /** What the parser does with a longer value: cut it (default) or drop it. */
  overLong?: 'cap' | 'drop';
  /** Parser trims surrounding whitespace before capping. */
  trim?: boolean;
  /** Parser lowercases. */
  lower?: boolean;
  /** Values offered on the wire. */
  enum?: readonly string[];
  /** Values the parser also accepts beyond enum (retired or no-op values). */
  parseOnly?: readonly string[];
  /** Value the parser uses when the field is absent, not a string or empty. */
  default?: string;
  /** An item missing this (or with it empty) is dropped; for top-level fields: a parse error. */
  required?: boolean;
  /** Device-action config values: 'token' = [A-Za-z0-9._-]+, 'text' = no control characters. */
  charset?: 'token' | 'text';
}

export interface NumberField extends FieldBase {
  type: 'number' | 'integer';
  min?: number;
  max?: number;
  default?: number;
}

export interface BooleanField extends FieldBase {
  type: 'boolean';
  default?: boolean;
}

export interface ArrayField extends FieldBase {
  type: 'array';
  items: Field;
  /** Vector cap: at most this many items are kept. */
  maxItems?: number;
}

export interface ObjectField extends FieldBase {
  type: 'object';
  /** In the order they are documented and listed in the schema. */
  fields: Readonly<Record<string, Field>>;
}

export type Field = StringField | NumberField | BooleanField | ArrayField | ObjectField;
