import { describe, expect, it } from 'vitest';
import Ajv from 'ajv';
import fc from 'fast-check';
import { buildTurnSchema, turnSchemaText, type JsonSchema } from '../../../src/turn/schema.ts';
import { turnPromptDoc } from '../../../src/turn/promptdoc.ts';
import { parseTurn } from '../../../src/turn/parse.ts';
import { utf8Length } from '../../../src/util/utf8.ts';
import { CONFIG_KEY_NAMES } from '../../../src/contracts/device-contract.ts';

const schema = buildTurnSchema();

type Node = { path: string; name: string; schema: JsonSchema; depth: number };

/** Every property node of the schema, with its path and object depth (root properties are depth 0). */
function properties(s: JsonSchema, path = '', depth = 0, out: Node[] = []): Node[] {
  const props = s.properties as Record<string, JsonSchema> | undefined;
  if (props) {
    for (const [name, p] of Object.entries(props)) {
      out.push({ path: `${path}${name}`, name, schema: p, depth });
      properties(p, `${path}${name}.`, depth + 1, out);
    }
  }
  if (s.items) properties(s.items as JsonSchema, `${path}[].`, depth, out);
  return out;
}

/** Every object schema (root, property objects and item objects). */
function objects(s: JsonSchema, path = '$', out: { path: string; schema: JsonSchema }[] = []) {
  const types = ([] as unknown[]).concat(s.type);
  if (types.includes('object')) out.push({ path, schema: s });
  for (const [name, p] of Object.entries((s.properties as Record<string, JsonSchema>) ?? {})) objects(p, `${path}.${name}`, out);
  if (s.items) objects(s.items as JsonSchema, `${path}[]`, out);
  return out;
}

const typesOf = (s: JsonSchema): unknown[] => ([] as unknown[]).concat(s.type);

describe('wire schema', () => {
  it('compiles under Ajv strict mode', () => {
    const ajv = new Ajv({ strict: true });
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('lists every property in required and forbids additional properties, in every object', () => {
    const objs = objects(schema);
    expect(objs.length).toBeGreaterThan(10);
    for (const { path, schema: o } of objs) {
      expect(o.additionalProperties, path).toBe(false);
      expect([...(o.required as string[])].sort(), path).toEqual(Object.keys(o.properties as object).sort());
    }
  });

  it('makes every sub-field nullable; at the top only reply, memory and ask are plain strings', () => {
    for (const n of properties(schema)) {
      const t = typesOf(n.schema);
      if (n.depth === 0 && ['reply', 'memory', 'ask'].includes(n.name)) {
        expect(n.schema.type, n.path).toBe('string');
      } else {
        expect(t, n.path).toContain('null');
        expect(t.length, n.path).toBe(2);
      }
      if (n.schema.enum) expect(n.schema.enum as unknown[], n.path).toContain(null);
    }
  });

  it('does not make array items nullable', () => {
    const walk = (s: JsonSchema): void => {
      if (s.items) {
        expect(typesOf(s.items as JsonSchema)).not.toContain('null');
        walk(s.items as JsonSchema);
      }
      for (const p of Object.values((s.properties as Record<string, JsonSchema>) ?? {})) walk(p);
    };
    walk(schema);
  });

  it('uses only keywords strict dialects accept', () => {
    const allowed = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'description']);
    const walk = (s: JsonSchema, path: string): void => {
      for (const k of Object.keys(s)) expect(allowed.has(k), `${path}: ${k}`).toBe(true);
      for (const [n, p] of Object.entries((s.properties as Record<string, JsonSchema>) ?? {})) walk(p, `${path}.${n}`);
      if (s.items) walk(s.items as JsonSchema, `${path}[]`);
    };
    walk(schema, '$');
    walk(buildTurnSchema({ descriptions: true }), '$');
  });

  it('leaves the retired fields off the wire and offers spawn and terminate only', () => {
    const top = Object.keys(schema.properties as object);
    expect(top).toEqual(['reply', 'memory', 'ask', 'device', 'mem_write', 'mem_query', 'session_ops', 'scratchpad']);
    const op = properties(schema).find((n) => n.path === 'session_ops.[].op')!;
    expect(op.schema.enum).toEqual(['spawn', 'terminate', null]);
    expect(properties(schema).some((n) => n.name === 'message')).toBe(false);
  });

  it('shapes a device element as one nullable key per action kind', () => {
    const device = (schema.properties as Record<string, JsonSchema>).device!;
    const item = device.items as JsonSchema;
    expect(Object.keys(item.properties as object)).toEqual(['led', 'lights', 'config', 'orch_model', 'reboot', 'tts']);
    const config = (item.properties as Record<string, JsonSchema>).config!;
    expect(Object.keys(config.properties as object)).toEqual(CONFIG_KEY_NAMES);
  });

  it('is stable and serialized once', () => {
    expect(turnSchemaText()).toBe(JSON.stringify(buildTurnSchema()));
    expect(turnSchemaText()).toBe(turnSchemaText());
    const withDocs = buildTurnSchema({ descriptions: true });
    expect(typeof withDocs.description).toBe('string');
    expect(new Ajv({ strict: true }).validateSchema(withDocs)).toBe(true);
  });
});

// ---- instances generated from the schema ----------------------------------

