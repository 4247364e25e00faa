import { describe, expect, it } from 'vitest';
import { emptyTurn, parseTurn, parseTurnValue } from '../../../src/turn/parse.ts';
import type { Turn } from '../../../src/contracts/index.ts';
import { utf8Length } from '../../../src/util/utf8.ts';

const BASE = { reply: 'hi', memory: 'mem', ask: '' };

function ok(extra: Record<string, unknown>): Turn {
  const r = parseTurn(JSON.stringify({ ...BASE, ...extra }));
  expect(r.code, r.detail).toBe('Ok');
  if (r.code !== 'Ok') throw new Error('not Ok');
  return r.turn;
}

function jsonMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('parsed');
}

// ---- byte caps with multi-byte characters ----------------------------------

const WIDE = [
  ['2-byte', 'é'],
  ['3-byte', '€'],
  ['4-byte', '😀'],
] as const;

/**
 * Cap cases for one field: a value exactly at the cap (kept whole), one with a
 * multi-byte character straddling the cap (cut before it, or dropped), and one
 * a byte over (cut back to the exact one).
 */
function capCases(cap: number): { name: string; input: string; capped: string }[] {
  const out: { name: string; input: string; capped: string }[] = [];
  for (const [label, ch] of WIDE) {
    const w = utf8Length(ch);
    const exact = 'a'.repeat(cap % w) + ch.repeat(Math.floor(cap / w));
    out.push({ name: `${label} exactly at ${cap}`, input: exact, capped: exact });
    if (cap >= w) {
      const head = 'a'.repeat(cap - w + 1);
      out.push({ name: `${label} straddling ${cap}`, input: head + ch + 'b', capped: head });
    }
    out.push({ name: `${label} one byte over ${cap}`, input: exact + 'z', capped: exact });
  }
  return out;
}

type CapRow = { field: string; cap: number; drop?: boolean; read: (text: string) => string | undefined };

const first = <T,>(a: T[]): T | undefined => a[0];
const op = (o: Record<string, unknown>) => ({ session_ops: [{ op: 'spawn', ...o }] });
const sp = (o: Record<string, unknown>) => ({ spawn: [{ task: 'do it', ...o }] });

const CAP_ROWS: CapRow[] = [
  { field: 'memory', cap: 1200, read: (s) => ok({ memory: s }).memory },
  { field: 'mem_write.content', cap: 1200, read: (s) => first(ok({ mem_write: [{ content: s }] }).mem_write)?.content },
  { field: 'mem_query[]', cap: 4095, read: (s) => first(ok({ mem_query: [s] }).mem_query) },
  { field: 'session_ops.id', cap: 15, read: (s) => first(ok(op({ op: 'terminate', id: s })).session_ops)?.id },
  { field: 'session_ops.task', cap: 4095, read: (s) => first(ok(op({ task: s })).session_ops)?.task },
  { field: 'session_ops.provider', cap: 15, read: (s) => first(ok(op({ provider: s })).session_ops)?.provider },
  { field: 'session_ops.model', cap: 39, read: (s) => first(ok(op({ model: s })).session_ops)?.model },
  { field: 'session_ops.skill', cap: 23, read: (s) => first(ok(op({ skill: s })).session_ops)?.skill },
  { field: 'session_ops.name', cap: 23, read: (s) => first(ok(op({ name: s })).session_ops)?.name },
  { field: 'session_ops.project', cap: 24, read: (s) => first(ok(op({ project: s })).session_ops)?.project },
  { field: 'session_ops.message', cap: 4095, read: (s) => first(ok({ session_ops: [{ op: 'tell', message: s }] }).session_ops)?.message },
  { field: 'session_ops.attach[]', cap: 73, drop: true, read: (s) => first(first(ok(op({ attach: [s] })).session_ops)!.attach) },
  { field: 'spawn.provider', cap: 15, read: (s) => first(ok(sp({ provider: s })).spawn)?.provider },
  { field: 'spawn.model', cap: 39, read: (s) => first(ok(sp({ model: s })).spawn)?.model },
  { field: 'spawn.skill', cap: 23, read: (s) => first(ok(sp({ skill: s })).spawn)?.skill },
  { field: 'spawn.task', cap: 4095, read: (s) => first(ok(sp({ task: s })).spawn)?.task },
  { field: 'spawn.name', cap: 23, read: (s) => first(ok(sp({ name: s })).spawn)?.name },
  { field: 'spawn.category', cap: 15, read: (s) => first(ok(sp({ category: s })).spawn)?.category },
  { field: 'spawn.note', cap: 79, read: (s) => first(ok(sp({ note: s })).spawn)?.note },
  { field: 'scratchpad.active', cap: 240, read: (s) => ok({ scratchpad: { active: s } }).scratchpad?.active ?? undefined },
  { field: 'scratchpad.short[]', cap: 160, read: (s) => first(ok({ scratchpad: { short: [s] } }).scratchpad!.short!) },
  { field: 'scratchpad.mid[]', cap: 160, read: (s) => first(ok({ scratchpad: { mid: [s] } }).scratchpad!.mid!) },
  { field: 'scratchpad.long[]', cap: 160, read: (s) => first(ok({ scratchpad: { long: [s] } }).scratchpad!.long!) },
  { field: 'await[]', cap: 15, read: (s) => first(ok({ await: [s] }).await) },
];

