// A subsystem's one face, and mount(): the single place where what a
// subsystem contributes (routes, console commands, tools, status) is
// registered. A subsystem declares what it needs as one options object (the
// ECMA-419 manner) and returns what it provides to the subsystems mounted
// after it; main.ts mounts them in boot order (docs/architecture.md).

import type { Command } from './console.ts';
import type { Kernel } from './kernel.ts';
import type { Route } from './router.ts';
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
  status?: { fields?: Array<[string, StatusField]>; sections?: StateSection[] };
  /** Stops timers and closes what it opened (shutdown, tests). */
  stop?(): void;
}

export interface Subsystem<Options, Face> {
  readonly name: string;
  start(kernel: Kernel, options: Options): Mounted<Face>;
}

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
export function mount<Options, Face>(kernel: Kernel, subsystem: Subsystem<Options, Face>, options: Options): Face {
  const m = subsystem.start(kernel, options);
  for (const r of m.routes ?? []) kernel.router.add(r);
  for (const c of m.commands ?? []) kernel.console.register(c);
  for (const t of m.tools ?? []) kernel.tools.register(t);
  for (const [key, f] of m.status?.fields ?? []) kernel.status.field(key, f);
  for (const s of m.status?.sections ?? []) kernel.status.section(s);
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
