// The prompt blocks whose owners have no better home: the owner's directive,
// the scratchpad with running memory, relevant memories, the capability
// manifest, the owner's local date and time while the clock is set (the
// model cannot know it otherwise) and
// [PROVIDERS & CONNECTORS] (the recent conversation is the assistant's:
// src/turn/conversation.ts). Sub-agent
// blocks ([SPAWN CAPACITY], [FRESH RESULTS], the sessions digest and
// [SUB-AGENT CAPABILITIES]) are registered by the fabric when it runs.

import type { Kernel } from '../core/kernel.ts';
import type { Later } from '../core/subsystem.ts';
import type { ProviderId } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import type { PromptBlocks, PromptInput } from './blocks.ts';

/** What the core blocks read (the prompt subsystem's options: src/prompt/index.ts). */
export interface PromptOptions {
  /** The owner's directive and the keyed providers (src/providers/). */
  providers: { directive(): string; keyedList(): readonly ProviderId[] };
  /** The scratchpad, running memory and relevant memories (src/memory/, mounted later: read when a prompt is built). */
  memory: Later<{
    scratchpadBlock(): string;
    runningMemory(): string;
    relevantMemories(text: string, queries: readonly string[], person: string | null): Promise<string>;
  }>;
  /** The connectors' one prompt line (src/connectors/). */
  connectors: { promptLine(): string };
  /** The owner's local time, when the clock is set (src/system/local-time.ts). */
  time: { nowStamp(): string | null };
}

export function registerCoreBlocks(k: Kernel, blocks: PromptBlocks, o: PromptOptions): void {
  blocks.register({
    name: 'directive',
    text: () => {
      const d = o.providers.directive();
      return d ? `[DIRECTIVE]\n${d}` : '';
    },
  });
  blocks.register({
    name: 'scratchpad',
    floor: 400,
    text: (input: PromptInput) => {
      // The scratchpad and running memory are the owner's: a chat member's turn neither sees nor changes them.
      if (input.person !== null) return '';
      const pad = o.memory.get().scratchpadBlock();
      const running = o.memory.get().runningMemory();
      return [pad, running ? `[RUNNING MEMORY]\n${running}` : ''].filter(Boolean).join('\n');
    },
  });
  blocks.register({
    name: 'memories',
    text: async (input: PromptInput) => {
      const lines = await o.memory.get().relevantMemories(input.text, input.memQueries, input.person);
      return lines ? `[RELEVANT MEMORIES]\n${lines}` : '';
    },
  });
  blocks.register({
    name: 'capabilities',
    floor: 600,
    text: (input: PromptInput) => {
      const caller = { via: 'turn' as const, admin: input.admin ?? input.person === null, scheduled: false, unattended: input.unattended, person: input.person };
      const tools = k.tools.list(caller).map((t) => `- ${k.tools.providerName(t.name)}: ${capBytes(t.description.split('\n')[0] ?? '', 160)}`);
      const b = k.hal.board;
      const device = `Device: ${b.type} (${b.display.width}x${b.display.height} screen${b.ringLeds ? `, ${b.ringLeds}-LED ring` : ''}${b.touch ? ', touch' : ''}${b.battery ? ', battery' : ''}), firmware ${k.hal.build.version}.`;
      return ['[CAPABILITIES]', device, 'Tools:', ...tools].join('\n');
    },
  });
  blocks.register({
    // The owner's local time, while the clock is set (the model cannot know it otherwise): a block of its own at the
    // head of the changing part, so the stable prefix before it stays the same from one minute to the next. Never trimmed.
    name: 'now',
    text: () => {
      const now = o.time.nowStamp();
      return now ? `Now: ${now}, the owner's local time.` : '';
    },
  });
  blocks.register({
    name: 'providers',
    text: () => {
      const keyed = o.providers.keyedList();
      return keyed.length ? `[PROVIDERS & CONNECTORS]\nProviders with keys: ${keyed.join(', ')}. Connectors: ${o.connectors.promptLine() || 'none'}.` : '';
    },
  });
}