describe('byte caps (UTF-8-safe, multi-byte text at and around each cap)', () => {
  for (const row of CAP_ROWS) {
    describe(`${row.field} (${row.cap} bytes${row.drop ? ', over-long dropped' : ''})`, () => {
      for (const c of capCases(row.cap)) {
        it(c.name, () => {
          const got = row.read(c.input);
          if (row.drop && c.capped !== c.input) {
            expect(got).toBeUndefined();
          } else {
            expect(got).toBe(c.capped);
            expect(utf8Length(got!)).toBeLessThanOrEqual(row.cap);
          }
        });
      }
    });
  }

  it('leaves reply and ask uncapped', () => {
    const long = '😀'.repeat(50000);
    const t = ok({ reply: long, ask: long });
    expect(t.reply).toBe(long);
    expect(t.ask).toBe(long);
  });

  it('does not trim reply, memory or ask', () => {
    const t = ok({ reply: '  r  ', memory: ' m ', ask: '\n' });
    expect([t.reply, t.memory, t.ask]).toEqual(['  r  ', ' m ', '\n']);
  });
});

// ---- parse errors -----------------------------------------------------------

describe('parse errors', () => {
  const cases: { name: string; text: unknown; code: string; detail: string }[] = [
    ...['', '{', 'nul', '{"reply":}', '{"a":1,}', "{'reply':'x'}", '{"reply":"x"} trailing'].map((t) => ({
      name: `JsonError for ${JSON.stringify(t)}`,
      text: t,
      code: 'JsonError',
      detail: jsonMessage(t),
    })),
    { name: 'JsonError for a non-string input', text: 42, code: 'JsonError', detail: 'input is not a string' },
    { name: 'NotObject for an array', text: '[]', code: 'NotObject', detail: 'array' },
    { name: 'NotObject for null', text: 'null', code: 'NotObject', detail: 'null' },
    { name: 'NotObject for a number', text: '1', code: 'NotObject', detail: 'number' },
    { name: 'NotObject for a string', text: '"reply"', code: 'NotObject', detail: 'string' },
    { name: 'NotObject for a boolean', text: 'true', code: 'NotObject', detail: 'boolean' },
    { name: 'MissingField reply', text: '{"memory":"","ask":""}', code: 'MissingField', detail: 'reply' },
    { name: 'MissingField memory', text: '{"reply":"","ask":""}', code: 'MissingField', detail: 'memory' },
    { name: 'MissingField ask', text: '{"reply":"","memory":""}', code: 'MissingField', detail: 'ask' },
    { name: 'MissingField for an empty object (first missing key)', text: '{}', code: 'MissingField', detail: 'reply' },
    { name: 'WrongType reply null', text: '{"reply":null,"memory":"","ask":""}', code: 'WrongType', detail: 'reply' },
    { name: 'WrongType reply number', text: '{"reply":1,"memory":"","ask":""}', code: 'WrongType', detail: 'reply' },
    { name: 'WrongType memory array', text: '{"reply":"","memory":[],"ask":""}', code: 'WrongType', detail: 'memory' },
    { name: 'WrongType memory object', text: '{"reply":"","memory":{},"ask":""}', code: 'WrongType', detail: 'memory' },
    { name: 'WrongType ask boolean', text: '{"reply":"","memory":"","ask":false}', code: 'WrongType', detail: 'ask' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = parseTurn(c.text);
      expect(r.code).toBe(c.code);
      expect(r.detail).toBe(c.detail);
      expect(r.turn).toBeNull(); // output left cleared
    });
  }

  it('reports a JsonError detail that is the parser message (non-empty)', () => {
    const r = parseTurn('{"reply": "x",');
    expect(r.detail.length).toBeGreaterThan(0);
  });

  it('no array or scratchpad problem produces a parse error', () => {
    const junk = [null, 1, 'x', true, {}, [1, 'a', null, [], {}]];
    for (const j of junk) {
      for (const f of ['device', 'mem_write', 'mem_query', 'session_ops', 'scratchpad', 'spawn', 'await']) {
        expect(parseTurn(JSON.stringify({ ...BASE, [f]: j })).code).toBe('Ok');
      }
    }
  });

  it('Ok carries an empty detail; emptyTurn is the cleared value', () => {
    const r = parseTurn(JSON.stringify(BASE));
    expect(r.code).toBe('Ok');
    expect(r.detail).toBe('');
    const e = emptyTurn();
    expect({ ...ok({ reply: '', memory: '', ask: '' }) }).toEqual(e);
  });

  it('parseTurnValue reads an already-parsed value', () => {
    expect(parseTurnValue({ ...BASE }).code).toBe('Ok');
    expect(parseTurnValue([]).code).toBe('NotObject');
    expect(parseTurnValue({ reply: 'x' })).toEqual({ code: 'MissingField', detail: 'memory', turn: null });
  });
});

