// The turn subsystem (src/turn/) mounted on a test kernel over small fakes,
// for tests of turn's face and of the subsystems mounted after it: the prompt
// records the names of the blocks registered into it, the memory's episodic
// log reads the rows a test pushes. Nothing here runs a turn: the provider
// settings, the wire and the applier's parts are never called.
import { mount, ready } from '../../src/core/subsystem.ts';
import type { Kernel } from '../../src/core/kernel.ts';
import type { PromptBlocks } from '../../src/prompt/index.ts';
import type { ProviderSettings } from '../../src/providers/index.ts';
import { turn, type TurnFace, type TurnWire } from '../../src/turn/index.ts';
import { type TurnMemory } from '../../src/turn/apply.ts';

export type MessageRow = { session: string; ts: number; role: string; kind: 'message'; text: string };

export interface FakedTurn {
  face: TurnFace;
  /** The episodic log's message rows, newest first. */
  rows: MessageRow[];
  /** The names of the prompt blocks registered, in order. */
  blocks: string[];
  episodic: { query(q: { session?: string; limit: number }): { rows: MessageRow[] }; append(): void };
}

export function mountTurnOnFakes(kernel: Kernel): FakedTurn {
  const rows: MessageRow[] = [];
  const blocks: string[] = [];
  const episodic = {
    query: (q: { session?: string; limit: number }) => ({ rows: rows.filter((r) => !q.session || r.session === q.session).slice(0, q.limit) }),
    append: () => undefined,
  };
  const face = mount(kernel, turn, {
    providers: {} as ProviderSettings,
    wire: {} as TurnWire,
    blocks: { register: (b: { name: string }) => void blocks.push(b.name) } as unknown as PromptBlocks,
    memory: ready({ episodic } as unknown as TurnMemory),
    outbox: { post: () => true },
    people: ready({ roleOf: () => 'admin', conversationPerson: () => null }),
    actions: { apply: () => ({ ok: true, note: '' }) },
  });
  return { face, rows, blocks, episodic };
}

/**
 * The turn subsystem over a real memory (read when used, a late need, as the boot hands memory to the turn), for tests of the routes and
 * commands it serves from the episodic log (/api/conversation, COMPACT): no turn runs, so the provider settings,
 * the wire, the prompt and the applier are stubs.
 */
export function mountTurnOverMemory(kernel: Kernel, memory: () => TurnMemory): TurnFace {
  return mount(kernel, turn, {
    providers: {} as ProviderSettings,
    wire: {} as TurnWire,
    blocks: { register: () => {} } as unknown as PromptBlocks,
    memory: { get: memory, peek: () => memory(), when: (run) => run(memory()) },
    outbox: { post: () => true },
    people: ready({ roleOf: () => 'admin', conversationPerson: () => null }),
    actions: { apply: () => ({ ok: true, note: '' }) },
  });
}
