// The prompt's cacheable prefix: the turn's prompt comes as its stable part
// and its changing part (src/prompt/blocks.ts), and every dialect sends the
// unchanging text first (the field docs, then the stable part). Provider B's
// request marks the end of the stable part with cache_control, so two turns
// with different conversations send a byte-identical cached prefix (tools,
// docs, stable prompt) and only the changing part differs; the emulator
// refuses what the API refuses (more than 4 breakpoints, another type); the
// usage ledger counts the cached input tokens each dialect reports.
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/providers/anthropic.ts';
import { customBackend } from '../../../src/providers/custom.ts';
import { openaiBackend } from '../../../src/providers/openai.ts';
import { UsageLedger, usageOf } from '../../../src/providers/usage.ts';
import { Store } from '../../../src/core/store.ts';
import type { RoundRequest } from '../../../src/contracts/index.ts';
import { checkRound } from '../../../tools/provider-rules.mjs';
import { MemNvs } from '../../support/memstorage.ts';
import { roundRequest } from '../../support/provider-fake.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const STABLE = '[DIRECTIVE]\nBe brief.\n\n[CAPABILITIES]\nTools: a, b';
const turnOf = (changing: string, question: string): RoundRequest =>
  roundRequest('anthropic', {
    transcript: [
      { kind: 'system', text: STABLE },
      { kind: 'system', text: changing },
      { kind: 'user', text: question },
    ],
  });
const body = (b: ReturnType<typeof anthropicBackend>, req: RoundRequest, key: string | null = 'sk-test'): Json => {
  const built = b.build(req, key);
  if ('kind' in built) throw new Error(built.message);
  return JSON.parse(new TextDecoder().decode(built.body)) as Json;
};

describe("the prompt's cacheable prefix", () => {
  it('provider B: the stable part ends in one cache breakpoint; two turns send the same cached prefix and differ after it', () => {
    const b = anthropicBackend();
    const one = body(b, turnOf('Now: 09:00\n\n[RECENT CONVERSATION]\nuser: hi', 'what time is it?'));
    const two = body(b, turnOf('Now: 09:07\n\n[RECENT CONVERSATION]\nuser: hi\nassistant: Nine.', 'and the weather?'));
    expect(one['system'][0]).toMatchObject({ type: 'text', cache_control: { type: 'ephemeral' } });
    expect(one['system'][0].text.endsWith(STABLE)).toBe(true);
    expect(one['system'][1]).toEqual({ type: 'text', text: 'Now: 09:00\n\n[RECENT CONVERSATION]\nuser: hi' });
    // What the provider caches: the tools, then the system up to the marked block.
    const prefix = (x: Json): string => JSON.stringify([x['tools'], x['system'][0]]);
    expect(prefix(two)).toBe(prefix(one));
    expect(two['system'][1]).not.toEqual(one['system'][1]);
    expect(checkRound('messages', { host: 'api.anthropic.com', body: one, headers: {} }, { family: 'anthropic' })).toBeNull();
    // Negative controls: the API's limit of four breakpoints, and its one cache type.
    const five = { ...one, system: Array.from({ length: 5 }, () => ({ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } })) };
    expect(checkRound('messages', { host: 'api.anthropic.com', body: five, headers: {} }, { family: 'anthropic' })).toMatchObject({ status: 400, message: expect.stringMatching(/maximum of 4 blocks with cache_control/) });
    const other = { ...one, system: [{ type: 'text', text: 'x', cache_control: { type: 'persistent' } }] };
    expect(checkRound('messages', { host: 'api.anthropic.com', body: other, headers: {} }, { family: 'anthropic' })).toMatchObject({ status: 400 });
  });

  it('a custom server in messages style gets a plain system string; OpenAI-style dialects lead with the unchanging text (automatic prefix caching)', () => {
    const custom = customBackend({ base: 'http://llm.lan:8080', style: 'messages', model: 'm' });
    const c = body(custom as ReturnType<typeof anthropicBackend>, { ...turnOf('changing', 'q'), provider: 'custom', mode: 'single' }, null);
    expect(typeof c['system']).toBe('string');
    expect(c['system'].endsWith(`${STABLE}\n\nchanging`)).toBe(true);
    const a = body(openaiBackend() as ReturnType<typeof anthropicBackend>, { ...turnOf('changing', 'q'), provider: 'openai' });
    expect(a['input'].slice(0, 3).map((i: Json) => i.content)).toEqual([expect.stringMatching(/^Answer with one JSON object/), STABLE, 'changing']);
    expect(a['prompt_cache_key']).toBe('desk-assistant-turn');
  });

  it('the usage ledger counts the cached input tokens every dialect reports', () => {
    const nvs = new MemNvs();
    const ledger = new UsageLedger(new Store(nvs, 'usage'), new Store(nvs, 'orch'), () => Date.UTC(2026, 10, 30, 12));
    // Messages counts cache reads and writes apart from input_tokens; Responses and chat completions include them.
    ledger.record('anthropic', usageOf({ usage: { input_tokens: 50, cache_read_input_tokens: 3000, cache_creation_input_tokens: 0, output_tokens: 40 } }));
    ledger.record('anthropic', usageOf({ usage: { input_tokens: 60, cache_read_input_tokens: 0, cache_creation_input_tokens: 3000, output_tokens: 40 } }));
    ledger.record('openai', usageOf({ usage: { input_tokens: 3100, input_tokens_details: { cached_tokens: 2944 }, output_tokens: 30 } }));
    ledger.record('router', usageOf({ usage: { prompt_tokens: 3100, prompt_tokens_details: { cached_tokens: 2048 }, completion_tokens: 30 } }));
    const month = (p: string): Json => (ledger.view()[p] as Json)['monthly'];
    expect(month('anthropic')).toEqual({ input: 6110, output: 80, reasoning: 0, cached: 3000 });
    expect(month('openai')).toMatchObject({ input: 3100, cached: 2944 });
    expect(month('router')).toMatchObject({ input: 3100, cached: 2048 });
  });
});
