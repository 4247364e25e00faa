// The boot order computed from what subsystems declare (src/core/boot-order.ts):
// each mounts after what it needs, otherwise as listed; a missing need, a part
// provided twice or a circle of needs fails naming it; a late need is met once
// its part mounts, and read before that it throws naming it.
import { describe, expect, it } from 'vitest';
import { bootOrder, mountAll } from '../../../src/core/boot-order.ts';
import { whole, type Later, type Subsystem } from '../../../src/core/subsystem.ts';
import { testKernel } from '../../support/kernel.ts';

const made: string[] = [];

function part(name: string, needs: string[] = [], later: string[] = []): Subsystem<Record<string, unknown>, { name: string; got: Record<string, unknown> }> {
  return {
    name,
    needs,
    later,
    provides: { [name]: whole },
    start: (_k, o) => {
      made.push(name);
      return { provides: { name, got: o } };
    },
  };
}

describe('the boot order', () => {
  it('mounts each subsystem after what it needs, otherwise in the listed order', () => {
    const list = [part('a', ['c']), part('b'), part('c', ['given'])];
    expect(bootOrder(list, ['given']).map((s) => s.name)).toEqual(['b', 'c', 'a']);
  });

  it('hands each subsystem the parts it needs by name, and the boot\'s own parts', () => {
    made.length = 0;
    const { kernel } = testKernel();
    const parts = mountAll(kernel, [part('a', ['b', 'given']), part('b')], { given: 42 });
    expect(made).toEqual(['b', 'a']);
    const a = parts['a'] as { got: Record<string, unknown> };
    expect(a.got['given']).toBe(42);
    expect((a.got['b'] as { name: string }).name).toBe('b');
  });

  it('fails at boot naming a need nothing provides, a part provided twice, and a circle of needs', () => {
    expect(() => bootOrder([part('a', ['nobody'])])).toThrow('boot: a needs "nobody", which no subsystem provides');
    expect(() => bootOrder([part('a', [], ['nobody'])])).toThrow('boot: a needs "nobody", which no subsystem provides');
    expect(() => bootOrder([part('a'), { ...part('b'), provides: { a: whole } }])).toThrow('boot: "a" is provided by both a and b');
    expect(() => bootOrder([part('x'), part('a', ['b']), part('b', ['c']), part('c', ['a'])])).toThrow(
      'boot: circular need: a needs "b" (from b), b needs "c" (from c), c needs "a" (from a)',
    );
  });

  it('meets a late need once its part mounts: when() runs then, get() throws naming it before', () => {
    const { kernel } = testKernel();
    const seen: string[] = [];
    let early: unknown = null;
    const waiter: Subsystem<{ b: Later<{ name: string }> }, null> = {
      name: 'a',
      needs: [],
      later: ['b'],
      provides: {},
      start: (_k, o) => {
        try {
          o.b.get();
        } catch (e) {
          early = (e as Error).message;
        }
        o.b.when((b) => seen.push(`arrived ${b.name}`));
        return { provides: null };
      },
    };
    const parts = mountAll(kernel, [waiter, part('b')]);
    expect(early).toBe('a read "b" before it was mounted');
    expect(seen).toEqual(['arrived b']);
    expect(parts['b']).toMatchObject({ name: 'b' });
    // A late need does not order the boot: a circle through one is no circle.
    expect(bootOrder([part('a', [], ['b']), part('b', ['a'])]).map((s) => s.name)).toEqual(['a', 'b']);
  });
});
