// The tool-argument validator: the subset it accepts, readable errors, code
// point lengths, and the same verdict as Ajv on random schemas of the subset
// (property tests; every registered tool's schema: test/unit/boot/tool-table.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../src/core/tools/types.ts';
import { MAX_ERRORS, checkSchema, jsonEqual, validate } from '../../../src/core/tools/validate.ts';
import { KEYS, laxAjv2020, leafValue, sameVerdict, value, DIALECT_2020 } from '../../support/schema-judge.ts';


describe('checkSchema', () => {
  it('accepts the subset and refuses what the validator would ignore', () => {
    expect(checkSchema({ type: 'object', properties: { a: { type: ['string', 'null'], maxLength: 3, description: 'x' } }, required: ['a'], additionalProperties: false })).toEqual([]);
    expect(checkSchema({ type: 'string' })).toEqual(['(root): an arguments schema must be {"type": "object", ...}']);
    expect(checkSchema({ type: 'object', properties: { a: { pattern: '^x$' } } })).toEqual(['(root).a: keyword pattern is not supported']);
    expect(checkSchema({ type: 'object', properties: { a: { oneOf: [] } } })[0]).toMatch(/oneOf is not supported/);
    expect(checkSchema({ type: 'object', properties: { a: { type: 'text' } } })[0]).toMatch(/type must be one of/);
    expect(checkSchema({ type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } })[0]).toMatch(/tuples are not supported/);
    expect(checkSchema({ type: 'object', properties: { a: { maxLength: -1 } } })[0]).toMatch(/maxLength must be a whole number/);
    expect(checkSchema({ type: 'object', required: 'a' })[0]).toMatch(/required must be an array/);
    expect(checkSchema({ type: 'object', properties: { a: { enum: [] } } })[0]).toMatch(/enum must be a non-empty array/);
    expect(checkSchema({ type: 'object', properties: { a: { enum: [{ x: 1, y: 2 }, { y: 2, x: 1 }] } } })[0]).toMatch(/enum must not repeat/);
  });

  it('accepts $schema (2020-12 or draft-07) and $defs at the root, and $ref to a definition', () => {
    const address = { type: 'object', properties: { street: { type: 'string' } } };
    expect(checkSchema({ $schema: DIALECT_2020, type: 'object', $defs: { address }, properties: { home: { $ref: '#/$defs/address' } } })).toEqual([]);
    expect(checkSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' })).toEqual([]);
    expect(checkSchema({ $schema: 'https://example.com/my-dialect', type: 'object' })[0]).toMatch(/\$schema must be one of/);
    expect(checkSchema({ type: 'object', properties: { a: { $defs: {} } } })[0]).toMatch(/\$defs is allowed only at the root/);
    expect(checkSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })[0]).toMatch(/\$defs does not define/);
    expect(checkSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } })[0]).toMatch(/\$ref must be/);
    expect(checkSchema({ type: 'object', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } })).toEqual([
      '(root).$defs.a: refers to itself without descending into a value',
      '(root).$defs.b: refers to itself without descending into a value',
    ]);
    // A definition may refer to itself below a value (a tree), which ends with the value.
    expect(checkSchema({ type: 'object', $defs: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } } } }, properties: { root: { $ref: '#/$defs/node' } } })).toEqual([]);
  });
});

