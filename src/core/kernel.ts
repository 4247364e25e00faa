// The kernel: what every subsystem may use without declaring it. The HAL,
// the log, per-subsystem settings, the clock, and the four registries
// subsystems fill through their faces (routes, console commands, tools,
// status), plus defer and the boot mode. Nothing else: a service of one
// subsystem reaches another only through the options object the second
// declares (src/core/subsystem.ts; docs/architecture.md).

import type { Clock, Hal } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Console } from './console.ts';
import type { Router } from './router.ts';
import type { StatusRegistry } from './status.ts';
import type { Store } from './store.ts';
import type { ToolRegistry } from './tools/registry.ts';

/** Console MODE values: 0 Notifier (BLE only), 1 Orchestrator (Wi-Fi, HTTP, assistant). */
export type Mode = 0 | 1;

export interface Kernel {
  hal: Hal;
  log: Log;
  /** The NVS namespace of one subsystem. */
  store(ns: string): Store;
  clock: Clock;
  router: Router;
  console: Console;
  /** The tool registry: the live turn and /mcp read it (src/core/tools/registry.ts). */
  tools: ToolRegistry;
  status: StatusRegistry;
  /** Runs work on the main loop after the current request or command has answered. */
  defer(task: () => void): void;
  mode: Mode;
}