const CAPS = [15, 23, 24, 39, 73, 79, 160, 240, 1200, 4095];
/** Strings rich in multi-byte characters, some long enough to straddle the caps. */
const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('', ' ', '  padded  ', 'spawn', 'terminate', 'weeks'),
  fc
    .tuple(fc.constantFrom('a', 'é', '€', '😀', '👩‍💻'), fc.constantFrom(...CAPS), fc.integer({ min: -2, max: 2 }))
    .map(([c, cap, d]) => c.repeat(Math.max(0, Math.ceil(cap / utf8Length(c)) + d))),
);

/** An arbitrary producing instances valid against the given schema node. */
function arbitraryFor(s: JsonSchema): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  const options = typesOf(s).map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'null':
        return fc.constant(null);
      case 'string':
        return text;
      case 'integer':
        return fc.oneof(fc.integer({ min: -5, max: 300 }), fc.integer());
      case 'number':
        return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ min: 0, max: 1, noNaN: true }));
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(arbitraryFor(s.items as JsonSchema), { maxLength: 9 });
      case 'object': {
        const props = s.properties as Record<string, JsonSchema>;
        const rec: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, p] of Object.entries(props)) rec[k] = arbitraryFor(p);
        return fc.record(rec);
      }
      default:
        throw new Error(`no arbitrary for type ${String(t)}`);
    }
  });
  // Favour the non-null branch so deep structures actually appear.
  return options.length === 1 ? options[0]! : fc.oneof({ arbitrary: options[0]!, weight: 3 }, { arbitrary: options[1]!, weight: 1 });
}

describe('schema-generated instances', () => {
  const validate = new Ajv({ strict: true }).compile(schema);
  const instances = arbitraryFor(schema);

  it('are valid against the schema and all parse with code Ok within the caps', () => {
    fc.assert(
      fc.property(instances, (inst) => {
        expect(validate(inst)).toBe(true);
        const r = parseTurn(JSON.stringify(inst));
        expect(r.code).toBe('Ok');
        if (r.code !== 'Ok') return;
        const t = r.turn;
        expect(utf8Length(t.memory)).toBeLessThanOrEqual(1200);
        for (const v of [t.mem_write, t.mem_query, t.session_ops, t.spawn, t.await]) expect(v.length).toBeLessThanOrEqual(6);
        for (const m of t.mem_write) {
          expect(m.content.length).toBeGreaterThan(0);
          expect(utf8Length(m.content)).toBeLessThanOrEqual(1200);
          expect(m.importance).toBeGreaterThanOrEqual(0);
          expect(m.importance).toBeLessThanOrEqual(1);
        }
        for (const q of t.mem_query) expect(utf8Length(q)).toBeLessThanOrEqual(4095);
        for (const o of t.session_ops) {
          expect(['spawn', 'terminate']).toContain(o.op);
          expect(utf8Length(o.id)).toBeLessThanOrEqual(15);
          expect(utf8Length(o.provider)).toBeLessThanOrEqual(15);
          expect(utf8Length(o.model)).toBeLessThanOrEqual(39);
          expect(utf8Length(o.skill)).toBeLessThanOrEqual(23);
          expect(utf8Length(o.name)).toBeLessThanOrEqual(23);
          expect(utf8Length(o.project)).toBeLessThanOrEqual(24);
          expect(utf8Length(o.task)).toBeLessThanOrEqual(4095);
          expect(o.attach.length).toBeLessThanOrEqual(4);
          for (const a of o.attach) expect(utf8Length(a)).toBeLessThanOrEqual(73);
        }
        if (t.scratchpad) {
          if (t.scratchpad.active !== null) expect(utf8Length(t.scratchpad.active)).toBeLessThanOrEqual(240);
          for (const tier of [t.scratchpad.short, t.scratchpad.mid, t.scratchpad.long]) {
            if (tier === null) continue;
            expect(tier.length).toBeLessThanOrEqual(8);
            for (const item of tier) expect(utf8Length(item)).toBeLessThanOrEqual(160);
          }
        }
        expect(t.device.length).toBe((inst as { device: unknown[] | null }).device?.length ?? 0);
      }),
      { numRuns: 400 },
    );
  });
});

describe('prompt field documentation', () => {
  const doc = turnPromptDoc();

  it('mentions every wire field and sub-field', () => {
    const names = new Set(properties(schema).map((n) => n.name));
    expect(names.size).toBeGreaterThan(40);
    for (const name of names) expect(doc, name).toMatch(new RegExp(`^\\s*${name}: `, 'm'));
  });

  it('documents every field on the wire and nothing else', () => {
    const documented = doc.split('\n').filter((l) => /^\s*[A-Za-z_]+: /.test(l) && !/^\s*each: /.test(l)).length;
    expect(documented).toBe(properties(schema).length);
    for (const retired of ['spawn', 'await', 'message']) expect(doc).not.toMatch(new RegExp(`^\\s*${retired}: `, 'm'));
  });

  it('states the caps, enums and defaults', () => {
    for (const s of ['1200 bytes', '4095 bytes', '240 bytes', '160 bytes', 'at most 6', 'at most 8', 'at most 4', 'default 0.5', 'default false', 'solid|spinner|pulse|flash|rainbow', 'session|days|weeks|months|permanent', 'spawn|terminate', 'openai|anthropic|mistral', 'integer 0 to 255']) {
      expect(doc).toContain(s);
    }
  });

  it('is deterministic and compact', () => {
    expect(turnPromptDoc()).toBe(doc);
    expect(utf8Length(doc)).toBeLessThan(5000);
  });
});