// ---- optional fields: absent, non-array, drop rules ------------------------

describe('optional fields', () => {
  it('default to empty when absent', () => {
    const t = ok({});
    expect(t).toMatchObject({ device: [], mem_write: [], mem_query: [], session_ops: [], scratchpad: null, spawn: [], await: [] });
  });

  const nonArrays = [null, 0, 1, 'x', '', true, false, {}, { a: [1] }];
  for (const f of ['device', 'mem_write', 'mem_query', 'session_ops', 'spawn', 'await'] as const) {
    it(`${f}: a present value that is not an array reads as empty`, () => {
      for (const v of nonArrays) expect(ok({ [f]: v })[f]).toEqual([]);
    });
  }

  it('ignores unknown top-level keys', () => {
    expect(ok({ extra: 1, mood: 'x' }).reply).toBe('hi');
  });
});

describe('device', () => {
  it('keeps objects as parsed JSON and drops non-objects', () => {
    const led = { led: { mode: 'pulse', color: { r: 1, g: 2, b: 3 }, brightness: null }, lights: null };
    const t = ok({ device: [led, 1, 'reboot', null, [led], true, { anything: 'goes' }] });
    expect(t.device).toEqual([led, { anything: 'goes' }]);
    expect(t.dropped.device).toBe(5);
  });

  it('has no vector cap of its own', () => {
    expect(ok({ device: Array.from({ length: 20 }, () => ({ reboot: true })) }).device).toHaveLength(20);
  });
});

