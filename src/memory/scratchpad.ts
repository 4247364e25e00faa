// Running memory (the turn's `memory` text, 1200 bytes) and the scratchpad
// (an active line of 240 bytes and three tiers, short, mid and long, of at
// most 8 items of 160 bytes): carried across turns and reboots in NVS, which
// is durable on return and needs no card. Written only when they change.
// applyScratchpad follows the turn parser's semantics (src/turn/parse.ts):
// null changes nothing, a non-null active sets the line ('' clears it), a
// non-null tier replaces that tier.

import type { Store } from '../core/store.ts';
import type { ScratchpadPatch } from '../contracts/index.ts';
import { capBytes } from '../util/cap.ts';
import { decode, encode } from '../util/utf8.ts';
import { RUNNING_MEMORY_BYTES, SCRATCH_ACTIVE_BYTES, SCRATCH_ITEM_BYTES, SCRATCH_TIER_ITEMS } from './limits.ts';
import { MemoryError } from './vector-store.ts';
import { stringify } from '../util/json.ts';

export const TIERS = ['short', 'mid', 'long'] as const;
export type Tier = (typeof TIERS)[number];

export interface Scratchpad {
  active: string;
  short: string[];
  mid: string[];
  long: string[];
}

function cleanItems(items: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const x of items) {
    if (typeof x !== 'string') continue;
    const t = capBytes(x.trim(), SCRATCH_ITEM_BYTES);
    if (t) out.push(t);
    if (out.length >= SCRATCH_TIER_ITEMS) break;
  }
  return out;
}

export class ScratchpadStore {
  private pad: Scratchpad = { active: '', short: [], mid: [], long: [] };
  private running: string;

  constructor(private readonly store: Store) {
    this.running = store.str('running', '');
    const blob = store.blob('scratchpad');
    if (blob) {
      try {
        const o = JSON.parse(decode(blob)) as Partial<Scratchpad>;
        this.pad = {
          active: typeof o.active === 'string' ? capBytes(o.active, SCRATCH_ACTIVE_BYTES) : '',
          short: Array.isArray(o.short) ? cleanItems(o.short) : [],
          mid: Array.isArray(o.mid) ? cleanItems(o.mid) : [],
          long: Array.isArray(o.long) ? cleanItems(o.long) : [],
        };
      } catch {
        // a damaged value reads as an empty scratchpad
      }
    }
  }

  runningMemory(): string {
    return this.running;
  }

  /** Sets the running memory for the next turn (capped to 1200 bytes on a character boundary). */
  applyRunningMemory(text: string): void {
    if (typeof text !== 'string') throw new MemoryError('bad-input', 'running memory must be text');
    const next = capBytes(text, RUNNING_MEMORY_BYTES);
    if (next === this.running) return;
    this.store.set('running', next);
    this.running = next;
  }

  get(): Scratchpad {
    return { active: this.pad.active, short: [...this.pad.short], mid: [...this.pad.mid], long: [...this.pad.long] };
  }

  private save(next: Scratchpad): Scratchpad {
    if (stringify(next) !== stringify(this.pad)) {
      this.store.set('scratchpad', encode(stringify(next)));
      this.pad = next;
    }
    return this.get();
  }

  /** Applies a parsed turn's scratchpad (null: no change). */
  applyScratchpad(patch: ScratchpadPatch | null): Scratchpad {
    if (!patch) return this.get();
    const next = this.get();
    if (typeof patch.active === 'string') next.active = capBytes(patch.active.trim(), SCRATCH_ACTIVE_BYTES);
    for (const t of TIERS) {
      const items = patch[t];
      if (Array.isArray(items)) next[t] = cleanItems(items);
    }
    return this.save(next);
  }

  setActive(text: string): Scratchpad {
    return this.applyScratchpad({ active: text, short: null, mid: null, long: null });
  }

  /** Adds an item to a tier; a full tier lets its oldest item go. */
  add(tier: Tier, text: string): Scratchpad {
    const item = cleanItems([text]);
    if (!item.length) throw new MemoryError('bad-input', 'text is empty');
    const next = this.get();
    next[tier] = [...next[tier], item[0]!].slice(-SCRATCH_TIER_ITEMS);
    return this.save(next);
  }

  replace(tier: Tier, items: unknown[]): Scratchpad {
    const next = this.get();
    next[tier] = cleanItems(items);
    return this.save(next);
  }

  /** Clears one tier, or everything (the active line too) when tier is undefined. */
  clear(tier?: Tier): Scratchpad {
    const next = this.get();
    if (tier) next[tier] = [];
    else return this.save({ active: '', short: [], mid: [], long: [] });
    return this.save(next);
  }

  /** The scratchpad prompt block ('' when empty). */
  block(): string {
    const p = this.pad;
    const lines: string[] = [];
    if (p.active) lines.push(`active: ${p.active}`);
    for (const t of TIERS) if (p[t].length) lines.push(`${t}:`, ...p[t].map((i) => `- ${i}`));
    return lines.join('\n');
  }
}
