// Reading provider answers, per dialect: the turn object (structured output,
// the orch_turn tool call, or advisory free text), tool calls with the items
// the transcript keeps (opaque reasoning and thinking included), every
// error status, each provider's context-overflow wording, and malformed
// bodies, which never throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/providers/anthropic.ts';
import { customBackend } from '../../../src/providers/custom.ts';
import { fromClient, isOverflow } from '../../../src/providers/errors.ts';
import { mistralBackend } from '../../../src/providers/mistral.ts';
import { openaiBackend } from '../../../src/providers/openai.ts';
import { routerBackend } from '../../../src/providers/router.ts';
import type { Backend, RoundRequest } from '../../../src/contracts/index.ts';
import { zaiBackend } from '../../../src/providers/zai.ts';
import { parseTurn } from '../../../src/turn/parse.ts';
import { TURN, roundRequest } from '../../support/provider-fake.ts';

const enc = (v: unknown): Uint8Array => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
const turnText = JSON.stringify(TURN);
const loop = (p: Backend['id']): RoundRequest => roundRequest(p, { model: p === 'router' ? 'openai/gpt-5-mini' : '' });
const single = (p: Backend['id']): RoundRequest => roundRequest(p, { mode: 'single', model: p === 'router' ? 'openai/gpt-5-mini' : '' });

describe('provider A answers', () => {
  const a = openaiBackend();
  it('single-shot: the structured output text is the turn', () => {
    const r = a.parse(200, enc({ status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: turnText, annotations: [] }] }] }), single('openai'));
    expect(r).toEqual({ kind: 'turn', json: turnText, items: [{ kind: 'assistant', text: turnText }] });
    expect(parseTurn(r.kind === 'turn' ? r.json : '').code).toBe('Ok');
  });

  it('loop: tool calls with reasoning kept as opaque items in order; orch_turn ends the turn', () => {
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc' };
    const r = a.parse(
      200,
      enc({
        status: 'completed',
        output: [
          reasoning,
          { type: 'function_call', id: 'fc_1', call_id: 'call_A', name: 'device_status', arguments: '{}', status: 'completed' },
          { type: 'function_call', id: 'fc_2', call_id: 'call_B', name: 'memory_search', arguments: '{"query":"x"}', status: 'completed' },
        ],
      }),
      loop('openai'),
    );
    expect(r).toEqual({
      kind: 'tools',
      calls: [
        { id: 'call_A', name: 'device_status', args: '{}' },
        { id: 'call_B', name: 'memory_search', args: '{"query":"x"}' },
      ],
      items: [
        { kind: 'opaque', provider: 'openai', raw: reasoning },
        // Each call keeps its fc_ item id: replayed, it pairs the reasoning item with its following item.
        { kind: 'tool_call', id: 'call_A', name: 'device_status', args: '{}', ref: 'fc_1' },
        { kind: 'tool_call', id: 'call_B', name: 'memory_search', args: '{"query":"x"}', ref: 'fc_2' },
      ],
    });
    const t = a.parse(200, enc({ output: [reasoning, { type: 'function_call', call_id: 'c', name: 'orch_turn', arguments: turnText }, { type: 'function_call', call_id: 'd', name: 'device_status', arguments: '{}' }] }), loop('openai'));
    expect(t).toMatchObject({ kind: 'turn', json: turnText });
  });

  it('a failed response with the overflow code, a refusal and an incomplete answer are typed', () => {
    expect(a.parse(200, enc({ status: 'failed', error: { code: 'context_length_exceeded', message: 'too long' }, output: [] }), loop('openai'))).toMatchObject({ error: 'context-overflow' });
    expect(a.parse(200, enc({ status: 'completed', output: [{ type: 'message', content: [{ type: 'refusal', refusal: 'no' }] }] }), single('openai'))).toMatchObject({ error: 'refused', message: expect.stringContaining('declined') });
    expect(a.parse(200, enc({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ type: 'reasoning', id: 'r', summary: [] }] }), single('openai'))).toMatchObject({ error: 'malformed', message: expect.stringContaining('max_output_tokens') });
  });
});

