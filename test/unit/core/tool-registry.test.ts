// The tool registry: registration rules, who is offered what (admin, where,
// unattended and scheduled turns, availability), dispatch that never throws,
// provider names (sanitized, reg_ before a provider built-in, reversed by
// lookup) and the tool panel.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROVIDER_BUILTIN_NAMES, sanitizeToolName } from '../../../src/core/tools/names.ts';
import { ToolRegistry } from '../../../src/core/tools/registry.ts';
import { fail, ok, type ToolCaller, type ToolSpec } from '../../../src/core/tools/types.ts';

const OWNER_TURN: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };
const GUEST_TURN: ToolCaller = { via: 'turn', admin: false, scheduled: false, unattended: false, person: '42' };
const MCP: ToolCaller = { via: 'mcp', admin: true, scheduled: false, unattended: false, person: null };
const SYNTHESIS: ToolCaller = { ...OWNER_TURN, unattended: true };
const ROUTINE: ToolCaller = { ...OWNER_TURN, scheduled: true, unattended: true };

function tool(name: string, extra: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name,
    description: `the ${name} tool`,
    schema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, additionalProperties: false },
    access: 'open',
    where: 'both',
    handler: (args) => ok(`ran ${name} with ${JSON.stringify(args)}`),
    ...extra,
  };
}

function registry(...specs: ToolSpec[]): { reg: ToolRegistry; errors: string[] } {
  const errors: string[] = [];
  const reg = new ToolRegistry((m) => errors.push(m));
  for (const s of specs) reg.register(s);
  return { reg, errors };
}

const names = (reg: ToolRegistry, caller: ToolCaller): string[] => reg.list(caller).map((t) => t.name);