describe('validate', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 4 },
      level: { type: 'integer', minimum: 0, maximum: 100 },
      mode: { enum: ['a', 'b', null] },
      tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 },
      when: { type: ['number', 'null'] },
    },
    required: ['name'],
    additionalProperties: false,
  };

  it('accepts a valid value and applies no defaults', () => {
    const value = { name: 'ab', level: 7, mode: null, tags: ['x'], when: null };
    expect(validate(schema, value)).toEqual([]);
    expect(value).toEqual({ name: 'ab', level: 7, mode: null, tags: ['x'], when: null });
    const withDefault: JsonSchema = { type: 'object', properties: { audible: { type: 'boolean', default: false } } };
    const empty = {};
    expect(validate(withDefault, empty)).toEqual([]);
    expect(empty).toEqual({});
  });

  it('names each problem with its path', () => {
    expect(validate(schema, {})).toEqual(['(arguments): name is required']);
    expect(validate(schema, { name: '' })).toEqual(['name: must not be empty']);
    expect(validate(schema, { name: 'abcde' })).toEqual(['name: must be at most 4 characters']);
    expect(validate(schema, { name: 'a', level: 1.5 })).toEqual(['level: expected integer, got number']);
    expect(validate(schema, { name: 'a', level: 101 })).toEqual(['level: must be at most 100']);
    expect(validate(schema, { name: 'a', mode: 'c' })).toEqual(['mode: must be one of "a", "b", null']);
    expect(validate(schema, { name: 'a', tags: [] })).toEqual(['tags: must have at least 1 items']);
    expect(validate(schema, { name: 'a', tags: ['x', 2] })).toEqual(['tags[1]: expected string, got integer']);
    expect(validate(schema, { name: 'a', when: 'soon' })).toEqual(['when: expected number or null, got string']);
    expect(validate(schema, { name: 'a', extra: 1 })).toEqual(['extra: unknown argument']);
    expect(validate(schema, [])).toEqual(['(arguments): expected object, got array']);
  });

  it('counts lengths in code points, as JSON Schema does', () => {
    const s: JsonSchema = { type: 'object', properties: { t: { type: 'string', maxLength: 2, minLength: 2 } } };
    expect('😀😀'.length).toBe(4); // UTF-16 units on Node; XS holds code points
    expect(validate(s, { t: '😀😀' })).toEqual([]);
    expect(validate(s, { t: '😀😀😀' })).toEqual(['t: must be at most 2 characters']);
    expect(validate(s, { t: 'é' })).toEqual(['t: must be at least 2 characters']);
  });

  it('applies a $ref beside the keywords next to it, with the paths of the value', () => {
    const s: JsonSchema = {
      $schema: DIALECT_2020,
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string', minLength: 1 } }, required: ['city'] } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address', required: ['street'] } },
      additionalProperties: false,
    };
    expect(validate(s, { name: 'n', address: { street: 's', city: 'c' } })).toEqual([]);
    expect(validate(s, { address: { street: 1 } })).toEqual(['address: city is required', 'address.street: expected string, got integer']);
    expect(validate(s, { address: { city: 'c' } })).toEqual(['address: street is required']);
    expect(validate(s, { address: 'home' })).toEqual(['address: expected object, got string']);
  });

  it('stops at MAX_ERRORS problems', () => {
    const many: JsonSchema = { type: 'object', additionalProperties: false };
    const value = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    expect(validate(many, value)).toHaveLength(MAX_ERRORS);
  });
});


const TYPE_NAMES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const;
function schemaArb(depth: number): fc.Arbitrary<JsonSchema> {
  const sub = depth > 0 ? schemaArb(depth - 1) : fc.constant({} as JsonSchema);
  return fc
    .record(
      {
        type: fc.oneof(fc.constantFrom(...TYPE_NAMES), fc.uniqueArray(fc.constantFrom(...TYPE_NAMES), { minLength: 1, maxLength: 3 })),
        properties: fc.dictionary(fc.constantFrom(...KEYS), sub, { maxKeys: 3 }),
        required: fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 3 }),
        additionalProperties: fc.oneof(fc.boolean(), sub),
        enum: fc.uniqueArray(leafValue, { minLength: 1, maxLength: 4, comparator: jsonEqual }),
        minimum: fc.integer({ min: -5, max: 5 }),
        maximum: fc.integer({ min: -5, max: 10 }),
        minLength: fc.nat(3),
        maxLength: fc.nat(4),
        items: sub,
        minItems: fc.nat(2),
        maxItems: fc.nat(3),
        description: fc.constant('doc'),
        default: leafValue,
      },
      { requiredKeys: [] },
    )
    .map((s) => s as JsonSchema);
}

describe('validate agrees with Ajv', () => {
  // About 3 s alone; a generous timeout, so a slow shared machine does not fail it.
  it('on random schemas of the subset and random values', { timeout: 60_000 }, () => {
    fc.assert(
      // Ajv compiles each schema (slow), so each schema meets several values.
      fc.property(schemaArb(2), fc.array(value, { minLength: 8, maxLength: 8 }), (schema, values) => {
        expect(checkSchema({ type: 'object', properties: { x: schema } })).toEqual([]);
        for (const v of values) sameVerdict(schema, v);
      }),
      { numRuns: 250 },
    );
  });

  it('on random schemas whose properties refer to $defs', { timeout: 60_000 }, () => {
    fc.assert(
      fc.property(schemaArb(1), schemaArb(1), fc.array(value, { minLength: 6, maxLength: 6 }), (a, b, values) => {
        const root: JsonSchema = { $schema: DIALECT_2020, type: 'object', $defs: { a, b }, properties: { a: { $ref: '#/$defs/a' }, b: { $ref: '#/$defs/b', ...b } } };
        expect(checkSchema(root)).toEqual([]);
        for (const v of values) {
          const arg = { a: v, b: v };
          const ours = validate(root, arg).length === 0;
          const theirs = laxAjv2020.validate(root, arg);
          if (ours !== theirs) throw new Error(`verdicts differ on ${JSON.stringify(arg)} against ${JSON.stringify(root)}: ours ${JSON.stringify(validate(root, arg))}`);
        }
      }),
      { numRuns: 150 },
    );
  });

});
