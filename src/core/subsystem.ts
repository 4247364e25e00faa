// A subsystem's one face, and mount(): the single place where what a
// subsystem contributes (routes, console commands, tools, status) is
// registered. A subsystem declares by name the parts it needs (one options
// object, the ECMA-419 manner), those it needs only once running (late, each
// a Later), and those it provides; src/core/boot-order.ts computes the boot
// order from those names (docs/architecture.md).

import type { Command } from './console.ts';
import type { Kernel } from './kernel.ts';
import type { Gate, Route } from './router.ts';
import type { StateSection, StatusField } from './status.ts';
import type { ToolSpec } from './tools/types.ts';

/** What a started subsystem hands to mount(). Every part but provides is optional. */
export interface Mounted<Face> {
  /** What later subsystems receive (through their options objects). */
  provides: Face;
  routes?: Route[];
  commands?: Command[];
  tools?: ToolSpec[];
  /** Status line fields (key=value) and state snapshot sections (GET /api/state). */
  status?: { fields?: Array<[string, StatusField]>; sections?: StateSection[]; layout?: readonly string[] };
  /** The router's token gate (only the subsystem that owns the token gives one). */
  gate?: Gate;
  /** Stops timers and closes what it opened (shutdown, tests). */
  stop?(): void;
}

/**
 * A part met after the subsystem needing it has mounted (a late need): get() reads it once the device runs (it
 * throws, naming it, if read before its subsystem mounted); when() runs at once if it is there, else as soon as
 * its subsystem mounts, within the boot.
 */
export interface Later<T> {
  get(): T;
  /** The part if its subsystem has mounted, else null (a need the subsystem can do without until then). */
  peek(): T | null;
  when(run: (value: T) => void): void;
}

/** A late need already met: what a test hands a subsystem it mounts alone. */
export function ready<T>(value: T): Later<T> {
  return { get: () => value, peek: () => value, when: (run) => run(value) };
}

type Name<Options> = keyof Options & string;

export interface Subsystem<Options, Face> {
  readonly name: string;
  /** The parts it needs before it mounts, by name: each is a key of its options. */
  readonly needs: readonly Name<Options>[];
  /** The parts it needs only once running or as they arrive (each option a Later): these do not order the boot. */
  readonly later?: readonly Name<Options>[];
  /** The parts it provides, by name, each taken from its face. */
  readonly provides: Readonly<Record<string, (face: Face) => unknown>>;
  start(kernel: Kernel, options: Options): Mounted<Face>;
}

/** Any subsystem, as a boot list holds them (their types meet by name in src/main.ts's Parts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySubsystem = Subsystem<any, any>;

/** The face whole, as one part (provides: { memory: whole }). */
export const whole = <Face>(face: Face): Face => face;

/** What a kernel remembers of what it mounted: names in boot order, and how to stop them. */
export interface Mounts {
  names: string[];
  stops: Array<() => void>;
}

const MOUNTS = Symbol('mounts');

function mountsOf(kernel: Kernel): Mounts {
  const k = kernel as Kernel & { [MOUNTS]?: Mounts };
  return (k[MOUNTS] ??= { names: [], stops: [] });
}

/** Starts a subsystem and registers everything it contributes, in one loop each; returns its face. */
export function mount<Options, Face>(kernel: Kernel, subsystem: Subsystem<Options, Face>, options: NoInfer<Options>): Face {
  const m = subsystem.start(kernel, options);
  for (const r of m.routes ?? []) kernel.router.add(r);
  for (const c of m.commands ?? []) kernel.console.register(c);
  for (const t of m.tools ?? []) kernel.tools.register(t);
  for (const [key, f] of m.status?.fields ?? []) kernel.status.field(key, f);
  for (const s of m.status?.sections ?? []) kernel.status.section(s);
  // The subsystem that lays out the status leads the snapshot with its own sections.
  if (m.status?.layout) kernel.status.layout(m.status.layout, m.status.sections ?? []);
  if (m.gate) kernel.router.guard(m.gate);
  const mounts = mountsOf(kernel);
  mounts.names.push(subsystem.name);
  if (m.stop) mounts.stops.push(m.stop);
  return m.provides;
}

/** The subsystems mounted so far, in boot order. */
export function mounted(kernel: Kernel): readonly string[] {
  return mountsOf(kernel).names;
}

/** Stops every mounted subsystem, the last mounted first. */
export function unmountAll(kernel: Kernel): void {
  const mounts = mountsOf(kernel);
  for (const stop of mounts.stops.splice(0).reverse()) stop();
}
