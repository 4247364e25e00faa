// The fabric's prompt blocks (spec: per-process prompt): the running-sessions
// digest, [SPAWN CAPACITY], [FRESH RESULTS] and [SUB-AGENT CAPABILITIES].
// [FRESH RESULTS] remembers which results it showed to which chat, so the
// turn that saw them can mark them seen once it is applied.

import type { PromptBlocks, PromptInput } from '../prompt/index.ts';
import type { ProviderId } from '../contracts/index.ts';
import { DEEP_RESEARCH_MODEL } from './choose.ts';
import type { Fabric } from './fabric.ts';
import { FRESH_CHARS, IN_FLIGHT, POLL_MS, QUEUE_DEPTH } from './limits.ts';
import type { ResultStore } from './results.ts';
import { capChars, oneLine } from './text.ts';
import { displayName } from './types.ts';

export interface BlockDeps {
  fabric: Fabric;
  results: ResultStore;
  clock: { monoMs(): number };
  /** Providers a spawn can use now, in priority order, with the model each would run by default. */
  providers(): Array<{ provider: ProviderId; model: string }>;
}

const BACKEND_WORDS: Record<ProviderId, string> = {
  anthropic: 'managed agent session with tools; survives a device restart',
  openai: `background response with web search; survives a device restart; model deep_research runs ${DEEP_RESEARCH_MODEL}`,
  mistral: 'one synchronous call of at most 60 s; does not survive a restart',
  zai: 'one synchronous call of at most 60 s; does not survive a restart',
  router: 'one synchronous call of at most 60 s; does not survive a restart',
  custom: 'one synchronous call to the owner\'s endpoint of at most 30 s; does not survive a restart',
};

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 1 ? 'under a minute' : `${m} min`;
}

export class FabricBlocks {
  /** Tags [FRESH RESULTS] showed to each chat in its last assembled prompt. */
  private shown = new Map<string, string[]>();
  /** The chat and person of the prompt assembled last: the turn in progress (turns run one at a time). */
  current: { chat: string; person: string | null } | null = null;

  constructor(private readonly d: BlockDeps) {}

  /** The tags the chat's last prompt showed (taken: a turn consumes them once). */
  takeShown(chat: string): string[] {
    const tags = this.shown.get(chat) ?? [];
    this.shown.delete(chat);
    return tags;
  }

  register(blocks: PromptBlocks): void {
    blocks.register({ name: 'sessions', text: (input) => this.sessions(input) });
    blocks.register({ name: 'spawn-capacity', text: () => this.capacity() });
    blocks.register({ name: 'fresh-results', floor: 400, text: (input) => this.fresh(input) });
    blocks.register({ name: 'subagent-capabilities', text: () => this.capabilities() });
  }

  private sessions(input: PromptInput): string {
    this.current = { chat: input.chat, person: input.person };
    const { fabric, clock } = this.d;
    const now = clock.monoMs();
    const lines: string[] = [];
    for (const j of fabric.running(input.person)) {
      lines.push(`- ${j.tag} [${displayName(j)}] ${j.state} on ${j.provider} ${j.model}, ${minutes(now - j.startedMono)}, ${j.polls} poll(s)${j.chat !== input.chat ? `, for chat ${j.chat}` : ''}`);
    }
    fabric.pending(input.person).forEach((p, i) => lines.push(`- ${p.tag} [${displayName(p)}] queued (#${i + 1})${p.chat !== input.chat ? `, for chat ${p.chat}` : ''}`));
    if (!lines.length) return '';
    return ['[RUNNING SESSIONS]', ...lines].join('\n');
  }

  private capacity(): string {
    if (!this.d.providers().length) return '';
    const { fabric } = this.d;
    const n = fabric.capacity();
    const state = `queued ${fabric.queued()} of ${QUEUE_DEPTH}, in flight ${fabric.inFlight()} of ${IN_FLIGHT}`;
    return n > 0
      ? `[SPAWN CAPACITY]\nYou may start up to ${n} sub-agent(s) this turn (session_ops op spawn); ${state}.`
      : `[SPAWN CAPACITY]\nThe sub-agent queue is full: start none this turn (${state}).`;
  }

  private fresh(input: PromptInput): string {
    const fresh = this.d.results.fresh(input.chat);
    this.shown.set(input.chat, fresh.map((r) => r.tag));
    if (!fresh.length) return '';
    const parts = fresh.map((r) => {
      const c = capChars(r.text, FRESH_CHARS);
      const head = `[${r.tag} ${r.name}] from ${r.provider} ${r.model}${r.kind === 'partial' ? ' (partial)' : ''}${r.saved?.ok ? `, saved as ${r.saved.path}` : ''}:`;
      return `${head}\n${c.text}${c.cut ? `\n(cut at ${FRESH_CHARS} characters; results.get tag ${r.tag} offset ${FRESH_CHARS} has the rest)` : ''}`;
    });
    return ['[FRESH RESULTS]', ...parts].join('\n');
  }

  private capabilities(): string {
    const providers = this.d.providers();
    if (!providers.length) return '';
    return [
      '[SUB-AGENT CAPABILITIES]',
      `Sub-agents are background jobs on a provider; they return text only and are fire-and-forget (no messages to a running job). A result reaches this chat as [FRESH RESULTS] in an automatic turn. Running jobs are checked about every ${POLL_MS / 1000} s.`,
      'A spawn takes task, and optionally provider, model, name, project (the result is saved as <project>/<name>-<tag>.md), skill, and attach (up to 4 <project>/<name> documents). The brief also carries the last 6 messages of this chat.',
      ...providers.map((p) => `- ${p.provider} (default ${p.model}): ${BACKEND_WORDS[p.provider]}`),
    ].join('\n');
  }
}

/** A one-line summary of a job for lists. */
export function jobLine(j: { tag: string; name: string; state: string; provider: string; model: string; error: string | null }): string {
  return `${j.tag} [${displayName(j)}] ${j.state} ${j.provider} ${j.model}${j.error ? `: ${oneLine(j.error)}` : ''}`;
}
