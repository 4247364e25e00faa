// The per-process prompt: the spec's named blocks, each supplied by the
// subsystem that owns it through one interface, fitted into a byte budget by
// one deterministic trim policy. The last assembly is kept for GET
// /api/mem/working and the console's PROMPT?.
//
// Order (decision, docs/decisions.md "The prompt's stable prefix"): the
// blocks that stay the same from turn to turn come first (the directive, the
// capability manifest, the sub-agent capabilities, providers and
// connectors), then the ones that change (the time, the scratchpad, sessions,
// memories, the conversation, spawn capacity, fresh results). A provider
// that caches a prompt's prefix (Anthropic's cache_control, which the wire
// sets at the end of the stable part; OpenAI's automatic prefix cache) then
// reads the stable part from its cache on the next turn. Assembled gives both
// parts apart (stable, volatile) for the wire to mark.
//
// Trim policy (when the blocks together exceed the budget): blocks give up
// bytes in a fixed order, each down to its floor, until the prompt fits:
//   1. recent conversation (oldest lines first, keeping its floor),
//   2. relevant memories (last lines first: they come ranked),
//   3. [FRESH RESULTS], 4. running-sessions digest, 5. [SUB-AGENT CAPABILITIES],
//   6. [PROVIDERS & CONNECTORS], 7. capability manifest, 8. scratchpad
//   (all from the end), and the directive (at most 1500 bytes) never.
// Lines are dropped whole (the heading stays; a block left with only its
// heading is left out); a single line longer than what is left is cut at a
// character boundary. If the floors alone exceed the budget the prompt is
// sent over budget (the provider may still accept it) and that is reported.

import { capBytes } from '../util/cap.ts';
import { utf8Length } from '../util/utf8.ts';

/** The blocks in the order they are sent: the stable ones first. */
export const BLOCK_ORDER = [
  'directive',
  'capabilities',
  'subagent-capabilities',
  'providers',
  'now',
  'scratchpad',
  'sessions',
  'memories',
  'conversation',
  'spawn-capacity',
  'fresh-results',
] as const;

export type BlockName = (typeof BLOCK_ORDER)[number];

/** The blocks that stay the same from turn to turn: the prompt's cacheable prefix. */
export const STABLE_BLOCKS: readonly BlockName[] = ['directive', 'capabilities', 'subagent-capabilities', 'providers'];

/** Order in which blocks give up bytes, and from which end. */
const TRIM_ORDER: ReadonlyArray<[BlockName, 'oldest' | 'tail']> = [
  ['conversation', 'oldest'],
  ['memories', 'tail'],
  ['fresh-results', 'tail'],
  ['sessions', 'tail'],
  ['subagent-capabilities', 'tail'],
  ['providers', 'tail'],
  ['capabilities', 'tail'],
  ['scratchpad', 'tail'],
];

export const DEFAULT_BUDGET = 32 * 1024;
export const DIRECTIVE_MAX = 1500;

/** What a block provider may know about the turn being prepared. */
export interface PromptInput {
  chat: string;
  person: string | null;
  /** The turn runs for an admin (default: the owner, person null, is one). */
  admin?: boolean;
  text: string;
  memQueries: readonly string[];
  unattended: boolean;
}

export interface BlockSource {
  name: BlockName;
  /** The block's text ('' = absent), heading included. */
  text(input: PromptInput): string | Promise<string>;
  /** Bytes this block keeps however tight the budget (default 0). */
  floor?: number;
}

export interface Section {
  name: BlockName;
  /** Bytes as offered by the owner, and as sent. */
  offered: number;
  sent: number;
  text: string;
}

export interface Assembled {
  text: string;
  /** The stable blocks (the cacheable prefix) and the rest; text is the two joined. */
  stable: string;
  volatile: string;
  bytes: number;
  budget: number;
  overBudget: boolean;
  sections: Section[];
  /** Monotonic time of assembly. */
  at: number;
}

function dropLines(text: string, excess: number, from: 'oldest' | 'tail', floor: number): string {
  const target = Math.max(floor, utf8Length(text) - excess);
  if (utf8Length(text) <= target) return text;
  const lines = text.split('\n');
  // The heading (first line) stays: it says what the block is.
  const head = lines.shift() ?? '';
  let size = utf8Length(text);
  while (lines.length && size > target) {
    const gone = from === 'oldest' ? lines.shift()! : lines.pop()!;
    size -= utf8Length(gone) + 1;
  }
  // A block reduced to its heading says nothing: it is left out.
  if (!lines.length) return '';
  const out = [head, ...lines].join('\n');
  return utf8Length(out) > target ? capBytes(out, target) : out;
}

export class PromptBlocks {
  private sources = new Map<BlockName, BlockSource>();
  private last: Assembled | null = null;

  register(source: BlockSource): void {
    if (this.sources.has(source.name)) throw new Error(`prompt block ${source.name} registered twice`);
    this.sources.set(source.name, source);
  }

  lastAssembled(): Assembled | null {
    return this.last;
  }

  async assemble(input: PromptInput, budget: number, now: number): Promise<Assembled> {
    const texts = new Map<BlockName, string>();
    for (const name of BLOCK_ORDER) {
      const source = this.sources.get(name);
      let text = source ? await source.text(input) : '';
      if (name === 'directive') text = capBytes(text, DIRECTIVE_MAX);
      texts.set(name, text.trim());
    }
    const offered = new Map(texts);
    const total = (): number => {
      let n = 0;
      for (const t of texts.values()) if (t) n += utf8Length(t) + 2;
      return n;
    };
    for (const [name, from] of TRIM_ORDER) {
      const excess = total() - budget;
      if (excess <= 0) break;
      const text = texts.get(name)!;
      if (text) texts.set(name, dropLines(text, excess, from, this.sources.get(name)?.floor ?? 0));
    }
    const sections: Section[] = BLOCK_ORDER.map((name) => ({
      name,
      offered: utf8Length(offered.get(name)!),
      sent: utf8Length(texts.get(name)!),
      text: texts.get(name)!,
    }));
    const join = (list: Section[]): string =>
      list
        .filter((s) => s.text)
        .map((s) => s.text)
        .join('\n\n');
    const stable = join(sections.filter((s) => STABLE_BLOCKS.includes(s.name)));
    const volatile = join(sections.filter((s) => !STABLE_BLOCKS.includes(s.name)));
    const text = stable && volatile ? `${stable}\n\n${volatile}` : stable || volatile;
    const bytes = utf8Length(text);
    this.last = { text, stable, volatile, bytes, budget, overBudget: bytes > budget, sections, at: now };
    return this.last;
  }
}
