// The kernel: what every subsystem may use without declaring it. The HAL,
// the log, per-subsystem settings, the clock, and the four registries
// subsystems fill through their faces (routes, console commands, tools,
// status), plus defer and the boot mode. Nothing else: a service of one
// subsystem reaches another only through the options object the second
// declares (src/core/subsystem.ts; docs/architecture.md).

import type { Clock, Hal } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { Console } from './console.ts';
import { Router, type Gate } from './router.ts';
import { StatusRegistry } from './status.ts';
import { Store } from './store.ts';
import { ToolRegistry } from './tools/registry.ts';

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

/** Per-namespace stores over one NVS, each made once. */
export function storesOn(nvs: Hal['nvs']): (ns: string) => Store {
  const stores = new Map<string, Store>();
  return (ns) => {
    let s = stores.get(ns);
    if (!s) stores.set(ns, (s = new Store(nvs, ns)));
    return s;
  };
}

/** The kernel over a HAL: the device's at boot (src/main.ts), a test's on the in-memory HAL. */
export function createKernel(hal: Hal, log: Log, options: { gate?: Gate; mode: Mode; store?: (ns: string) => Store }): Kernel {
  return {
    hal,
    log,
    store: options.store ?? storesOn(hal.nvs),
    clock: hal.clock,
    router: new Router(options.gate),
    console: new Console(hal.serial, hal.build.testBuild, (m) => log.error('console', m)),
    tools: new ToolRegistry((m) => log.error('tools', m)),
    status: new StatusRegistry(),
    defer: (task) => void hal.clock.setTimeout(task, 0),
    mode: options.mode,
  };
}