describe('provider B answers', () => {
  const b = anthropicBackend();
  it('the orch_turn tool input is the turn; other tool_use blocks are calls, thinking kept ahead of them', () => {
    expect(b.parse(200, enc({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'orch_turn', input: TURN }], stop_reason: 'tool_use' }), single('anthropic'))).toMatchObject({ kind: 'turn', json: turnText });
    const thinking = { type: 'thinking', thinking: 'hm', signature: 's' };
    const r = b.parse(200, enc({ content: [thinking, { type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_2', name: 'device_status', input: {} }] }), loop('anthropic'));
    expect(r).toEqual({
      kind: 'tools',
      calls: [{ id: 'toolu_2', name: 'device_status', args: '{}' }],
      items: [
        { kind: 'opaque', provider: 'anthropic', raw: thinking },
        { kind: 'assistant', text: 'Checking.' },
        { kind: 'tool_call', id: 'toolu_2', name: 'device_status', args: '{}' },
      ],
    });
  });

  it('loop rounds are advisory: a plain-text answer (even in a code fence) is read as the turn', () => {
    const r = b.parse(200, enc({ content: [{ type: 'text', text: '```json\n' + turnText + '\n```' }], stop_reason: 'end_turn' }), loop('anthropic'));
    expect(r).toMatchObject({ kind: 'turn', json: turnText });
    expect(b.parse(200, enc({ content: [], stop_reason: 'max_tokens' }), loop('anthropic'))).toMatchObject({ error: 'malformed', message: expect.stringContaining('max_tokens') });
  });
});

describe('provider C answers', () => {
  const c = mistralBackend();
  it('single-shot: the conversation message output is the turn (string or text chunks)', () => {
    expect(c.parse(200, enc({ outputs: [{ type: 'message.output', role: 'assistant', content: turnText }] }), single('mistral'))).toMatchObject({ kind: 'turn', json: turnText });
    expect(c.parse(200, enc({ outputs: [{ type: 'message.output', content: [{ type: 'text', text: turnText.slice(0, 10) }, { type: 'text', text: turnText.slice(10) }] }] }), single('mistral'))).toMatchObject({ kind: 'turn', json: turnText });
  });
  it('loop: tool calls keep Mistral ids; arguments given as an object become JSON text', () => {
    const r = c.parse(200, enc({ choices: [{ message: { role: 'assistant', content: '', tool_calls: [{ id: 'D681PevKs', function: { name: 'memory_search', arguments: { query: 'x' } } }] }, finish_reason: 'tool_calls' }] }), loop('mistral'));
    expect(r).toMatchObject({ kind: 'tools', calls: [{ id: 'D681PevKs', name: 'memory_search', args: '{"query":"x"}' }] });
  });
});

describe('chat-completions answers (Z.ai, router, custom)', () => {
  it.each([
    ['zai', zaiBackend()],
    ['router', routerBackend()],
    ['custom', customBackend({ base: 'http://x', style: 'chat', model: 'm' })],
  ] as Array<[string, Backend]>)('%s: content is the turn, orch_turn or tool calls as the loop says', (_id, be) => {
    expect(be.parse(200, enc({ choices: [{ message: { role: 'assistant', content: turnText }, finish_reason: 'stop' }] }), single(be.id))).toMatchObject({ kind: 'turn', json: turnText });
    expect(be.parse(200, enc({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'orch_turn', arguments: turnText } }] } }] }), loop(be.id))).toMatchObject({ kind: 'turn', json: turnText });
    const tools = be.parse(200, enc({ choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'device_status', arguments: '{}' } }] } }] }), loop(be.id));
    expect(tools).toMatchObject({ kind: 'tools', calls: [{ name: 'device_status', args: '{}' }] });
    if (tools.kind === 'tools') expect(tools.calls[0]!.id).not.toBe(''); // a missing id gets one
    expect(be.parse(200, enc({ choices: [{ message: { role: 'assistant', content: '' }, finish_reason: 'length' }] }), single(be.id))).toMatchObject({ error: 'malformed', message: expect.stringContaining('length') });
  });
});