describe('mem_write', () => {
  const mw = (item: unknown) => ok({ mem_write: [item] }).mem_write;

  const rows: { name: string; item: unknown; expected: unknown }[] = [
    { name: 'defaults importance 0.5, permanent false, ttl absent', item: { content: 'x' }, expected: [{ content: 'x', importance: 0.5, permanent: false }] },
    { name: 'all fields null read as defaults', item: { content: 'x', importance: null, permanent: null, ttl: null }, expected: [{ content: 'x', importance: 0.5, permanent: false }] },
    { name: 'integer importance', item: { content: 'x', importance: 1 }, expected: [{ content: 'x', importance: 1, permanent: false }] },
    { name: 'integer importance 0', item: { content: 'x', importance: 0 }, expected: [{ content: 'x', importance: 0, permanent: false }] },
    { name: 'float importance', item: { content: 'x', importance: 0.25 }, expected: [{ content: 'x', importance: 0.25, permanent: false }] },
    { name: 'importance clamped above', item: { content: 'x', importance: 7 }, expected: [{ content: 'x', importance: 1, permanent: false }] },
    { name: 'importance clamped below', item: { content: 'x', importance: -0.5 }, expected: [{ content: 'x', importance: 0, permanent: false }] },
    { name: 'string importance reads as default', item: { content: 'x', importance: '0.9' }, expected: [{ content: 'x', importance: 0.5, permanent: false }] },
    { name: 'boolean importance reads as default', item: { content: 'x', importance: true }, expected: [{ content: 'x', importance: 0.5, permanent: false }] },
    { name: 'permanent true', item: { content: 'x', permanent: true }, expected: [{ content: 'x', importance: 0.5, permanent: true }] },
    { name: 'non-boolean permanent reads as false', item: { content: 'x', permanent: 'true' }, expected: [{ content: 'x', importance: 0.5, permanent: false }] },
    ...['session', 'days', 'weeks', 'months', 'permanent'].map((ttl) => ({
      name: `ttl ${ttl}`,
      item: { content: 'x', ttl },
      expected: [{ content: 'x', importance: 0.5, permanent: false, ttl }],
    })),
    { name: 'ttl read without case or padding', item: { content: 'x', ttl: ' Months ' }, expected: [{ content: 'x', importance: 0.5, permanent: false, ttl: 'months' }] },
    { name: 'unknown ttl class ignored', item: { content: 'x', ttl: 'forever' }, expected: [{ content: 'x', importance: 0.5, permanent: false }] },
    { name: 'non-string ttl ignored', item: { content: 'x', ttl: 30 }, expected: [{ content: 'x', importance: 0.5, permanent: false }] },
    { name: 'content trimmed', item: { content: '  note  ' }, expected: [{ content: 'note', importance: 0.5, permanent: false }] },
    { name: 'missing content drops the item', item: { importance: 1 }, expected: [] },
    { name: 'empty content drops the item', item: { content: '' }, expected: [] },
    { name: 'blank content drops the item', item: { content: ' \n\t ' }, expected: [] },
    { name: 'non-string content drops the item', item: { content: 42 }, expected: [] },
    { name: 'null content drops the item', item: { content: null }, expected: [] },
    { name: 'non-object item dropped', item: 'remember this', expected: [] },
    { name: 'array item dropped', item: ['x'], expected: [] },
  ];
  for (const r of rows) it(r.name, () => expect(mw(r.item)).toEqual(r.expected));

  it('importance beyond the JSON number range clamps', () => {
    const r = parseTurn('{"reply":"","memory":"","ask":"","mem_write":[{"content":"a","importance":1e999},{"content":"b","importance":-1e999}]}');
    expect(r.turn!.mem_write.map((m) => m.importance)).toEqual([1, 0]);
  });
});

describe('vector caps of 6', () => {
  const seven = <T,>(f: (i: number) => T) => Array.from({ length: 7 }, (_, i) => f(i));
  const rows: { field: 'mem_write' | 'mem_query' | 'session_ops' | 'spawn' | 'await'; items: unknown[] }[] = [
    { field: 'mem_write', items: seven((i) => ({ content: `m${i}` })) },
    { field: 'mem_query', items: seven((i) => `q${i}`) },
    { field: 'session_ops', items: seven((i) => ({ op: 'terminate', id: `t${i}` })) },
    { field: 'spawn', items: seven((i) => ({ task: `t${i}` })) },
    { field: 'await', items: seven((i) => `t${i}`) },
  ];
  for (const r of rows) {
    it(`${r.field}: at most 6 kept, the first 6`, () => {
      const t = ok({ [r.field]: r.items });
      expect(t[r.field]).toHaveLength(6);
      expect(t.dropped[r.field]).toBe(1);
      expect(t[r.field]).toEqual(ok({ [r.field]: r.items.slice(0, 6) })[r.field]);
    });
    it(`${r.field}: exactly 6 all kept`, () => {
      expect(ok({ [r.field]: r.items.slice(0, 6) })[r.field]).toHaveLength(6);
    });
    it(`${r.field}: malformed items do not count towards the cap`, () => {
      const t = ok({ [r.field]: [7, null, ...r.items] });
      expect(t[r.field]).toHaveLength(6);
      expect(t.dropped[r.field]).toBe(3);
    });
  }
});

