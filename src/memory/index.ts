// Long-term memory, the subsystem's face: mounts the Memory (src/memory/memory.ts:
// the vector store, the embedder, the episodic log, running memory and the
// scratchpad behind one object) with what it declares it needs, logs the
// device timeline as episodic rows, and hands mount() its routes, console
// commands, tools and status (vec=, the state snapshot's memory counts).

import type { Hotspots } from '../core/hotspots.ts';
import { whole, type Later, type Mounted, type Subsystem } from '../core/subsystem.ts';
import { memoryCommands } from './console.ts';
import { Memory, type MemoryStart } from './memory.ts';
import { memoryRoutes } from './routes.ts';
import { memoryTools } from './tools.ts';
import { embeddingKeys, type EmbeddingLedger } from './keys.ts';

export { Memory } from './memory.ts';
export { quotaFor, ROLE_QUOTAS, type MemoryQuota, type People, type Role } from './quotas.ts';
import type { People } from './quotas.ts';

/** A device timeline row (restarts, updates, mode switches, storage changes), as memory logs it. */
interface TimelineRowView {
  kind: string;
  text: string;
  wallMs: number;
  synced: boolean;
}

/** What memory needs from others. */
export interface MemoryOptions extends Omit<MemoryStart, 'keys' | 'people'> {
  /** Roles and quota overrides (the chat's people, mounted later: the defaults until then, within the boot). */
  people?: Later<People>;
  /** The provider settings (src/providers/): the embedding endpoints and keys (the custom endpoint at its embeddings base URL). */
  providers?: { customFor(role: 'embed'): { base: string }; key(provider: 'openai' | 'mistral' | 'custom'): string | null };
  /** The providers' usage ledger: embedding tokens count against budgets (none: not counted). */
  usage?: EmbeddingLedger;
  /** The native or fallback hot loops (sha256, vecdot) chosen at boot. */
  hotspots: Hotspots;
  /** The device timeline: its rows become episodic rows once the log is open. */
  timeline: { attach(sink: (row: TimelineRowView) => void): void };
}

/** The status line's vec= and the state snapshot's memory section. */
function memoryStatus(memory: Memory): NonNullable<Mounted<Memory>['status']> {
  return {
    fields: [['vec', () => memory.store.index.count]],
    sections: [
      () => {
        const s = memory.store.stats();
        return {
          memory: {
            vectors: s.vectors,
            cap: s.cap,
            pinned: s.pinned,
            archive: s.archive,
            episodicHot: memory.episodic.hotRows,
            degraded: memory.store.degraded || memory.episodic.degraded,
          },
        };
      },
    ],
  };
}

export const memory: Subsystem<MemoryOptions, Memory> = {
  name: 'memory',
  needs: ['card', 'client', 'hotspots', 'timeline', 'providers', 'usage'],
  later: ['people'],
  provides: { memory: whole },
  start(k, o) {
    const m = new Memory(k.hal, k.log, k.store('mem'), o.hotspots, (b) => k.hal.system.random(b));
    const providers = o.providers;
    const keys = providers ? embeddingKeys({ customBase: () => providers.customFor('embed').base, key: (p) => providers.key(p) }, o.usage ?? null) : undefined;
    const { people, ...start } = o;
    m.start({ ...start, ...(keys ? { keys } : {}) }, k.defer);
    people?.when((p) => m.setPeople(p));
    // Device timeline rows (restarts, updates, mode switches, storage changes) become episodic rows.
    o.timeline.attach((row) => {
      try {
        m.episodic.append({ session: 'system', role: 'system', kind: 'log', text: `${row.kind}: ${row.text}`, tags: [row.kind], ...(row.synced ? { ts: row.wallMs } : {}) });
      } catch (e) {
        k.log.warn('mem', `timeline row not logged: ${String(e)}`);
      }
    });
    return { provides: m, routes: memoryRoutes(m), commands: memoryCommands(m, k), tools: memoryTools(m), status: memoryStatus(m) };
  },
};