describe('errors', () => {
  const cases: Array<[string, Backend, number, unknown]> = [
    ['openai chat wording', openaiBackend(), 400, { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 210417 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } }],
    ['openai responses wording', openaiBackend(), 400, { error: { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', code: 'context_length_exceeded' } }],
    ['anthropic', anthropicBackend(), 400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 215000 tokens > 200000 maximum' } }],
    ['anthropic request_too_large', anthropicBackend(), 413, { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } }],
    ['mistral', mistralBackend(), 400, { object: 'error', message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length', type: 'invalid_request_error' }],
    ['zai', zaiBackend(), 400, { error: { code: '1261', message: 'Prompt exceeds max length' } }],
    ['router (any wording)', routerBackend(), 400, { error: { message: 'prompt is too long: 300000 tokens > 200000 maximum' } }],
    ['custom (any wording)', customBackend({ base: 'http://x', style: 'chat', model: 'm' }), 400, { error: { message: 'tokens in request more than max tokens allowed' } }],
  ];
  it.each(cases)('context overflow by wording: %s', (_n, be, status, body) => {
    expect(be.parse(status, enc(body), loop(be.id))).toMatchObject({ kind: 'error', error: 'context-overflow', status });
  });

  it('statuses: 401/403 auth, 429 rate-limit, other 4xx and 5xx http (with the provider message), for every dialect', () => {
    for (const be of [openaiBackend(), anthropicBackend(), mistralBackend(), zaiBackend(), routerBackend(), customBackend({ base: 'http://x', style: 'messages', model: 'm' })]) {
      expect(be.parse(401, enc({ error: { message: 'Incorrect API key provided' } }), loop(be.id))).toMatchObject({ error: 'auth', status: 401 });
      expect(be.parse(403, enc(''), loop(be.id))).toMatchObject({ error: 'auth', status: 403 });
      expect(be.parse(429, enc({ error: { message: 'slow down' } }), loop(be.id))).toMatchObject({ error: 'rate-limit', status: 429 });
      expect(be.parse(400, enc({ error: { message: 'Invalid schema for response_format' } }), loop(be.id))).toMatchObject({ error: 'http', status: 400, message: expect.stringContaining('Invalid schema') });
      expect(be.parse(503, enc('<html>upstream down</html>'), loop(be.id))).toMatchObject({ error: 'http', status: 503 });
      expect(be.parse(529, enc({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), loop(be.id))).toMatchObject({ error: 'http', status: 529 });
    }
  });

  it('a 400 that is not about context is not an overflow (the engine must not start a fresh thread for it)', () => {
    expect(isOverflow('openai', 'Invalid value for tool_choice')).toBe(false);
    expect(isOverflow('anthropic', 'messages: text content blocks must be non-empty')).toBe(false);
    expect(isOverflow('mistral', 'Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.')).toBe(false);
  });

  it('client failures: timeout is timeout, refused/TLS/cut are transport, a bad URL is config, an oversized answer malformed', () => {
    expect(fromClient('timeout', 'x')).toMatchObject({ error: 'timeout' });
    expect(fromClient('connect', 'ECONN')).toMatchObject({ error: 'transport' });
    expect(fromClient('tls', 'ETLS')).toMatchObject({ error: 'transport' });
    expect(fromClient('protocol', 'cut')).toMatchObject({ error: 'transport' });
    expect(fromClient('aborted', 'cancelled')).toMatchObject({ error: 'transport' });
    expect(fromClient('bad-url', 'x')).toMatchObject({ error: 'config' });
    expect(fromClient('too-large', 'x')).toMatchObject({ error: 'malformed' });
  });

  it('error messages are capped, so a provider cannot flood the log', () => {
    const r = openaiBackend().parse(500, enc({ error: { message: 'x'.repeat(5000) } }), loop('openai'));
    expect(r.kind === 'error' && new TextEncoder().encode(r.message).length).toBeLessThanOrEqual(240);
  });
});

describe('malformed answers never throw', () => {
  const backends: Backend[] = [
    openaiBackend(),
    anthropicBackend(),
    mistralBackend(),
    zaiBackend(),
    routerBackend(),
    customBackend({ base: 'http://x', style: 'chat', model: 'm' }),
    customBackend({ base: 'http://x', style: 'messages', model: 'm' }),
  ];
  it('broken JSON, the wrong shapes, and empty bodies are malformed (2xx) or typed errors', () => {
    const bodies = ['', '{"id": "broken", "output": [', 'null', '[]', '"text"', '{}', '{"output": 5, "content": "x", "choices": [null], "outputs": {}}', '{"choices": [{"message": {"tool_calls": [1, null, {"function": 3}]}}]}'];
    for (const be of backends)
      for (const mode of ['single', 'loop'] as const)
        for (const text of bodies) {
          const r = be.parse(200, enc(text), roundRequest(be.id, { mode, model: be.id === 'router' ? 'openai/gpt-5-mini' : '' }));
          expect(r, `${be.id} ${mode} ${text}`).toMatchObject({ kind: 'error', error: 'malformed' });
        }
  });

  it('any bytes and any JSON, under any status (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...backends), fc.integer({ min: 100, max: 599 }), fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.json().map((j) => enc(j)), fc.jsonValue().map((v) => enc({ output: v, content: v, choices: [{ message: v }], outputs: v }))), fc.boolean(), (be, status, bytes, isLoop) => {
        const r = be.parse(status, bytes, roundRequest(be.id, { mode: isLoop ? 'loop' : 'single' }));
        expect(['turn', 'tools', 'error']).toContain(r.kind);
        if (status < 200 || status > 299) expect(r.kind).toBe('error');
      }),
      { numRuns: 2000 },
    );
  });
});
