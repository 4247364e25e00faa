// Boot wiring of long-term memory: starts ctx.memory on the card (or
// degraded), and registers its routes, console commands, status field
// (vec=), state snapshot section (memory counts) and tools.

import type { Context } from '../core/context.ts';
import { installMemoryConsole } from './console.ts';
import type { MemoryOptions } from './index.ts';
import { installMemoryRoutes } from './routes.ts';
import { installMemoryTools } from './tools.ts';

export function installMemory(ctx: Context, options: MemoryOptions = {}): void {
  const memory = ctx.memory;
  memory.start(ctx, options);
  installMemoryRoutes(ctx, memory);
  installMemoryConsole(ctx, memory);
  ctx.status.field('vec', () => memory.store.index.count);
  ctx.status.section(() => {
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
  });
  installMemoryTools(memory, (spec) => ctx.tools.register(spec));
  // Device timeline rows (restarts, updates, mode switches, storage changes) become episodic rows.
  ctx.timeline.attach((row) => {
    try {
      memory.episodic.append({ session: 'system', role: 'system', kind: 'log', text: `${row.kind}: ${row.text}`, tags: [row.kind], ...(row.synced ? { ts: row.wallMs } : {}) });
    } catch (e) {
      ctx.log.warn('mem', `timeline row not logged: ${String(e)}`);
    }
  });
}