describe('registration', () => {
  it('refuses malformed and duplicate names, colliding provider names and schemas outside the subset', () => {
    const { reg } = registry(tool('memory.write'));
    expect(() => reg.register(tool('memory.write'))).toThrow(/registered twice/);
    expect(() => reg.register(tool('Memory.Read'))).toThrow(/lowercase dotted/);
    expect(() => reg.register(tool('memory..x'))).toThrow(/lowercase dotted/);
    expect(() => reg.register(tool('memory_write'))).toThrow(/already taken by memory.write/);
    expect(() => reg.register(tool(`a.${'x'.repeat(70)}`))).toThrow(/longer than 64/);
    expect(() => reg.register(tool('bad.schema', { schema: { type: 'object', properties: { p: { format: 'uri' } } } }))).toThrow(/format is not supported/);
    expect(() => reg.register(tool('bad.root', { schema: { type: 'array' } }))).toThrow(/must be \{"type": "object"/);
    expect(reg.all().map((t) => t.name)).toEqual(['memory.write']);
  });
});

describe('who is offered what, and dispatch re-checks it', () => {
  const { reg } = registry(
    tool('memory.search'),
    tool('memory.scratchpad', { access: 'admin' }),
    tool('files.send', { where: 'turn' }),
    tool('session.tell', { where: 'mcp' }),
    tool('skill.save', { access: 'admin', unattended: false }),
    tool('loop.create', { access: 'admin', scheduled: false }),
    tool('web.search', { available: () => false }),
  );

  it('never offers an admin-only tool to a non-admin, and refuses it at dispatch', async () => {
    expect(names(reg, GUEST_TURN)).toEqual(['files.send', 'memory.search']);
    expect(names(reg, OWNER_TURN)).toEqual(['files.send', 'loop.create', 'memory.scratchpad', 'memory.search', 'skill.save']);
    const r = await reg.call('memory.scratchpad', {}, GUEST_TURN);
    expect(r).toEqual(fail('forbidden', 'memory.scratchpad is for admins only.'));
    expect((await reg.call('memory.scratchpad', {}, OWNER_TURN)).success).toBe(true);
  });

  it('offers turn-only tools in turns and /mcp-only tools over /mcp, nowhere else', async () => {
    expect(names(reg, MCP)).toEqual(['loop.create', 'memory.scratchpad', 'memory.search', 'session.tell', 'skill.save']);
    expect((await reg.call('files.send', {}, MCP)).error_type).toBe('not-here');
    expect((await reg.call('session.tell', {}, OWNER_TURN)).error_type).toBe('not-here');
  });

  it('refuses unattended-unsafe tools in synthesis and scheduled turns, scheduled-unsafe ones in scheduled turns', async () => {
    expect(names(reg, SYNTHESIS)).toEqual(['files.send', 'loop.create', 'memory.scratchpad', 'memory.search']);
    expect(names(reg, ROUTINE)).toEqual(['files.send', 'memory.scratchpad', 'memory.search']);
    expect((await reg.call('skill.save', {}, SYNTHESIS)).error_type).toBe('unattended');
    expect((await reg.call('loop.create', {}, ROUTINE)).error).toBe('loop.create is refused in scheduled turns.');
    expect((await reg.call('loop.create', {}, SYNTHESIS)).success).toBe(true);
    // A caller marked scheduled is unattended whatever its other flag says.
    expect((await reg.call('skill.save', {}, { ...OWNER_TURN, scheduled: true })).error_type).toBe('unattended');
  });

  it('hides an unavailable tool and refuses it', async () => {
    expect(names(reg, OWNER_TURN)).not.toContain('web.search');
    expect((await reg.call('web.search', {}, OWNER_TURN)).error_type).toBe('unavailable');
  });
});

describe('dispatch', () => {
  it('validates arguments against the schema and changes nothing on a bad one', async () => {
    let runs = 0;
    const { reg } = registry(tool('device.count', { handler: () => (runs++, ok('counted')) }));
    expect(await reg.call('device.count', { n: -1 }, OWNER_TURN)).toEqual(fail('bad-arguments', 'device.count: n: must be at least 0.'));
    expect(await reg.call('device.count', { x: 1 }, OWNER_TURN)).toEqual(fail('bad-arguments', 'device.count: x: unknown argument.'));
    expect(await reg.call('device.count', [1], OWNER_TURN)).toEqual(fail('bad-arguments', 'device.count: the arguments must be a JSON object.'));
    expect(runs).toBe(0);
    expect(await reg.call('device.count', undefined, OWNER_TURN)).toEqual(ok('counted'));
    expect(runs).toBe(1);
  });

  it('turns a throwing, rejecting or malformed handler into an error result', async () => {
    const { reg, errors } = registry(
      tool('x.throws', { handler: () => { throw new Error('boom'); } }),
      tool('x.rejects', { handler: () => Promise.reject(new Error('late boom')) }),
      tool('x.malformed', { handler: () => ({ success: 'yes' }) as never }),
    );
    expect(await reg.call('x.throws', {}, OWNER_TURN)).toEqual(fail('internal', 'x.throws failed: boom'));
    expect(await reg.call('x.rejects', {}, OWNER_TURN)).toEqual(fail('internal', 'x.rejects failed: late boom'));
    expect(await reg.call('x.malformed', {}, OWNER_TURN)).toEqual(fail('internal', 'x.malformed failed: it returned no result.'));
    expect(errors).toEqual(['tool x.throws threw: boom', 'tool x.rejects threw: late boom', 'tool x.malformed returned a malformed result']);
  });

  it('answers an unknown tool with unknown-tool', async () => {
    const { reg } = registry(tool('memory.write'));
    expect(await reg.call('memory.erase', {}, OWNER_TURN)).toEqual(fail('unknown-tool', 'No tool is named "memory.erase".'));
  });
});

describe('provider names', () => {
  it('turns dots into underscores and prefixes reg_ before a provider built-in', () => {
    expect(sanitizeToolName('memory.write')).toBe('memory_write');
    expect(sanitizeToolName('tenant.set_role')).toBe('tenant_set_role');
    expect(sanitizeToolName('web.search')).toBe('reg_web_search');
    expect(sanitizeToolName('memory')).toBe('reg_memory');
    expect(sanitizeToolName('code.interpreter')).toBe('reg_code_interpreter');
    expect(PROVIDER_BUILTIN_NAMES).toContain('orch_turn');
  });


  it('dispatches a call made by provider name, reg_ prefixed or case-folded', async () => {
    const { reg } = registry(tool('web.search'), tool('tenant.set_role'));
    expect(reg.providerName('web.search')).toBe('reg_web_search');
    expect(reg.restoreName('reg_web_search')).toBe('web.search');
    expect(reg.restoreName('REG_WEB_SEARCH')).toBe('web.search');
    expect(reg.restoreName('web_search')).toBeNull(); // the provider's own tool, never ours
    expect(reg.restoreName('tenant_set_role')).toBe('tenant.set_role');
    expect((await reg.call('reg_web_search', { n: 1 }, OWNER_TURN)).output).toBe('ran web.search with {"n":1}');
  });

  it('round-trips any valid set of names, or refuses the colliding one at registration', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);
    const name = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join('.'));
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 12 }), (list) => {
        const reg = new ToolRegistry();
        const kept: string[] = [];
        for (const n of list) {
          try {
            reg.register(tool(n));
            kept.push(n);
          } catch (e) {
            expect(String(e)).toMatch(/already taken/);
          }
        }
        for (const n of kept) expect(reg.restoreName(reg.providerName(n)!)).toBe(n);
      }),
    );
  });
});

describe('the tool panel', () => {
  it('tags each tool Orchestrator, Sub-agents or Unavailable', () => {
    const { reg } = registry(tool('memory.write'), tool('web.search', { available: () => false }), tool('results.get', { runsOn: 'Sub-agents' }), tool('loop.create', { access: 'admin', scheduled: false }));
    expect(reg.panel()).toEqual([
      { name: 'loop.create', providerName: 'loop_create', description: 'the loop.create tool', access: 'admin', where: 'both', unattended: true, scheduled: false, runsOn: 'Orchestrator' },
      { name: 'memory.write', providerName: 'memory_write', description: 'the memory.write tool', access: 'open', where: 'both', unattended: true, scheduled: true, runsOn: 'Orchestrator' },
      { name: 'results.get', providerName: 'results_get', description: 'the results.get tool', access: 'open', where: 'both', unattended: true, scheduled: true, runsOn: 'Sub-agents' },
      { name: 'web.search', providerName: 'reg_web_search', description: 'the web.search tool', access: 'open', where: 'both', unattended: true, scheduled: true, runsOn: 'Unavailable' },
    ]);
  });
});
