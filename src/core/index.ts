// The kernel's face: what subsystems import from core/.
export type { Kernel, Mode } from './kernel.ts';
export { mount, mounted, unmountAll, type Mounted, type Subsystem } from './subsystem.ts';
export { Router, DEFAULT_BODY_LIMIT, type Access, type Gate, type Interceptor, type Route } from './router.ts';
export { Console, CommandError, type Command, type CommandCall } from './console.ts';
export { StatusRegistry, type StateSection, type StatusField } from './status.ts';
export { ToolRegistry } from './tools/registry.ts';
export * from './tools/types.ts';
export type { Store } from './store.ts';
