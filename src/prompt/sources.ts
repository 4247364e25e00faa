// The prompt blocks whose owners have no better home: the owner's directive,
// the scratchpad with running memory, relevant memories, the capability
// manifest (which opens with the owner's local date and time while the clock
// is set: the model cannot know it otherwise), the recent conversation and
// [PROVIDERS & CONNECTORS]. Sub-agent
// blocks ([SPAWN CAPACITY], [FRESH RESULTS], the sessions digest and
// [SUB-AGENT CAPABILITIES]) are registered by the fabric when it runs.

import type { Context } from '../core/context.ts';
import type { ProviderSettings } from '../providers/index.ts';
import { capBytes } from '../util/cap.ts';
import type { PromptBlocks, PromptInput } from './blocks.ts';
import { replaceEvery } from '../util/replace.ts';

const WHITESPACE_RUNS = /\s+/;

/** Messages of the recent conversation, and bytes kept of each. */
export const CONVERSATION_MESSAGES = 12;
export const CONVERSATION_LINE_BYTES = 1200;

export function registerCoreBlocks(ctx: Context, blocks: PromptBlocks, providers: ProviderSettings, clearedAt: (chat: string) => number): void {
  blocks.register({
    name: 'directive',
    text: () => {
      const d = providers.directive();
      return d ? `[DIRECTIVE]\n${d}` : '';
    },
  });
  blocks.register({
    name: 'scratchpad',
    floor: 400,
    text: (input: PromptInput) => {
      // The scratchpad and running memory are the owner's: a chat member's turn neither sees nor changes them.
      if (input.person !== null) return '';
      const pad = ctx.memory.scratchpadBlock();
      const running = ctx.memory.runningMemory();
      return [pad, running ? `[RUNNING MEMORY]\n${running}` : ''].filter(Boolean).join('\n');
    },
  });
  blocks.register({
    name: 'memories',
    text: async (input: PromptInput) => {
      const lines = await ctx.memory.relevantMemories(input.text, input.memQueries, input.person);
      return lines ? `[RELEVANT MEMORIES]\n${lines}` : '';
    },
  });
  blocks.register({
    name: 'capabilities',
    floor: 600,
    text: (input: PromptInput) => {
      const caller = { via: 'turn' as const, admin: input.admin ?? input.person === null, scheduled: false, unattended: input.unattended, person: input.person };
      const tools = ctx.tools.list(caller).map((t) => `- ${ctx.tools.providerName(t.name)}: ${capBytes(t.description.split('\n')[0] ?? '', 160)}`);
      const b = ctx.hal.board;
      const device = `Device: ${b.type} (${b.display.width}x${b.display.height} screen${b.ringLeds ? `, ${b.ringLeds}-LED ring` : ''}${b.touch ? ', touch' : ''}${b.battery ? ', battery' : ''}), firmware ${ctx.hal.build.version}.`;
      // Right under the heading: the block is trimmed from its end, so the now line is the last to go.
      const now = ctx.time.nowStamp();
      return ['[CAPABILITIES]', ...(now ? [`Now: ${now}, the owner's local time.`] : []), device, 'Tools:', ...tools].join('\n');
    },
  });
  blocks.register({
    name: 'conversation',
    floor: 600,
    text: (input: PromptInput) => {
      const since = clearedAt(input.chat);
      const page = ctx.memory.episodic.query({ session: input.chat, kind: 'message', limit: CONVERSATION_MESSAGES });
      const rows = page.rows.filter((r) => r.ts > since).reverse();
      if (!rows.length) return '';
      return ['[RECENT CONVERSATION]', ...rows.map((r) => `${r.role === 'assistant' ? 'assistant' : 'user'}: ${capBytes(replaceEvery(r.text, WHITESPACE_RUNS, ' '), CONVERSATION_LINE_BYTES)}`)].join('\n');
    },
  });
  blocks.register({
    name: 'providers',
    text: () => {
      const keyed = providers.keyedList();
      return keyed.length ? `[PROVIDERS & CONNECTORS]\nProviders with keys: ${keyed.join(', ')}. Connectors: ${ctx.connectors.promptLine() || 'none'}.` : '';
    },
  });
}
