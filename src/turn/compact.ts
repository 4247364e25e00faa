// Conversation compaction (chat /compact, console COMPACT <chat>): one
// housekeeping turn summarizes a chat's conversation since it was last
// cleared or compacted into long-term memory (mem_write items in the
// person's namespace), then the conversation is folded: those messages stop
// riding in the recent-conversation block, their summary comes back through
// relevant memories. The turn is unattended, not recorded in the
// conversation, and leaves running memory and the scratchpad alone. It runs
// through the turn engine's queue (one turn at a time), in the background
// for the chat.

import { CommandError, type Command } from '../core/console.ts';
import type { Log } from '../log/log.ts';
import type { TurnOutcome, TurnRequest } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import { utf8Length } from '../util/utf8.ts';
import type { ConversationLog } from './conversation.ts';
import { replaceEvery } from '../util/replace.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const WHITESPACE_RUNS = /\s+/;

/** Messages read back, newest first, and the transcript's size. */
const MESSAGES_MAX = 100;
const LINE_BYTES = 600;
const TRANSCRIPT_BYTES = 12 * 1024;

export const COMPACT_INSTRUCTION =
  '[SYSTEM] Housekeeping: compact the conversation below into long-term memory. Write its durable facts, preferences, decisions and open tasks as mem_write items (at most 6; importance by how much each will matter later; ttl by how long it stays true). Do not call tools. Leave memory exactly as the running memory already is, scratchpad null. In reply, say in one line what you kept.';

export type CompactOutcome = { ok: true; messages: number; saved: number; reply: string } | { ok: false; reason: 'empty' | 'busy' | 'failed'; message: string };

/** What compaction needs of the assistant (src/turn/index.ts): a chat's clear point, clearing it, and the engine's queue. */
export interface CompactedAssistant {
  clearedAt(chat: string): number;
  clear(chat: string): void;
  readonly engine: { run(req: TurnRequest): Promise<TurnOutcome> };
}

export class Compactor {
  private running = new Set<string>();

  constructor(
    private readonly log: Log,
    /** The conversation's messages (the memory's episodic log, read when a compaction runs). */
    private readonly conversation: () => ConversationLog,
    private readonly assistant: CompactedAssistant,
  ) {}

  busy(chat: string): boolean {
    return this.running.has(chat);
  }

  /** Has the chat any message since it was last cleared or compacted? */
  hasConversation(chat: string): boolean {
    return this.transcript(chat).lines.length > 0;
  }

  /** The chat's messages since its last clear, oldest first, as transcript lines within the budget. */
  private transcript(chat: string): { lines: string[]; count: number } {
    const since = this.assistant.clearedAt(chat);
    const rows = this.conversation().query({ session: chat, kind: 'message', limit: MESSAGES_MAX }).rows.filter((r) => r.ts > since);
    const lines: string[] = [];
    let bytes = 0;
    for (const r of rows) {
      const line = `${r.role === 'assistant' ? 'assistant' : 'user'}: ${capBytes(replaceEvery(r.text, WHITESPACE_RUNS, ' ').trim(), LINE_BYTES)}`;
      bytes += utf8Length(line) + 1;
      if (bytes > TRANSCRIPT_BYTES) break;
      lines.push(line);
    }
    return { lines: lines.reverse(), count: rows.length };
  }

  /** Summarizes and folds one chat's conversation; person is the namespace its memories go to. */
  async compact(chat: string, person: string | null, admin: boolean): Promise<CompactOutcome> {
    if (this.running.has(chat)) return { ok: false, reason: 'busy', message: 'A compaction of this conversation is already running.' };
    const { lines, count } = this.transcript(chat);
    if (!lines.length) return { ok: false, reason: 'empty', message: 'There is no conversation to compact since it was last cleared.' };
    this.running.add(chat);
    try {
      const out = await this.assistant.engine.run({
        // A chat of its own: the compaction sees the transcript once, and nothing it queues reaches the real chat.
        chat: `compact:${chat}`,
        text: `${COMPACT_INSTRUCTION}\n\n[CONVERSATION]\n${lines.join('\n')}`,
        person,
        admin,
        origin: 'chat',
        unattended: true,
        housekeeping: true,
      });
      if (out.status !== 'ok' || !out.turn) {
        this.log.warn('turn', `compaction of ${chat} failed: ${out.error ?? out.status}`);
        return { ok: false, reason: 'failed', message: `Compaction failed (${out.error ?? out.status}); the conversation is unchanged.` };
      }
      // Fold what the summary covered. Turns run one at a time, so no message of this chat was recorded meanwhile.
      this.assistant.clear(chat);
      this.log.info('turn', `compacted ${count} message(s) of ${chat} into ${out.turn.mem_write.length} memory write(s)`);
      return { ok: true, messages: count, saved: out.turn.mem_write.length, reply: out.reply };
    } finally {
      this.running.delete(chat);
    }
  }
}

/** Console COMPACT <chat>: compacts as the owner would, into the chat's person's namespace. */
export function compactCommand(compactor: Compactor, personOf: (chat: string) => string | null): Command {
  return {
    verb: 'COMPACT',
    maxArgs: 1,
    usage: '<chat>',
    help: 'summarize a chat into long-term memory and fold it (one housekeeping turn)',
    run: async (c) => {
      const chat = c.argv[0];
      if (!chat) throw new CommandError('usage: COMPACT <chat>');
      const out = await compactor.compact(chat, personOf(chat), true);
      if (!out.ok) throw new CommandError(out.message);
      c.out(`compacted ${out.messages} message(s) into ${out.saved} memory write(s)`);
      if (out.reply) c.out(out.reply);
    },
  };
}
