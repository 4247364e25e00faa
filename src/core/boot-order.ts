// The boot order, computed: each subsystem declares the parts it needs and
// provides by name (src/core/subsystem.ts), and mountAll() mounts them in
// an order where every need is met first (a stable dependency sort, ties
// kept in the order they are listed), the way ESPHome orders components by
// what they declare. A need nothing provides, a part two subsystems
// provide, or a circle of needs fails at boot with a message naming it.
// Late needs (Later) are met after their subsystem mounts: read when it
// runs, or acted on when the part arrives; they do not order the boot.

import type { Kernel } from './kernel.ts';
import { mount, type AnySubsystem, type Later } from './subsystem.ts';

/** The parts mounted so far, by name (the boot's parts first). */
export type Parts = Record<string, unknown>;

function providersOf(list: readonly AnySubsystem[], given: readonly string[]): Map<string, string> {
  const by = new Map<string, string>();
  for (const name of given) by.set(name, 'the boot');
  for (const s of list) {
    for (const part of Object.keys(s.provides)) {
      const other = by.get(part);
      if (other !== undefined) throw new Error(`boot: "${part}" is provided by both ${other} and ${s.name}`);
      by.set(part, s.name);
    }
  }
  for (const s of list) {
    for (const need of [...s.needs, ...(s.later ?? [])]) {
      if (!by.has(need)) throw new Error(`boot: ${s.name} needs "${need}", which no subsystem provides`);
    }
  }
  return by;
}

/** One circle among the subsystems left unsorted, as "a needs x (from b), b needs y (from a)". */
function circle(left: readonly AnySubsystem[], by: Map<string, string>): string {
  const named = new Map(left.map((s) => [s.name, s]));
  const path: string[] = [];
  let at = left[0]!;
  while (!path.includes(at.name)) {
    path.push(at.name);
    const need = at.needs.find((n) => named.has(by.get(n)!))!;
    at = named.get(by.get(need)!)!;
  }
  const loop = path.slice(path.indexOf(at.name));
  return loop
    .map((name) => {
      const s = named.get(name)!;
      const need = s.needs.find((n) => named.has(by.get(n)!))!;
      return `${name} needs "${need}" (from ${by.get(need)})`;
    })
    .join(', ');
}

/**
 * The order to mount in: each subsystem after those providing what it needs now, otherwise as listed.
 * Throws naming a missing need, a part provided twice, or a circle of needs.
 */
export function bootOrder(list: readonly AnySubsystem[], given: readonly string[] = []): AnySubsystem[] {
  const by = providersOf(list, given);
  const done = new Set<string>(['the boot']);
  const order: AnySubsystem[] = [];
  let left = [...list];
  while (left.length > 0) {
    const next = left.find((s) => s.needs.every((n) => done.has(by.get(n)!)));
    if (!next) throw new Error(`boot: circular need: ${circle(left, by)}`);
    order.push(next);
    done.add(next.name);
    left = left.filter((s) => s !== next);
  }
  return order;
}

/** A late need: empty until set() gives it the part (mountAll, once the part's subsystem mounts; a test, likewise). */
export function latePart<T>(need: string, who: string): Later<T> & { set(value: T): void } {
  let part: { value: T } | null = null;
  const waiting: Array<(value: T) => void> = [];
  return {
    get() {
      if (!part) throw new Error(`${who} read "${need}" before it was mounted`);
      return part.value;
    },
    peek: () => part?.value ?? null,
    when(run) {
      if (part) run(part.value);
      else waiting.push(run);
    },
    set(value) {
      part = { value };
      for (const run of waiting.splice(0)) run(value);
    },
  };
}

/** Mounts the list in boot order on the kernel; returns every part by name, the given ones included. */
export function mountAll(kernel: Kernel, list: readonly AnySubsystem[], given: Parts = {}): Parts {
  const parts: Parts = { ...given };
  // Each late need, by the part it waits for, met as that part's subsystem mounts.
  const late = new Map<string, Array<{ set(value: unknown): void }>>();
  for (const s of bootOrder(list, Object.keys(given))) {
    const options: Record<string, unknown> = {};
    for (const need of s.needs) options[need] = parts[need];
    for (const need of s.later ?? []) {
      const cell = latePart<unknown>(need, s.name);
      if (need in parts) cell.set(parts[need]);
      else late.set(need, [...(late.get(need) ?? []), cell]);
      options[need] = cell;
    }
    const face = mount(kernel, s, options);
    for (const [part, take] of Object.entries(s.provides)) {
      parts[part] = take(face);
      for (const cell of late.get(part) ?? []) cell.set(parts[part]);
    }
  }
  return parts;
}
