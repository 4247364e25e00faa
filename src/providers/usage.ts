// Token usage and the owner's monthly budgets, per provider.
//   reading   usageOf(answer) reads the usage object of any dialect's answer:
//             Responses (input_tokens, output_tokens, *_details), Messages
//             (input_tokens plus cache_creation/cache_read_input_tokens,
//             output_tokens), chat completions and Mistral's conversations
//             (prompt_tokens, completion_tokens, *_details), and a managed
//             session's span.model_request_end model_usage;
//   totals    per provider, for the current UTC day and calendar month (by the
//             wall clock), kept in NVS namespace 'usage' as one text value per
//             provider ("<day>|<month>|in|out|reasoning|cached|in|out|reasoning|cached":
//             NVS integers are 32-bit, a month of tokens can pass that). NVS
//             replaces a value atomically, so a power cut keeps the old total or
//             the new one. A day or month that has passed reads as zero.
//   budgets   tokens a month per provider (input plus output), set by the owner
//             on the web page only (POST /api/orch budget_<provider>, NVS
//             orch/bgt.<p>; NVS keys are at most 15 bytes): a provider at or past its
//             budget takes no new turn (the turn chain skips it, src/turn/index.ts).
// Tokens, not money: the device has no price table that stays true, and
// tokens are what every answer reports (docs/decisions.md, "Usage and budgets").

import type { Store } from '../core/store.ts';
import { civilFromDays } from '../util/civil.ts';
import { isPlainObject } from '../util/json.ts';
import { PROVIDERS, type ProviderId } from './settings.ts';
import type { Usage } from '../contracts/index.ts';

export const USAGE_NS = 'usage';
/** Largest monthly budget the page accepts (tokens). */
export const BUDGET_MAX = 1_000_000_000;

const ZERO: Usage = { input: 0, output: 0, reasoning: 0, cached: 0 };

function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

/**
 * The usage an answer reports (null when it reports none). Accepts the answer
 * object or its usage object directly.
 */
export function usageOf(answer: unknown): Usage | null {
  if (!isPlainObject(answer)) return null;
  const u = isPlainObject(answer['usage']) ? answer['usage'] : isPlainObject(answer['model_usage']) ? answer['model_usage'] : answer;
  const has = (k: string): boolean => typeof u[k] === 'number';
  if (!has('input_tokens') && !has('prompt_tokens') && !has('output_tokens') && !has('completion_tokens')) return null;
  const inDetails = isPlainObject(u['input_tokens_details']) ? u['input_tokens_details'] : isPlainObject(u['prompt_tokens_details']) ? u['prompt_tokens_details'] : {};
  const outDetails = isPlainObject(u['output_tokens_details']) ? u['output_tokens_details'] : isPlainObject(u['completion_tokens_details']) ? u['completion_tokens_details'] : {};
  // Messages counts cache reads and writes apart from input_tokens; the others include them.
  const cacheRead = count(u['cache_read_input_tokens']);
  const input = count(u['input_tokens'] ?? u['prompt_tokens']) + cacheRead + count(u['cache_creation_input_tokens']);
  return {
    input,
    output: count(u['output_tokens'] ?? u['completion_tokens']),
    reasoning: count(outDetails['reasoning_tokens']),
    cached: cacheRead || count(inDetails['cached_tokens']),
  };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return { input: a.input + b.input, output: a.output + b.output, reasoning: a.reasoning + b.reasoning, cached: a.cached + b.cached };
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** YYYY-MM-DD and YYYY-MM (UTC) of a wall-clock time, without Date (firmware rule). */
export function periodOf(ms: number): { day: string; month: string; next: string } {
  const [y, m, d] = civilFromDays(Math.floor(ms / 86_400_000));
  const month = `${y}-${pad(m)}`;
  return { day: `${month}-${pad(d)}`, month, next: m === 12 ? `${y + 1}-01-01` : `${y}-${pad(m + 1)}-01` };
}

interface Totals {
  day: string;
  month: string;
  daily: Usage;
  monthly: Usage;
}

function parseTotals(text: string | null): Totals | null {
  if (text === null) return null;
  const f = text.split('|');
  if (f.length !== 10) return null;
  const n = f.slice(2).map((x) => Number(x));
  if (n.some((x) => !Number.isFinite(x) || x < 0)) return null;
  return { day: f[0]!, month: f[1]!, daily: { input: n[0]!, output: n[1]!, reasoning: n[2]!, cached: n[3]! }, monthly: { input: n[4]!, output: n[5]!, reasoning: n[6]!, cached: n[7]! } };
}

function totalsText(t: Totals): string {
  const u = (x: Usage): string => `${x.input}|${x.output}|${x.reasoning}|${x.cached}`;
  return `${t.day}|${t.month}|${u(t.daily)}|${u(t.monthly)}`;
}

/** Tokens a budget counts: everything sent and received. */
export function spent(u: Usage): number {
  return u.input + u.output;
}

export class UsageLedger {
  constructor(
    /** NVS namespace 'usage'. */
    private readonly store: Store,
    /** NVS namespace 'orch' (budget.<provider>, set by the web page only). */
    private readonly settings: Store,
    private readonly wallMs: () => number,
  ) {}

  private totals(provider: ProviderId): Totals {
    const now = periodOf(this.wallMs());
    const t = parseTotals(this.store.strOrNull(provider));
    return {
      day: now.day,
      month: now.month,
      daily: t && t.day === now.day ? t.daily : ZERO,
      monthly: t && t.month === now.month ? t.monthly : ZERO,
    };
  }

  /** Adds an answer's usage to the provider's day and month. */
  record(provider: ProviderId, usage: Usage | null | undefined): void {
    if (!usage || spent(usage) + usage.reasoning + usage.cached === 0) return;
    const t = this.totals(provider);
    this.store.set(provider, totalsText({ ...t, daily: addUsage(t.daily, usage), monthly: addUsage(t.monthly, usage) }));
  }

  /** The owner's monthly budget in tokens (0: none). */
  budget(provider: ProviderId): number {
    return this.settings.int(`bgt.${provider}`, 0);
  }

  /** Whether the provider has used up its monthly budget. */
  exhausted(provider: ProviderId): boolean {
    const b = this.budget(provider);
    return b > 0 && spent(this.totals(provider).monthly) >= b;
  }

  /** The first day of the next month (when budgets start again). */
  resetsOn(): string {
    return periodOf(this.wallMs()).next;
  }

  /** usage.budget of device.status, /api/state and the web page: one entry per provider. */
  view(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const p of PROVIDERS) {
      const t = this.totals(p);
      const budget = this.budget(p);
      const used = spent(t.monthly);
      out[p] = {
        day: t.day,
        month: t.month,
        daily: t.daily,
        monthly: t.monthly,
        budget: budget || null,
        used,
        remaining: budget ? Math.max(0, budget - used) : null,
        exhausted: budget > 0 && used >= budget,
        resetsOn: periodOf(this.wallMs()).next,
      };
    }
    return out;
  }
}
