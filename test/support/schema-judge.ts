// The judge of tool-argument validation: Ajv (strict for registered tool
// schemas, lax for random ones, its 2020-12 dialect where a schema names it),
// and fast-check values that hit the validator's interesting cases. Shared by
// test/unit/core/tool-validate.test.ts and test/unit/boot/tool-table.test.ts.
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { JsonSchema } from '../../src/core/tools/types.ts';
import { validate } from '../../src/core/tools/validate.ts';

// Registered tool schemas must pass Ajv's strict mode; random schemas leave
// out type on purpose (a keyword then applies only to values of its kind).
export const ajv = new Ajv({ strict: true, allowUnionTypes: true });
export const lax = new Ajv({ strict: false });
// Schemas that name JSON Schema 2020-12 ($schema) are judged by Ajv's 2020-12 dialect.
export const ajv2020 = new Ajv2020({ strict: true, allowUnionTypes: true });
export const DIALECT_2020 = 'https://json-schema.org/draft/2020-12/schema';
export const laxAjv2020 = new Ajv2020({ strict: false });
export const judgeOf = (schema: JsonSchema): Ajv | Ajv2020 => (schema.$schema === DIALECT_2020 ? ajv2020 : ajv);

export function sameVerdict(schema: JsonSchema, value: unknown, judge: Ajv | Ajv2020 = lax): void {
  const ours = validate(schema, value);
  const theirs = judge.validate(schema, value);
  if ((ours.length === 0) !== theirs) {
    throw new Error(`verdicts differ on ${JSON.stringify(value)} against ${JSON.stringify(schema)}: ours ${JSON.stringify(ours)}, ajv ${JSON.stringify(judge.errors)}`);
  }
}

// Values that hit the interesting cases: near-misses of the declared keys,
// astral characters and lone surrogates in strings, integers and fractions.
export const leafValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, 2, 2.5, -3, 100, 1e21, '', 'a', 'ab', 'abc', '😀', '😀😀x', '\ud800', 'é'),
  fc.string({ unit: 'binary', maxLength: 5 }),
  fc.integer({ min: -10, max: 10 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }),
);
export const KEYS = ['a', 'b', 'c', 'd'];
export const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leafValue,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('v'), { maxKeys: 4 }),
    fc.jsonValue({ maxDepth: 2 }),
  ),
})).v;