describe('mem_query', () => {
  it('trims, drops blank and non-string entries', () => {
    expect(ok({ mem_query: ['  coffee  ', '', '   ', 5, null, { q: 'x' }, ['y'], 'tea'] }).mem_query).toEqual(['coffee', 'tea']);
  });
});

describe('session_ops', () => {
  const ops = (items: unknown[]) => ok({ session_ops: items });
  const empty = { id: '', task: '', provider: '', model: '', skill: '', name: '', project: '', attach: [], message: '' };

  it('keeps spawn and terminate, with every key defaulted empty', () => {
    expect(ops([{ op: 'spawn' }, { op: 'terminate' }]).session_ops).toEqual([
      { op: 'spawn', ...empty },
      { op: 'terminate', ...empty },
    ]);
  });

  it('knows tell, poll and list as no-op kinds', () => {
    expect(ops([{ op: 'tell', id: 'a1', message: 'hurry' }, { op: 'poll' }, { op: 'list' }]).session_ops.map((o) => o.op)).toEqual([
      'tell',
      'poll',
      'list',
    ]);
    expect(ops([{ op: 'tell', id: 'a1', message: 'hurry' }]).session_ops[0]!.message).toBe('hurry');
  });

  it('reads op without case or padding', () => {
    expect(ops([{ op: ' Spawn ' }]).session_ops[0]!.op).toBe('spawn');
  });

  it('drops unknown ops and records their names for the refusal', () => {
    const t = ops([{ op: 'dance' }, { op: 'await' }, { op: 'spawn' }]);
    expect(t.session_ops).toHaveLength(1);
    expect(t.unknownOps).toEqual(['dance', 'await']);
    expect(t.dropped.session_ops).toBe(2);
  });

  it('caps a recorded unknown op name at 15 bytes', () => {
    expect(ops([{ op: 'x'.repeat(40) }]).unknownOps).toEqual(['x'.repeat(15)]);
  });

  it('drops items with a missing, null, empty or non-string op, and non-objects', () => {
    const t = ops([{}, { op: null }, { op: '' }, { op: 3 }, { op: ['spawn'] }, 'spawn', null, 7]);
    expect(t.session_ops).toEqual([]);
    expect(t.unknownOps).toEqual([]);
    expect(t.dropped.session_ops).toBe(8);
  });

  it('reads null and non-string keys as empty', () => {
    const t = ops([{ op: 'spawn', id: null, task: 5, provider: false, model: {}, skill: [], name: null, project: 1, attach: null, message: null }]);
    expect(t.session_ops[0]).toEqual({ op: 'spawn', ...empty });
  });

  it('lowercases provider; empty provider means the device resolves by priority', () => {
    expect(ops([{ op: 'spawn', provider: 'OpenAI' }]).session_ops[0]!.provider).toBe('openai');
    expect(ops([{ op: 'spawn', provider: '  ' }]).session_ops[0]!.provider).toBe('');
  });

  it('trims string keys', () => {
    expect(ops([{ op: 'spawn', task: '  research X  ', name: ' n ' }]).session_ops[0]).toMatchObject({ task: 'research X', name: 'n' });
  });

  describe('attach', () => {
    const attach = (a: unknown) => ops([{ op: 'spawn', attach: a }]).session_ops[0]!.attach;
    it('keeps up to 4 refs', () => {
      expect(attach(['p/a', 'p/b', 'p/c', 'p/d', 'p/e'])).toEqual(['p/a', 'p/b', 'p/c', 'p/d']);
    });
    it('drops non-strings and blanks (not counted towards 4)', () => {
      expect(attach([1, 'p/a', null, '', 'p/b', {}, 'p/c', 'p/d', 'p/e'])).toEqual(['p/a', 'p/b', 'p/c', 'p/d']);
    });
    it('drops a ref over 73 bytes rather than cutting it', () => {
      const at = 'p/' + 'x'.repeat(71);
      expect(attach([at, at + 'y', 'p/€'.padEnd(74, 'x')])).toEqual([at]);
    });
    it('a non-array reads as empty', () => {
      for (const v of ['p/a', 5, {}, null]) expect(attach(v)).toEqual([]);
    });
  });
});

