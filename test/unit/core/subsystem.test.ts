// mount(): a subsystem's face registers its routes, commands, tools and status
// in one place, hands its face to what is mounted after it, and stops last
// mounted first.
import { describe, expect, it } from 'vitest';
import { mount, mounted, unmountAll, whole, type Subsystem } from '../../../src/core/subsystem.ts';
import { ok } from '../../../src/core/tools/types.ts';
import { testKernel } from '../../support/kernel.ts';

interface CounterFace {
  count(): number;
  bump(): void;
}

const stopped: string[] = [];

const counter: Subsystem<{ start: number }, CounterFace> = {
  name: 'counter',
  needs: [],
  provides: { counter: whole },
  start(k, o) {
    let n = o.start;
    const face = { count: () => n, bump: () => void n++ };
    return {
      provides: face,
      routes: [{ method: 'GET', path: '/api/count', access: 'open', handler: () => ({ status: 200, headers: {}, body: String(n) }) }],
      commands: [{ verb: 'COUNT?', maxArgs: 0, help: 'the count', run: (c) => c.out(`count=${n}`) }],
      tools: [{ name: 'counter.read', description: 'Reads the count.', schema: { type: 'object', properties: {}, additionalProperties: false }, access: 'open', where: 'both', handler: () => ok(String(n)) }],
      status: { fields: [['cnt', () => n]], sections: [() => ({ counter: { n } })] },
      stop: () => void stopped.push('counter'),
    };
  },
};

const doubler: Subsystem<{ counter: CounterFace }, { twice(): number }> = {
  name: 'doubler',
  needs: ['counter'],
  provides: { doubler: whole },
  start: (_k, o) => ({ provides: { twice: () => o.counter.count() * 2 }, stop: () => void stopped.push('doubler') }),
};

describe('mount', () => {
  it('registers what a face contributes and hands its face on', async () => {
    const { kernel } = testKernel();
    const c = mount(kernel, counter, { start: 4 });
    const d = mount(kernel, doubler, { counter: c });
    c.bump();
    expect(d.twice()).toBe(10);
    expect(kernel.router.list().some((r) => r.path === '/api/count')).toBe(true);
    expect(kernel.console.has('COUNT?')).toBe(true);
    expect(kernel.tools.get('counter.read')).toBeDefined();
    expect(kernel.status.line()).toBe('cnt=5');
    expect(kernel.status.snapshot()).toEqual({ counter: { n: 5 } });
    expect(mounted(kernel)).toEqual(['counter', 'doubler']);
    unmountAll(kernel);
    expect(stopped).toEqual(['doubler', 'counter']);
  });

  it('refuses a status field two subsystems both claim', () => {
    const { kernel } = testKernel();
    mount(kernel, counter, { start: 0 });
    expect(() => mount(kernel, counter, { start: 0 })).toThrow(/registered twice/);
  });
});
