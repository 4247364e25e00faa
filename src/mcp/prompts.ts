// The prompts /mcp serves (MCP "Prompts": prompts/list, prompts/get): each
// provider offers named prompts (the owner's approved skill capsules,
// src/skills/prompts.ts; the conformance fixtures in test builds). Names are
// unique across providers: the first provider that lists a name answers it.
// Arguments are strings (MCP); a missing required one is refused here, so
// no provider repeats the rule.

import { errorMessage } from '../util/json.ts';
import type { ToolCaller } from '../core/tools/types.ts';
import type { PromptInfo, PromptProvider, PromptResult } from '../contracts/index.ts';

export type { PromptArgument, PromptInfo, PromptMessage, PromptProvider, PromptResult } from '../contracts/index.ts';

export type PromptAnswer = { ok: true; result: PromptResult } | { ok: false; error: string };

export class PromptRegistry {
  private readonly providers: PromptProvider[] = [];

  register(p: PromptProvider): void {
    this.providers.push(p);
  }

  get empty(): boolean {
    return this.providers.length === 0;
  }

  list(caller: ToolCaller): PromptInfo[] {
    const seen = new Set<string>();
    const out: PromptInfo[] = [];
    for (const p of this.providers) {
      for (const info of p.list(caller)) {
        if (seen.has(info.name)) continue;
        seen.add(info.name);
        out.push(info);
      }
    }
    return out;
  }

  get(name: unknown, args: unknown, caller: ToolCaller): PromptAnswer {
    if (typeof name !== 'string') return { ok: false, error: 'prompts/get needs params.name.' };
    for (const p of this.providers) {
      const info = p.list(caller).find((x) => x.name === name);
      if (!info) continue;
      const given: Record<string, string> = {};
      if (args !== undefined && args !== null) {
        if (typeof args !== 'object' || Array.isArray(args)) return { ok: false, error: 'arguments must be an object of strings.' };
        for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
          if (typeof v !== 'string') return { ok: false, error: `argument ${k} must be a string.` };
          given[k] = v;
        }
      }
      const missing = (info.arguments ?? []).filter((a) => a.required && given[a.name] === undefined).map((a) => a.name);
      if (missing.length) return { ok: false, error: `Prompt ${name} needs the argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.` };
      try {
        return { ok: true, result: p.get(name, given, caller) };
      } catch (e) {
        // A prompt listed a moment ago may be unreadable now (its card pulled): the reason is the answer.
        return { ok: false, error: errorMessage(e) };
      }
    }
    return { ok: false, error: `Unknown prompt: ${name.slice(0, 64)}` };
  }
}
