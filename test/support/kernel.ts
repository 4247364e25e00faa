// A kernel on the in-memory HAL for unit tests (issue 25): a test mounts the
// subsystem under test with its declared options (real lower subsystems or
// small fakes) instead of booting the whole device from src/main.ts.
import { createKernel, type Kernel, type Mode } from '../../src/core/kernel.ts';
import type { Gate } from '../../src/core/router.ts';
import { Log } from '../../src/log/log.ts';
import { createMemHal, type MemHal, type MemHalOptions } from './memhal.ts';

export interface TestKernel {
  kernel: Kernel;
  mem: MemHal;
}

/** Every request passes the gate unless the test gives one (src/auth's token gate in the device). */
const OPEN_GATE: Gate = () => true;

export function testKernel(options: { mem?: MemHal; hal?: MemHalOptions; gate?: Gate; mode?: Mode } = {}): TestKernel {
  const mem = options.mem ?? createMemHal(options.hal);
  const log = new Log(mem.hal.clock, mem.hal.system);
  return { kernel: createKernel(mem.hal, log, { gate: options.gate ?? OPEN_GATE, mode: options.mode ?? 1 }), mem };
}
