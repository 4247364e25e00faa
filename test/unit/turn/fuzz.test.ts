// Property tests: nothing makes the parser or the action validator throw, and
// every parse result is one of the five codes with the output cleared on failure.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTurn, parseTurnValue } from '../../../src/turn/parse.ts';
import { validateAction, validateActions } from '../../../src/contracts/device-actions.ts';
import type { ParseResult } from '../../../src/contracts/index.ts';

const CODES = ['Ok', 'JsonError', 'NotObject', 'MissingField', 'WrongType'];

function wellFormed(r: ParseResult): void {
  expect(CODES).toContain(r.code);
  expect(typeof r.detail).toBe('string');
  if (r.code === 'Ok') expect(r.turn).not.toBeNull();
  else expect(r.turn).toBeNull();
}

const FIELDS = ['device', 'mem_write', 'mem_query', 'session_ops', 'scratchpad', 'spawn', 'await'];
/** Values shaped roughly like turn fields, with junk mixed in at every level. */
const fieldish = fc.letrec((tie) => ({
  value: fc.oneof(
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 3 },
    { arbitrary: fc.array(tie('item'), { maxLength: 10 }), weight: 3 },
    { arbitrary: tie('item'), weight: 1 },
  ),
  item: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.dictionary(
      fc.constantFrom('op', 'content', 'task', 'attach', 'active', 'short', 'ttl', 'importance', 'permanent', 'id', 'provider', 'led', 'config', 'x'),
      fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ unit: 'binary' })),
      { maxKeys: 6 },
    ),
  ),
}));

describe('parseTurn never throws', () => {
  it('on random JSON text', () => {
    fc.assert(fc.property(fc.json(), (t) => wellFormed(parseTurn(t))), { numRuns: 2000 });
  });

  it('on random strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (t) => wellFormed(parseTurn(t))),
      { numRuns: 2000 },
    );
  });

  it('on anything at all, as text or as a value', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        wellFormed(parseTurn(v));
        wellFormed(parseTurnValue(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('on random objects with the three required strings: always Ok', () => {
    const turn = fc.record(
      {
        reply: fc.string(),
        memory: fc.string({ unit: 'grapheme', maxLength: 2000 }),
        ask: fc.string(),
        ...Object.fromEntries(FIELDS.map((f) => [f, fieldish.value])),
      },
      { requiredKeys: ['reply', 'memory', 'ask'] },
    );
    fc.assert(
      fc.property(turn, (t) => {
        const r = parseTurn(JSON.stringify(t));
        expect(r.code).toBe('Ok');
        wellFormed(r);
      }),
      { numRuns: 2000 },
    );
  });

  it('on random objects missing or mistyping a required field: the matching error', () => {
    const v = fc.record({ reply: fc.jsonValue(), memory: fc.jsonValue(), ask: fc.jsonValue() }, { requiredKeys: [] });
    fc.assert(
      fc.property(v, (t) => {
        const r = parseTurn(JSON.stringify(t));
        wellFormed(r);
        const bad = (['reply', 'memory', 'ask'] as const).find((k) => typeof t[k] !== 'string');
        if (bad === undefined) expect(r.code).toBe('Ok');
        else {
          expect(r.code).toBe(t[bad] === undefined ? 'MissingField' : 'WrongType');
          expect(r.detail).toBe(bad);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('validateAction never throws', () => {
  it('on anything, and always answers ok or a reason', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fieldish.item, fc.dictionary(fc.constantFrom('led', 'lights', 'config', 'orch_model', 'reboot', 'tts'), fieldish.item, { maxKeys: 3 })), (v) => {
        const r = validateAction(v);
        if (!r.ok) expect(typeof r.reason).toBe('string');
      }),
      { numRuns: 3000 },
    );
  });

  it('over whole device lists', () => {
    fc.assert(
      fc.property(fc.array(fc.anything(), { maxLength: 8 }), (items) => {
        const r = validateActions(items);
        expect(r.actions.length + r.refused.length).toBe(items.length);
      }),
    );
  });
});
