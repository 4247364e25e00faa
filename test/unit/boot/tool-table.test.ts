// Boots the whole device: these check every tool the firmware registers, across all its subsystems.
// The whole tool table: every registered tool's schema passes Ajv's strict
// mode and our validator gives Ajv's verdict on values shaped like its
// arguments; every tool's provider name is valid, not a provider built-in's,
// and leads back to it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROVIDER_BUILTIN_NAMES, PROVIDER_NAME_RE } from '../../../src/core/tools/names.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { boot } from '../../../src/main.ts';
import { createMemHal } from '../../support/memhal.ts';
import { judgeOf, sameVerdict, value } from '../../support/schema-judge.ts';

const OWNER_TURN: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: false, person: null };

describe('the whole tool table', () => {
  it('validate agrees with Ajv on every registered tool schema, with values shaped like its arguments', () => {
    const device = boot(createMemHal().hal);
    const tools = device.ctx.tools.all();
    expect(tools.length).toBeGreaterThanOrEqual(10);
    for (const tool of tools) {
      const judge = judgeOf(tool.schema);
      expect(judge.validateSchema(tool.schema), tool.name).toBe(true);
      const props = Object.keys((tool.schema.properties ?? {}) as Record<string, unknown>);
      const keys = fc.constantFrom(...props, 'other');
      const args = fc.oneof(value, fc.dictionary(keys, value, { maxKeys: props.length + 1 }));
      fc.assert(fc.property(args, (v) => sameVerdict(tool.schema, v, judge)), { numRuns: 300 });
    }
  }, 60_000);

  it('round-trips every tool of the firmware, and each name is valid for providers', async () => {
    const device = boot(createMemHal().hal);
    for (const t of device.ctx.tools.all()) {
      const p = device.ctx.tools.providerName(t.name)!;
      expect(p).toMatch(PROVIDER_NAME_RE);
      expect(PROVIDER_BUILTIN_NAMES).not.toContain(p.toLowerCase());
      expect(device.ctx.tools.restoreName(p)).toBe(t.name);
      expect(device.ctx.tools.restoreName(t.name)).toBe(t.name);
    }
    expect(device.ctx.tools.list(OWNER_TURN).find((t) => t.name === 'device.status')?.providerName).toBe('device_status');
  });
});
