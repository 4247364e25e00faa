// Memory on a device kernel (the token gate, HTTP, the console), as main.ts
// mounts it: after the system (STATUS, the timeline whose rows the episodic
// log takes) and the turn (COMPACT reads the episodic log); no embedding
// provider is keyed, as on a fresh device. The update engine mounts after it,
// as in main.ts, so its fields follow vec= on the status line.
import type { Memory } from '../../../src/memory/index.ts';
import { deviceKernel, mountMemory, mountOta, mountSystem } from '../../support/kernel.ts';
import type { MemHal } from '../../support/memhal.ts';
import { mountTurnOverMemory } from '../../support/turn-fakes.ts';

export function bootMemory(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const { timeline } = mountSystem(dk.kernel);
  let memory: Memory | null = null;
  mountTurnOverMemory(dk.kernel, () => memory!);
  memory = mountMemory(dk.kernel, { timeline });
  mountOta(dk, { timeline });
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token, memory }, stop: () => dk.stop() };
}

export type MemoryDevice = ReturnType<typeof bootMemory>;
