// The prompt subsystem's face: the per-process prompt blocks (the builder,
// src/prompt/blocks.ts) with the core blocks registered (src/prompt/sources.ts).
// The assistant adds the recent conversation, the sub-agent fabric its
// blocks, on the PromptBlocks this provides.

import type { Kernel } from '../core/kernel.ts';
import type { Subsystem } from '../core/subsystem.ts';
import { PromptBlocks } from './blocks.ts';
import { registerCoreBlocks, type PromptOptions } from './sources.ts';

/** What the core blocks read: the providers' settings, memory, the connectors and the local time (sources.ts). */
export type { PromptOptions } from './sources.ts';

export interface PromptFace {
  blocks: PromptBlocks;
}

export const prompt: Subsystem<PromptOptions, PromptFace> = {
  name: 'prompt',
  needs: ['providers', 'connectors', 'time'],
  later: ['memory'],
  provides: { blocks: (f) => f.blocks },
  start(k: Kernel, o: PromptOptions) {
    const blocks = new PromptBlocks();
    registerCoreBlocks(k, blocks, o);
    return { provides: { blocks } };
  },
};

export { DEFAULT_BUDGET, PromptBlocks, type Assembled, type PromptInput } from './blocks.ts';
