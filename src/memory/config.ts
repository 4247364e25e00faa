// The memory configuration (spec "Memory config"): retrieval and decay
// knobs with their ranges, persisted in NVS. memory.config update and
// PUT /api/mem/config share parse(): out-of-range numbers are clamped (and
// the answer shows the value kept), anything that is not a number refuses
// the whole update.

import type { Store } from '../core/store.ts';
import { WORKING_SET } from './limits.ts';
import { stringify } from '../util/json.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DECIMAL_TEXT = /^\s*-?(\d+\.?\d*|\.\d+)\s*$/;

export interface MemoryConfig {
  retrieval_count: number;
  relevance_threshold: number;
  decay_factor: number;
  max_context_bytes: number;
  max_vectors: number;
  recency_half_life_hours: number;
  mmr_lambda: number;
}

export const CONFIG_DEFAULTS: MemoryConfig = {
  retrieval_count: 5,
  relevance_threshold: 0.3,
  decay_factor: 0.95,
  max_context_bytes: 2048,
  max_vectors: WORKING_SET,
  recency_half_life_hours: 720,
  mmr_lambda: 0.9,
};

interface Range {
  min: number;
  max: number;
  integer: boolean;
}

export const CONFIG_RANGES: Record<keyof MemoryConfig, Range> = {
  retrieval_count: { min: 1, max: 100, integer: true },
  relevance_threshold: { min: 0, max: 1, integer: false },
  decay_factor: { min: 0.5, max: 1, integer: false },
  max_context_bytes: { min: 256, max: 16384, integer: true },
  max_vectors: { min: 10, max: WORKING_SET, integer: true },
  recency_half_life_hours: { min: 0, max: 87600, integer: false },
  mmr_lambda: { min: 0, max: 1, integer: false },
};

export const CONFIG_KEYS = Object.keys(CONFIG_RANGES) as Array<keyof MemoryConfig>;

function clamp(key: keyof MemoryConfig, v: number): number {
  const r = CONFIG_RANGES[key];
  const x = r.integer ? Math.round(v) : v;
  return Math.min(r.max, Math.max(r.min, x));
}

export type ConfigPatch = { ok: true; patch: Partial<MemoryConfig> } | { ok: false; error: string };

/** Reads an update from loose values (form strings or JSON numbers); keys other than the config's are ignored. */
export function parseConfigPatch(values: Record<string, unknown>): ConfigPatch {
  const patch: Partial<MemoryConfig> = {};
  for (const key of CONFIG_KEYS) {
    const raw = values[key];
    if (raw === undefined || raw === null || raw === '') continue;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && DECIMAL_TEXT.test(raw) ? Number(raw) : NaN;
    if (!Number.isFinite(n)) return { ok: false, error: `${key} must be a number` };
    patch[key] = clamp(key, n);
  }
  return { ok: true, patch };
}

/** The live configuration, persisted as one JSON string in the memory namespace. */
export class ConfigStore {
  private value: MemoryConfig;

  constructor(private readonly store: Store) {
    this.value = { ...CONFIG_DEFAULTS };
    try {
      const saved = JSON.parse(store.str('config', '{}')) as Record<string, unknown>;
      const p = parseConfigPatch(saved);
      if (p.ok) Object.assign(this.value, p.patch);
    } catch {
      // a damaged value reads as the defaults
    }
  }

  get(): MemoryConfig {
    return { ...this.value };
  }

  set(patch: Partial<MemoryConfig>): MemoryConfig {
    const next = { ...this.value, ...patch };
    this.store.set('config', stringify(next));
    this.value = next;
    return this.get();
  }
}
