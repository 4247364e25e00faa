// The request bodies of every provider dialect, checked against JSON schemas
// written from each provider's public API reference
// (test/fixtures/provider-schemas/*.json): single-shot, loop rounds, the
// forced final round, transcripts with tool calls and results, opaque
// replay; plus the rules each dialect has on top (tool choice, strictness,
// store false, Mistral's nine-character ids).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/providers/anthropic.ts';
import type { WireRound } from '../../../src/providers/common.ts';
import { customBackend } from '../../../src/providers/custom.ts';
import { DEMO_ENDPOINT } from '../../../src/providers/demo.ts';
import { mistralBackend } from '../../../src/providers/mistral.ts';
import { openaiBackend } from '../../../src/providers/openai.ts';
import { routerBackend } from '../../../src/providers/router.ts';
import type { Backend, RoundRequest, TranscriptItem, WireRequest } from '../../../src/contracts/index.ts';
import { zaiBackend } from '../../../src/providers/zai.ts';
import { MISTRAL_ID } from '../../../src/providers/tool-ids.ts';
import type { ToolServer } from '../../../src/providers/tool-servers.ts';
import { parseMessages } from '../../../src/providers/anthropic.ts';
import { parseResponses } from '../../../src/providers/openai.ts';
import { roundRequest, withToolExchange } from '../../support/provider-fake.ts';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/provider-schemas');
const ajv = new Ajv({ allErrors: true, strict: false });
const schemas: Record<string, ValidateFunction> = {};
for (const name of ['openai-responses-create', 'anthropic-messages-create', 'mistral-chat-completions', 'mistral-conversations-start', 'openai-chat-completions', 'zai-chat-completions']) {
  schemas[name] = ajv.compile(JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as object);
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function build(backend: Backend, req: RoundRequest | WireRound, key: string | null = 'sk-test-key-123'): WireRequest {
  const r = backend.build({ ...req, model: req.model || backend.defaultModel }, key);
  if ('kind' in r) throw new Error(`build failed: ${r.message}`);
  return r;
}

function body(w: WireRequest): Json {
  return JSON.parse(new TextDecoder().decode(w.body)) as Json;
}

function valid(schema: string, w: WireRequest): Json {
  const b = body(w);
  const check = schemas[schema]!;
  const ok = check(b);
  expect(ok, `${schema}: ${ajv.errorsText(check.errors, { separator: '\n' })}\n${JSON.stringify(b).slice(0, 2000)}`).toBe(true);
  return b;
}

const reasoningItem = { type: 'reasoning', id: 'rs_123', summary: [], encrypted_content: 'gAAAAB-encrypted' };
const thinkingBlock = { type: 'thinking', thinking: 'The user wants the battery.', signature: 'sig-abc' };

/** Every shape a transcript can take: replay items of two dialects, assistant text, a tool exchange with a foreign id. */
function richTranscript(): TranscriptItem[] {
  return [
    { kind: 'system', text: 'You are the desk assistant.' },
    { kind: 'system', text: '[SCRATCHPAD] nothing yet' },
    { kind: 'user', text: 'Hello' },
    { kind: 'assistant', text: '{"reply":"Hi","memory":"","ask":""}' },
    { kind: 'user', text: 'What is the battery level?' },
    { kind: 'opaque', provider: 'openai', raw: reasoningItem },
    { kind: 'opaque', provider: 'anthropic', raw: thinkingBlock },
    { kind: 'assistant', text: 'Let me check.' },
    { kind: 'tool_call', id: 'call_Abc.def:1', name: 'device_status', args: '{}' },
    { kind: 'tool_call', id: 'toolu_01XYZ', name: 'memory_search', args: '{"query":"battery"}' },
    { kind: 'tool_result', id: 'call_Abc.def:1', name: 'device_status', output: '{"success":true,"output":"battery 80%","error":null,"error_type":null}' },
    { kind: 'tool_result', id: 'toolu_01XYZ', name: 'memory_search', output: '{"success":true,"output":"- [80%] likes short answers","error":null,"error_type":null}' },
    { kind: 'system', text: 'A cap tripped: answer now.' },
  ];
}

const MODES: Array<[string, Partial<RoundRequest>]> = [
  ['single-shot', { mode: 'single' }],
  ['a loop round', { mode: 'loop' }],
  ['the forced final round', { mode: 'loop', forceFinal: true }],
  ['a loop round with tools and results in the transcript', { mode: 'loop', transcript: withToolExchange('call_1') }],
  ['a round replaying every item kind', { mode: 'loop', transcript: richTranscript() }],
];

describe('provider A (Responses API)', () => {
  const a = openaiBackend();
  it.each(MODES)('%s is a valid create-response request', (_name, over) => {
    const w = build(a, roundRequest('openai', over));
    expect(w.url).toBe('https://api.openai.com/v1/responses');
    expect(w.headers['Authorization']).toBe('Bearer sk-test-key-123');
    const b = valid('openai-responses-create', w);
    expect(b['store']).toBe(false);
  });

  it('single-shot: strict json_schema structured output with the turn schema, no tools', () => {
    const b = body(build(a, roundRequest('openai', { mode: 'single' })));
    expect(b['text'].format).toMatchObject({ type: 'json_schema', name: 'orch_turn', strict: true });
    expect(b['text'].format.schema.required).toEqual(['reply', 'memory', 'ask', 'device', 'mem_write', 'mem_query', 'session_ops', 'scratchpad']);
    expect(b['tools']).toBeUndefined();
  });

  it('loop: orch_turn (strict) plus the registry tools (non-strict), a tool required every round', () => {
    const b = body(build(a, roundRequest('openai')));
    expect(b['tools'].map((t: Json) => [t.name, t.strict])).toEqual([
      ['orch_turn', true],
      ['device_status', false],
      ['memory_search', false],
    ]);
    expect(b['tool_choice']).toBe('required');
  });

  it('forced final: only orch_turn, pinned by name', () => {
    const b = body(build(a, roundRequest('openai', { forceFinal: true })));
    expect(b['tools'].map((t: Json) => t.name)).toEqual(['orch_turn']);
    expect(b['tool_choice']).toEqual({ type: 'function', name: 'orch_turn' });
  });

  it('re-sends the full input with reasoning replayed in place, asks for encrypted reasoning on reasoning models only', () => {
    const b = body(build(a, roundRequest('openai', { transcript: richTranscript() })));
    const types = b['input'].map((i: Json) => i.type + (i.role ? `:${i.role}` : ''));
    expect(types).toEqual([
      'message:developer',
      'message:developer',
      'message:developer', // the turn's field docs, after the prompt blocks
      'message:user',
      'message:assistant',
      'message:user',
      'reasoning',
      'message:assistant',
      'function_call',
      'function_call',
      'function_call_output',
      'function_call_output',
      'message:developer',
    ]);
    // The field docs lead (the unchanging text first, for the prefix cache), then the prompt's system items.
    expect(b['input'][0].content).toContain('Answer with one JSON object');
    expect(b['prompt_cache_key']).toBe('desk-assistant-turn');
    expect(b['input'][6]).toEqual(reasoningItem); // verbatim; the other dialect's thinking block is dropped
    expect(b['input'][8]).toEqual({ type: 'function_call', call_id: 'call_Abc.def:1', name: 'device_status', arguments: '{}' });
    expect(b['include']).toEqual(['reasoning.encrypted_content']);
    expect(body(build(a, roundRequest('openai', { model: 'gpt-4.1' })))['include']).toBeUndefined();
  });
});

describe('provider B (Messages API)', () => {
  const b = anthropicBackend();
  it.each(MODES)('%s is a valid create-message request', (_name, over) => {
    const w = build(b, roundRequest('anthropic', over));
    expect(w.url).toBe('https://api.anthropic.com/v1/messages');
    expect(w.headers).toMatchObject({ 'x-api-key': 'sk-test-key-123', 'anthropic-version': '2023-06-01' });
    expect(w.headers['Authorization']).toBeUndefined();
    valid('anthropic-messages-create', w);
  });

  it('single-shot and forced final: forced tool use of orch_turn; loop: orch_turn with the registry tools under auto', () => {
    for (const over of [{ mode: 'single' as const }, { forceFinal: true }]) {
      const m = body(build(b, roundRequest('anthropic', over)));
      expect(m['tools'].map((t: Json) => t.name)).toEqual(['orch_turn']);
      expect(m['tool_choice']).toEqual({ type: 'tool', name: 'orch_turn' });
      expect(m['tools'][0].input_schema.type).toBe('object');
    }
    const loop = body(build(b, roundRequest('anthropic')));
    expect(loop['tools'].map((t: Json) => t.name)).toEqual(['orch_turn', 'device_status', 'memory_search']);
    expect(loop['tool_choice']).toEqual({ type: 'auto' });
    // The field docs and the prompt's first (stable) system item, marked for the prompt cache.
    expect(loop['system']).toEqual([{ type: 'text', text: expect.stringMatching(/^Answer with one JSON object[^]*\n\nYou are the desk assistant\. Be brief\.$/), cache_control: { type: 'ephemeral' } }]);
  });

  it('replays thinking ahead of the tool_use blocks of one assistant message, tool results in the next user message, ids the API accepts', () => {
    const m = body(build(b, roundRequest('anthropic', { transcript: richTranscript() })));
    // Two leading system items: the stable one cached with the docs, the changing one after the cache mark.
    expect(m['system']).toEqual([
      { type: 'text', text: expect.stringMatching(/^Answer with one JSON object[^]*\n\nYou are the desk assistant\.$/), cache_control: { type: 'ephemeral' } },
      { type: 'text', text: '[SCRATCHPAD] nothing yet' },
    ]);
    const roles = m['messages'].map((x: Json) => x.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    const assistant = m['messages'][3].content;
    expect(assistant.map((c: Json) => c.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    expect(assistant[0]).toEqual(thinkingBlock);
    const [use1, use2] = [assistant[2], assistant[3]];
    expect(use1.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(use2.id).toBe('toolu_01XYZ'); // already valid: kept
    expect(use2.input).toEqual({ query: 'battery' });
    const results = m['messages'][4].content;
    expect(results.map((c: Json) => c.tool_use_id)).toEqual([use1.id, use2.id, undefined]);
    expect(results[2]).toEqual({ type: 'text', text: 'A cap tripped: answer now.' });
  });
});

describe('provider C (conversations API and chat completions)', () => {
  const c = mistralBackend();
  it('single-shot: a conversations request with store false and strict json_schema', () => {
    const w = build(c, roundRequest('mistral', { mode: 'single' }));
    expect(w.url).toBe('https://api.mistral.ai/v1/conversations');
    const b = valid('mistral-conversations-start', w);
    expect(b['store']).toBe(false);
    expect(b['completion_args'].response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'orch_turn', strict: true } });
    expect(b['instructions']).toMatch(/^Answer with one JSON object[^]*\n\nYou are the desk assistant\. Be brief\.$/);
    const replay = valid('mistral-conversations-start', build(c, roundRequest('mistral', { mode: 'single', transcript: richTranscript() })));
    expect(replay['inputs'].map((e: Json) => e.type)).toEqual(['message.input', 'message.input', 'message.input', 'message.input', 'function.call', 'function.call', 'function.result', 'function.result', 'message.input']);
  });

  it.each(MODES.filter(([, o]) => o.mode === 'loop'))('%s is a valid stateless chat-completions request', (_name, over) => {
    const w = build(c, roundRequest('mistral', over));
    expect(w.url).toBe('https://api.mistral.ai/v1/chat/completions');
    const b = valid('mistral-chat-completions', w);
    if (over.forceFinal) {
      expect(b['tools'].map((t: Json) => t.function.name)).toEqual(['orch_turn']);
      expect(b['tool_choice']).toEqual({ type: 'function', function: { name: 'orch_turn' } });
    } else expect(b['tool_choice']).toBe('any');
    expect(b['tools'][0].function.strict).toBe(true);
  });

  it('sends a system item that comes after the conversation started as user text (the API refuses a late system role)', () => {
    const b = body(build(c, roundRequest('mistral', { transcript: richTranscript() })));
    const roles = b['messages'].map((m: Json) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'tool', 'user']);
    expect(b['messages'][4].content).toBe('Let me check.');
    expect(b['messages'][4].tool_calls).toHaveLength(2);
  });

  it('every tool-call id sent is exactly nine alphanumerics, one-to-one, calls and results alike (property)', () => {
    const idArb = fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^[A-Za-z0-9]{9}$/), fc.constantFrom('call_1', 'toolu_01', 'AAAAAAAAA', '', 'x'));
    fc.assert(
      fc.property(fc.array(idArb, { minLength: 1, maxLength: 8 }), fc.boolean(), (ids, single) => {
        const transcript: TranscriptItem[] = [{ kind: 'system', text: 's' }, { kind: 'user', text: 'u' }];
        ids.forEach((id, i) => {
          transcript.push({ kind: 'tool_call', id, name: 'device_status', args: '{}' });
          transcript.push({ kind: 'tool_result', id, name: 'device_status', output: `r${i}` });
        });
        const w = build(c, roundRequest('mistral', { transcript, mode: single ? 'single' : 'loop' }));
        const b = single ? valid('mistral-conversations-start', w) : valid('mistral-chat-completions', w);
        const sent: Array<[string, string]> = single
          ? b['inputs'].filter((e: Json) => e.type !== 'message.input').map((e: Json) => [e.type, e.tool_call_id])
          : b['messages'].flatMap((m: Json) => (m.role === 'tool' ? [['result', m.tool_call_id]] : (m.tool_calls ?? []).map((t: Json) => ['call', t.id])));
        for (const [, id] of sent) expect(id).toMatch(MISTRAL_ID);
        // The k-th original id maps to one sent id, the same for its call and its result; distinct ids stay distinct.
        const byOriginal = new Map<string, Set<string>>();
        const callIds = sent.filter(([k]) => k === 'call' || k === 'function.call').map(([, id]) => id);
        const resultIds = sent.filter(([k]) => k === 'result' || k === 'function.result').map(([, id]) => id);
        ids.forEach((id, i) => {
          expect(callIds[i]).toBe(resultIds[i]);
          byOriginal.set(id, (byOriginal.get(id) ?? new Set()).add(callIds[i]!));
        });
        for (const s of byOriginal.values()) expect(s.size).toBe(1);
        const mapped = [...byOriginal.values()].map((s) => [...s][0]);
        expect(new Set(mapped).size).toBe(byOriginal.size);
        for (const id of ids) if (MISTRAL_ID.test(id)) expect(byOriginal.get(id)!.has(id)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Z.ai-style backend', () => {
  const z = zaiBackend('https://open.bigmodel.cn');
  it.each(MODES)('%s is a valid chat-completions request under /api/paas/v4', (_name, over) => {
    const w = build(z, roundRequest('zai', over));
    expect(w.url).toBe('https://open.bigmodel.cn/api/paas/v4/chat/completions');
    const b = valid('zai-chat-completions', w);
    if (over.mode === 'single') {
      expect(b['response_format']).toEqual({ type: 'json_object' });
      expect(b['messages'][0].content).toContain('Answer with one JSON object');
    } else {
      expect(b['tool_choice']).toBe('auto');
      if (over.forceFinal) expect(b['tools'].map((t: Json) => t.function.name)).toEqual(['orch_turn']);
    }
  });
});

describe('model router', () => {
  const r = routerBackend('https://router.example.test');
  it.each(MODES)('%s goes to /router/<upstream>/v1/chat/completions with the bare model id', (_name, over) => {
    const w = build(r, roundRequest('router', { model: 'mistral/mistral-large-latest', ...over }));
    expect(w.url).toBe('https://router.example.test/router/mistral/v1/chat/completions');
    const b = valid('openai-chat-completions', w);
    expect(b['model']).toBe('mistral-large-latest');
    if (over.mode === 'single') expect(b['response_format'].json_schema).toMatchObject({ name: 'orch_turn', strict: true });
    else if (over.forceFinal) expect(b['tool_choice']).toEqual({ type: 'function', function: { name: 'orch_turn' } });
    else expect(b['tool_choice']).toBe('required');
  });

  it('refuses a model id that is not <upstream>/<model>', () => {
    expect(r.build(roundRequest('router', { model: 'gpt-5' }), 'k')).toMatchObject({ kind: 'error', error: 'config' });
  });
});

describe('custom endpoint', () => {
  it('chat style: single-shot chat completions with a strict schema at {origin}/v1/chat/completions (the path of the base is ignored)', () => {
    const c = customBackend({ base: 'https://llm.lan:8443/some/path/', style: 'chat', model: 'qwen3' });
    expect(c.loops).toBe(false);
    const w = build(c, roundRequest('custom', { mode: 'single', model: 'qwen3' }));
    expect(w.url).toBe('https://llm.lan:8443/v1/chat/completions');
    const b = valid('openai-chat-completions', w);
    expect(b['response_format']).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
  });

  it('the schema-less retry drops response_format and puts the field docs in the system prompt', () => {
    const c = customBackend({ base: 'http://10.0.0.5:11434', style: 'chat', model: 'llama3' });
    const w = build(c, { ...roundRequest('custom', { mode: 'single' }), schemaless: true } as WireRound, null);
    const b = valid('openai-chat-completions', w);
    expect(b['response_format']).toBeUndefined();
    expect(b['messages'][0].content).toContain('Answer with one JSON object');
  });

  it('messages style: a valid Anthropic-style request at {origin}/v1/messages, schemaless without tools', () => {
    const c = customBackend({ base: 'https://proxy.lan', style: 'messages', model: 'm' });
    const w = build(c, roundRequest('custom', { mode: 'single', transcript: richTranscript() }));
    expect(w.url).toBe('https://proxy.lan/v1/messages');
    valid('anthropic-messages-create', w);
    const plain = valid('anthropic-messages-create', build(c, { ...roundRequest('custom', { mode: 'single' }), schemaless: true } as WireRound));
    expect(plain['tools']).toBeUndefined();
    expect(plain['system']).toContain('Answer with one JSON object');
  });

  it('the offline demo endpoint runs tool loops in the OpenAI chat dialect', () => {
    const d = customBackend(DEMO_ENDPOINT);
    expect(d.loops).toBe(true);
    for (const [, over] of MODES) {
      const w = build(d, roundRequest('custom', { ...over, model: 'demo' }), null);
      expect(w.url).toBe('https://demo.emulator.test/v1/chat/completions');
      expect(w.headers['Authorization']).toBeUndefined();
      valid('openai-chat-completions', w);
    }
  });
});

describe('every dialect', () => {
  const all: Array<[string, Backend]> = [
    ['openai', openaiBackend()],
    ['anthropic', anthropicBackend()],
    ['mistral', mistralBackend()],
    ['zai', zaiBackend()],
    ['router', routerBackend()],
    ['custom', customBackend({ base: 'https://c.example', style: 'chat', model: 'x' })],
  ];
  it.each(all)('%s serializes the body once: the buffer is exactly the UTF-8 of one JSON text', (_id, backend) => {
    const text = 'Grüße, 😀 — «quotes» and \u2028 separators';
    const w = build(backend, roundRequest(backend.id, { mode: 'single', model: backend.id === 'router' ? 'openai/gpt-5-mini' : '', transcript: [{ kind: 'user', text }] }));
    expect(w.body).toBeInstanceOf(Uint8Array);
    const decoded = new TextDecoder('utf-8', { fatal: true }).decode(w.body);
    expect(new TextEncoder().encode(decoded)).toEqual(w.body);
    expect(decoded).toContain('Grüße, 😀');
  });

  it.each(all)('%s sends an automatic turn (no user message) with a message the API accepts', (id, backend) => {
    const w = build(backend, roundRequest(backend.id, { mode: 'loop', model: id === 'router' ? 'openai/gpt-5-mini' : '', transcript: [{ kind: 'system', text: '[FRESH RESULTS] job done' }] }));
    const schema = { openai: 'openai-responses-create', anthropic: 'anthropic-messages-create', mistral: 'mistral-chat-completions', zai: 'zai-chat-completions', router: 'openai-chat-completions', custom: 'openai-chat-completions' }[id]!;
    valid(schema, w);
  });
});

describe('the reference schemas catch the mistakes they exist for', () => {
  const reject = (schema: string, b: Json): void => expect(schemas[schema]!(b), `${schema} accepted ${JSON.stringify(b).slice(0, 300)}`).toBe(false);
  it('an unknown top-level field, a missing required field, a wrong tool_choice', () => {
    const a = body(build(openaiBackend(), roundRequest('openai')));
    reject('openai-responses-create', { ...a, tool_choices: 'required' });
    reject('openai-responses-create', { ...a, tool_choice: 'any' });
    const { model: _m, ...noModel } = a;
    reject('openai-responses-create', noModel);
    const b = body(build(anthropicBackend(), roundRequest('anthropic')));
    const { max_tokens: _t, ...noMax } = b;
    reject('anthropic-messages-create', noMax);
    reject('anthropic-messages-create', { ...b, tool_choice: 'auto' });
    const z = body(build(zaiBackend(), roundRequest('zai')));
    reject('zai-chat-completions', { ...z, tool_choice: 'required' });
  });
  it('a Mistral tool-call id that is not nine alphanumerics, a tool message with a name in the OpenAI dialect, tool_use in a user message', () => {
    const m = body(build(mistralBackend(), roundRequest('mistral', { transcript: withToolExchange('abcdefghi') })));
    expect(m['messages'][2].tool_calls[0].id).toBe('abcdefghi');
    m['messages'][2].tool_calls[0].id = 'call_1';
    reject('mistral-chat-completions', m);
    const r = body(build(routerBackend(), roundRequest('router', { model: 'openai/gpt-5-mini', transcript: withToolExchange('call_1') })));
    r['messages'][3].name = 'device_status';
    reject('openai-chat-completions', r);
    const b = body(build(anthropicBackend(), roundRequest('anthropic', { transcript: withToolExchange('toolu_1') })));
    b['messages'][0].content.push({ type: 'tool_use', id: 'x', name: 'n', input: {} });
    reject('anthropic-messages-create', b);
  });
  it('a reasoning item without its id, a function_call without call_id', () => {
    const a = body(build(openaiBackend(), roundRequest('openai', { transcript: richTranscript() })));
    const broken = structuredClone(a);
    delete broken['input'][6].id;
    reject('openai-responses-create', broken);
    const noCall = structuredClone(a);
    delete noCall['input'][8].call_id;
    reject('openai-responses-create', noCall);
  });
});

describe('remote tool servers (the owner approved connectors)', () => {
  const SERVERS: ToolServer[] = [
    { label: 'calendar', name: 'Calendar', url: 'https://mcp.calendar.test/mcp', connectorId: '', credential: 'access-token-1' },
    { label: 'open-data', name: 'open-data', url: 'https://mcp.open.test/', connectorId: '', credential: null },
  ];
  const GMAIL: ToolServer = { label: 'gmail', name: 'Mail', url: '', connectorId: 'connector_gmail', credential: 'gmail-token' };
  const mcpCall = { type: 'mcp_call', id: 'mcp_1', server_label: 'calendar', name: 'list_events', arguments: '{"day":"today"}', output: 'dentist at 10', error: null, status: 'completed' };
  const mcpUse = { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'list_events', server_name: 'calendar', input: { day: 'today' } };
  const mcpResult = { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', is_error: false, content: [{ type: 'text', text: 'dentist at 10' }] };
  const replay = (provider: 'openai' | 'anthropic'): TranscriptItem[] => [
    ...withToolExchange('call_1').slice(0, 2),
    ...(provider === 'openai' ? [{ kind: 'opaque' as const, provider, raw: mcpCall }] : [{ kind: 'opaque' as const, provider, raw: mcpUse }, { kind: 'opaque' as const, provider, raw: mcpResult }]),
    ...withToolExchange('call_1').slice(2),
  ];

  it('A: mcp tools after the function tools in a loop round; tool_choice stays required; valid against the reference', () => {
    const b = valid('openai-responses-create', build(openaiBackend(), { ...roundRequest('openai'), servers: [...SERVERS, GMAIL] }));
    expect(b['tools'].map((t: Json) => t.name ?? t.server_label)).toEqual(['orch_turn', 'device_status', 'memory_search', 'calendar', 'open-data', 'gmail']);
    expect(b['tools'].slice(3)).toEqual([
      { type: 'mcp', server_label: 'calendar', server_url: 'https://mcp.calendar.test/mcp', server_description: 'Calendar', authorization: 'access-token-1', require_approval: 'never' },
      { type: 'mcp', server_label: 'open-data', server_url: 'https://mcp.open.test/', require_approval: 'never' },
      { type: 'mcp', server_label: 'gmail', connector_id: 'connector_gmail', server_description: 'Mail', authorization: 'gmail-token', require_approval: 'never' },
    ]);
    expect(b['tool_choice']).toBe('required');
  });

  it('A: the forced final keeps them declared but still pins orch_turn; single-shot carries none', () => {
    const f = valid('openai-responses-create', build(openaiBackend(), { ...roundRequest('openai', { forceFinal: true, tools: [] }), servers: SERVERS }));
    expect(f['tools'].map((t: Json) => t.name ?? t.server_label)).toEqual(['orch_turn', 'calendar', 'open-data']);
    expect(f['tool_choice']).toEqual({ type: 'function', name: 'orch_turn' });
    const single = valid('openai-responses-create', build(openaiBackend(), { ...roundRequest('openai', { mode: 'single' }), servers: SERVERS }));
    expect(single['tools']).toBeUndefined();
    expect(JSON.stringify(single)).not.toContain('access-token-1');
  });

  it("A: a server's mcp_call is replayed while its server is declared, dropped once it is not", () => {
    const kept = valid('openai-responses-create', build(openaiBackend(), { ...roundRequest('openai', { transcript: replay('openai') }), servers: SERVERS }));
    expect(kept['input'].filter((i: Json) => i.type === 'mcp_call')).toEqual([mcpCall]);
    const dropped = valid('openai-responses-create', build(openaiBackend(), roundRequest('openai', { transcript: replay('openai') })));
    expect(dropped['input'].some((i: Json) => i.type === 'mcp_call')).toBe(false);
  });

  it('A: the answer keeps mcp_call items for replay and drops the tool listing', () => {
    const answer = { output: [{ type: 'mcp_list_tools', id: 'mcpl_1', server_label: 'calendar', tools: [{ name: 'list_events' }] }, mcpCall, { type: 'function_call', call_id: 'c9', name: 'device_status', arguments: '{}' }] };
    const r = parseResponses(200, new TextEncoder().encode(JSON.stringify(answer)), roundRequest('openai'));
    expect(r.kind).toBe('tools');
    if (r.kind === 'tools') expect(r.items).toEqual([{ kind: 'opaque', provider: 'openai', raw: mcpCall }, { kind: 'tool_call', id: 'c9', name: 'device_status', args: '{}' }]);
  });

  it('B: mcp_servers with the token, one toolset each after the function tools, the beta header; valid against the reference', () => {
    const w = build(anthropicBackend(), { ...roundRequest('anthropic'), servers: [...SERVERS, GMAIL] });
    const b = valid('anthropic-messages-create', w);
    expect(w.headers['anthropic-beta']).toBe('mcp-client-2025-11-20');
    // A connector by id only (no URL) cannot travel in the Messages API.
    expect(b['mcp_servers']).toEqual([
      { type: 'url', url: 'https://mcp.calendar.test/mcp', name: 'calendar', authorization_token: 'access-token-1' },
      { type: 'url', url: 'https://mcp.open.test/', name: 'open-data' },
    ]);
    expect(b['tools'].map((t: Json) => t.name ?? `${t.type}:${t.mcp_server_name}`)).toEqual(['orch_turn', 'device_status', 'memory_search', 'mcp_toolset:calendar', 'mcp_toolset:open-data']);
    expect(b['tool_choice']).toEqual({ type: 'auto' });
  });

  it('B: the forced final keeps them declared and pinned to orch_turn; single-shot and the custom endpoint carry none', () => {
    const f = valid('anthropic-messages-create', build(anthropicBackend(), { ...roundRequest('anthropic', { forceFinal: true, tools: [], transcript: replay('anthropic') }), servers: SERVERS }));
    expect(f['tool_choice']).toEqual({ type: 'tool', name: 'orch_turn' });
    expect(f['tools'].map((t: Json) => t.name ?? t.type)).toEqual(['orch_turn', 'mcp_toolset', 'mcp_toolset']);
    const assistant = f['messages'].find((m: Json) => m.role === 'assistant');
    expect(assistant.content.map((c: Json) => c.type)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'tool_use']);
    const single = build(anthropicBackend(), { ...roundRequest('anthropic', { mode: 'single' }), servers: SERVERS });
    expect(body(single)['mcp_servers']).toBeUndefined();
    expect(single.headers['anthropic-beta']).toBeUndefined();
    const custom = build(customBackend({ base: 'https://c.example', style: 'messages', model: 'x' }), { ...roundRequest('custom'), servers: SERVERS });
    expect(new TextDecoder().decode(custom.body)).not.toContain('mcp');
  });

  it("B: a server's blocks are replayed while it is declared, dropped (use and result) once it is not", () => {
    const dropped = valid('anthropic-messages-create', build(anthropicBackend(), roundRequest('anthropic', { transcript: replay('anthropic') })));
    expect(JSON.stringify(dropped)).not.toContain('mcp_tool');
    const other = valid('anthropic-messages-create', build(anthropicBackend(), { ...roundRequest('anthropic', { transcript: replay('anthropic') }), servers: [SERVERS[1]!] }));
    expect(JSON.stringify(other)).not.toContain('mcp_tool_');
  });

  it('B: the answer keeps mcp_tool_use and mcp_tool_result blocks for replay', () => {
    const answer = { content: [mcpUse, mcpResult, { type: 'tool_use', id: 'toolu_2', name: 'device_status', input: {} }], stop_reason: 'tool_use' };
    const r = parseMessages('anthropic', 200, new TextEncoder().encode(JSON.stringify(answer)), roundRequest('anthropic'));
    expect(r.kind).toBe('tools');
    if (r.kind === 'tools') expect(r.items.slice(0, 2)).toEqual([{ kind: 'opaque', provider: 'anthropic', raw: mcpUse }, { kind: 'opaque', provider: 'anthropic', raw: mcpResult }]);
  });
});

describe('the field documentation', () => {
  it('travels once, in the system prompt of every dialect, while tool and schema descriptions stay under 1024 characters', () => {
    const doc = roundRequest('openai').schemaDoc;
    expect(doc.length).toBeGreaterThan(1024);
    const backends: Backend[] = [openaiBackend(), anthropicBackend(), mistralBackend(), zaiBackend(), routerBackend(), customBackend({ base: 'https://c.example', style: 'chat', model: 'x' }), customBackend({ base: 'https://c.example', style: 'messages', model: 'x' })];
    for (const be of backends)
      for (const [, over] of MODES) {
        const text = new TextDecoder().decode(build(be, roundRequest(be.id, { ...over, model: be.id === 'router' ? 'openai/gpt-5-mini' : '' })).body);
        expect(text.split(JSON.stringify(doc).slice(1, -1)).length - 1, `${be.id} ${JSON.stringify(over)}`).toBe(1);
        const descriptions = [...text.matchAll(/"description":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
        for (const d of descriptions) expect(d.length).toBeLessThan(1024);
      }
  });
});
