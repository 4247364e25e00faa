// The [RECENT CONVERSATION] prompt block: the chat's last messages from the
// episodic log, since the chat was last cleared (/clear, the web page).

import type { PromptBlocks, PromptInput } from '../prompt/index.ts';
import { capBytes } from '../util/cap.ts';
import { replaceEvery } from '../util/replace.ts';

const WHITESPACE_RUNS = /\s+/;

/** Messages of the recent conversation, and bytes kept of each. */
export const CONVERSATION_MESSAGES = 12;
export const CONVERSATION_LINE_BYTES = 1200;

/** Where the conversation's messages are read (the memory's episodic log). */
export interface ConversationLog {
  query(q: { session: string; kind: 'message'; limit: number }): { rows: ReadonlyArray<{ ts: number; role: string; text: string }> };
}

export function registerConversationBlock(blocks: PromptBlocks, log: ConversationLog, clearedAt: (chat: string) => number): void {
  blocks.register({
    name: 'conversation',
    floor: 600,
    text: (input: PromptInput) => {
      const since = clearedAt(input.chat);
      const page = log.query({ session: input.chat, kind: 'message', limit: CONVERSATION_MESSAGES });
      const rows = page.rows.filter((r) => r.ts > since).reverse();
      if (!rows.length) return '';
      return ['[RECENT CONVERSATION]', ...rows.map((r) => `${r.role === 'assistant' ? 'assistant' : 'user'}: ${capBytes(replaceEvery(r.text, WHITESPACE_RUNS, ' '), CONVERSATION_LINE_BYTES)}`)].join('\n');
    },
  });
}