describe('spawn (retired, still parsed)', () => {
  const spawn = (items: unknown[]) => ok({ spawn: items }).spawn;
  it('applies the defaults', () => {
    expect(spawn([{ task: 'find X' }])).toEqual([
      { provider: '', model: '', skill: '', task: 'find X', name: '', category: 'research', note: 'On it.' },
    ]);
  });
  it('keeps given values and lowercases provider', () => {
    expect(spawn([{ task: 't', provider: 'Mistral', model: 'm', skill: 's', name: 'n', category: 'code', note: 'ok' }])).toEqual([
      { provider: 'mistral', model: 'm', skill: 's', task: 't', name: 'n', category: 'code', note: 'ok' },
    ]);
  });
  it('empty or non-string category and note take the defaults', () => {
    expect(spawn([{ task: 't', category: '', note: 5 }])[0]).toMatchObject({ category: 'research', note: 'On it.' });
  });
  for (const [name, item] of [
    ['missing task', {}],
    ['null task', { task: null }],
    ['non-string task', { task: 12 }],
    ['empty task', { task: '' }],
    ['blank task', { task: '   ' }],
    ['non-object', 'do it'],
  ] as const) {
    it(`drops an item with ${name}`, () => expect(spawn([item])).toEqual([]));
  }
});

describe('await (retired, still parsed)', () => {
  it('trims and drops blank and non-string entries', () => {
    expect(ok({ await: [' a1 ', '', '  ', 3, null, 'b2'] }).await).toEqual(['a1', 'b2']);
  });
});

describe('scratchpad', () => {
  const sp = (v: unknown) => ok({ scratchpad: v }).scratchpad;
  const none = { active: null, short: null, mid: null, long: null };

  for (const [name, v] of [
    ['absent', undefined],
    ['null', null],
    ['a string', 'x'],
    ['a number', 3],
    ['an array', [{ active: 'x' }]],
    ['a boolean', true],
  ] as const) {
    it(`${name} whole field means no change`, () => expect(sp(v)).toBeNull());
  }

  it('an object with nothing set changes nothing', () => {
    expect(sp({})).toEqual(none);
    expect(sp({ active: null, short: null, mid: null, long: null })).toEqual(none);
  });

  it('a string active sets the line (trimmed); empty clears it', () => {
    expect(sp({ active: '  writing report ' })!.active).toBe('writing report');
    expect(sp({ active: '' })!.active).toBe('');
  });

  it('a non-string active leaves it unchanged', () => {
    for (const v of [5, true, ['x'], { a: 1 }]) expect(sp({ active: v })!.active).toBeNull();
  });

  it('a tier array replaces the tier: at most 8 items, blanks and non-strings dropped, items trimmed', () => {
    const items = [' one ', '', 2, null, '  ', 'two', ...Array.from({ length: 10 }, (_, i) => `i${i}`)];
    expect(sp({ short: items })!.short).toEqual(['one', 'two', 'i0', 'i1', 'i2', 'i3', 'i4', 'i5']);
  });

  it('an empty tier array clears the tier; a null tier is unchanged', () => {
    expect(sp({ short: [], mid: null })).toEqual({ ...none, short: [] });
  });

  it('a present tier that is neither array nor null leaves the tier unchanged (no data loss)', () => {
    for (const v of ['x', 5, { a: 'b' }, true]) expect(sp({ long: v })).toEqual(none);
  });

  it('each tier is read independently', () => {
    expect(sp({ active: 'a', short: ['s'], mid: ['m'], long: ['l'] })).toEqual({ active: 'a', short: ['s'], mid: ['m'], long: ['l'] });
  });
});

describe('backward compatibility', () => {
  it('the old six-field turn validates', () => {
    const old = {
      reply: 'Looking into it.',
      memory: 'user wants a summary',
      ask: '',
      device: [{ led: { mode: 'spinner', color: { r: 0, g: 0, b: 255 }, brightness: 80 } }],
      spawn: [{ provider: 'anthropic', task: 'summarize the report', name: 'summary' }],
      await: ['a1b2'],
    };
    const t = ok(old);
    expect(t.device).toEqual(old.device);
    expect(t.spawn).toEqual([
      { provider: 'anthropic', model: '', skill: '', task: 'summarize the report', name: 'summary', category: 'research', note: 'On it.' },
    ]);
    expect(t.await).toEqual(['a1b2']);
  });

  it('the three required strings alone validate', () => {
    expect(ok({})).toMatchObject(BASE);
  });
});
