// The device's stream readers fed realistic streams written against the
// official SDKs' stream event types (this file is type-checked with the rest
// of the tests: an event shape the SDK does not define fails the type-check;
// Mistral's events are parsed by its zod schemas instead), cut at arbitrary
// points, characters split anywhere: the turn's text handed on as it grows,
// usage (cached tokens included) read at the end, and a refusal, an error or
// a cut length mid-stream read as what it is. A stream that ends before its
// closing event is never read as an answer.
import fc from 'fast-check';
import type { ErrorResponse } from '@anthropic-ai/sdk/resources/shared';
import type { RawMessageStreamEvent, Message } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { CompletionChunk$inboundSchema, ConversationEventsData$inboundSchema } from '@mistralai/mistralai/models/components';
import { describe, expect, it } from 'vitest';
import type { StreamDialect, WireRound } from '../../../src/providers/common.ts';
import type { ProviderId } from '../../../src/providers/settings.ts';
import { streamReader } from '../../../src/providers/streamed.ts';
import { SseParser } from '../../../src/net/http/sse.ts';
import type { RoundResult } from '../../../src/contracts/index.ts';
import { roundRequest } from '../../support/provider-fake.ts';

const TURN = { reply: 'Le café est prêt. 😀 Shall I start the timer?', memory: '', ask: '', device: null, mem_write: null, mem_query: null, session_ops: null, scratchpad: null };
const JSON_TEXT = JSON.stringify(TURN);
/** The JSON in model-sized pieces, one cut inside the surrogate pair of the emoji (a piece may end with half a character). */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 5) out.push(text.slice(i, i + 5));
  return out;
}

interface Sse {
  event?: string;
  data: unknown;
}

function bytesOf(events: Sse[]): Uint8Array {
  return new TextEncoder().encode(events.map((e) => `${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`).join(''));
}

function read(dialect: StreamDialect, provider: ProviderId, req: WireRound, bytes: Uint8Array, cuts: number[]): { result: RoundResult; text: string } {
  let text = '';
  const reader = streamReader(dialect, provider, req, (d) => (text += d));
  const sse = new SseParser((n, d) => reader.event(n, d));
  let at = 0;
  for (const c of [...new Set(cuts.filter((x) => x > 0 && x < bytes.length))].sort((a, b) => a - b).concat(bytes.length)) {
    sse.feed(bytes.slice(at, c));
    at = c;
  }
  sse.end();
  return { result: reader.finish(), text };
}

/** Reads the stream under many chunkings; every one must give the same result and text. */
function readAll(dialect: StreamDialect, provider: ProviderId, req: WireRound, events: Sse[], completeFrom = events.length - 1): { result: RoundResult; text: string } {
  const bytes = bytesOf(events);
  const first = read(dialect, provider, req, bytes, []);
  fc.assert(
    fc.property(fc.array(fc.nat(bytes.length), { maxLength: 60 }), (cuts) => {
      expect(read(dialect, provider, req, bytes, cuts)).toEqual(first);
    }),
    { numRuns: 40 },
  );
  // Cut short anywhere before its closing event, a stream is never an answer (chat: the finish_reason closes it).
  for (let n = 0; n < completeFrom; n++) expect(read(dialect, provider, req, bytesOf(events.slice(0, n + 1)), []).result.kind).toMatch(/^error$/);
  return first;
}

const sse = <T extends { type: string }>(events: T[]): Sse[] => events.map((e) => ({ event: e.type, data: e }));

describe('Responses streams (openai ResponseStreamEvent)', () => {
  const base = { id: 'resp_1', object: 'response', created_at: 1, model: 'gpt-5-mini', status: 'in_progress', output: [], usage: null, error: null, incomplete_details: null } as unknown as Response;
  const req: WireRound = { ...roundRequest('openai'), model: 'gpt-5-mini', stream: true };
  const fcItem = { type: 'function_call' as const, id: 'fc_1', call_id: 'call_1', name: 'orch_turn', arguments: '', status: 'in_progress' as const };

  it('orch_turn in argument pieces, usage with cached tokens at the end', () => {
    const events: ResponseStreamEvent[] = [
      { type: 'response.created', sequence_number: 0, response: base },
      { type: 'response.in_progress', sequence_number: 1, response: base },
      { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: fcItem },
      ...pieces(JSON_TEXT).map((delta, i): ResponseStreamEvent => ({ type: 'response.function_call_arguments.delta', sequence_number: 3 + i, output_index: 0, item_id: 'fc_1', delta })),
      { type: 'response.function_call_arguments.done', sequence_number: 90, output_index: 0, item_id: 'fc_1', name: 'orch_turn', arguments: JSON_TEXT },
      { type: 'response.output_item.done', sequence_number: 91, output_index: 0, item: { ...fcItem, arguments: JSON_TEXT, status: 'completed' } },
      {
        type: 'response.completed',
        sequence_number: 92,
        response: { ...base, status: 'completed', output: [{ ...fcItem, arguments: JSON_TEXT, status: 'completed' }], usage: { input_tokens: 900, input_tokens_details: { cached_tokens: 768, cache_write_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 940 } },
      },
    ];
    const { result, text } = readAll('responses', 'openai', req, sse(events));
    expect(result).toMatchObject({ kind: 'turn', json: JSON_TEXT, usage: { input: 900, output: 40, reasoning: 0, cached: 768 } });
    expect(text).toBe(JSON_TEXT);
  });

  it('a refusal mid-stream, an error event (rate limit), and an answer cut at max_output_tokens', () => {
    const msg = { type: 'message' as const, id: 'msg_1', role: 'assistant' as const, status: 'in_progress' as const, content: [] };
    const refusal: ResponseStreamEvent[] = [
      { type: 'response.created', sequence_number: 0, response: base },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: msg },
      { type: 'response.content_part.added', sequence_number: 2, output_index: 0, item_id: 'msg_1', content_index: 0, part: { type: 'refusal', refusal: '' } },
      { type: 'response.refusal.delta', sequence_number: 3, output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'I cannot ' },
      { type: 'response.refusal.delta', sequence_number: 4, output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'help with that.' },
      { type: 'response.refusal.done', sequence_number: 5, output_index: 0, item_id: 'msg_1', content_index: 0, refusal: 'I cannot help with that.' },
      { type: 'response.output_item.done', sequence_number: 6, output_index: 0, item: { ...msg, status: 'completed', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] } },
      { type: 'response.completed', sequence_number: 7, response: { ...base, status: 'completed', output: [] } },
    ];
    expect(readAll('responses', 'openai', req, sse(refusal)).result).toMatchObject({ kind: 'error', error: 'refused', message: expect.stringContaining('I cannot help with that.') });
    const error: ResponseStreamEvent[] = [
      { type: 'response.created', sequence_number: 0, response: base },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: fcItem },
      { type: 'response.function_call_arguments.delta', sequence_number: 2, output_index: 0, item_id: 'fc_1', delta: '{"reply":"Hal' },
      { type: 'error', sequence_number: 3, code: 'rate_limit_exceeded', message: 'Rate limit reached for gpt-5-mini.', param: null },
    ];
    const e = read('responses', 'openai', req, bytesOf(sse(error)), [40]);
    expect(e.result).toMatchObject({ kind: 'error', error: 'rate-limit' });
    expect(e.text).toBe('{"reply":"Hal');
    const cut: ResponseStreamEvent[] = [
      { type: 'response.created', sequence_number: 0, response: base },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: fcItem },
      { type: 'response.function_call_arguments.delta', sequence_number: 2, output_index: 0, item_id: 'fc_1', delta: '{"reply":"Hal' },
      { type: 'response.incomplete', sequence_number: 3, response: { ...base, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ ...fcItem, arguments: '{"reply":"Hal', status: 'incomplete' }] } },
    ];
    // Read as the whole answer is: the cut JSON goes to the turn parser, which refuses it (src/turn/parse.ts).
    expect(read('responses', 'openai', req, bytesOf(sse(cut)), []).result).toMatchObject({ kind: 'turn', json: '{"reply":"Hal' });
  });
});

describe('Messages streams (Anthropic RawMessageStreamEvent)', () => {
  const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 2048 } } as unknown as Message;
  const req: WireRound = { ...roundRequest('anthropic'), model: 'claude-sonnet-4-5', stream: true };
  const usage = (output_tokens: number) => ({ output_tokens, input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 2048, output_tokens_details: null, server_tool_use: null });

  it('thinking, then orch_turn in input_json_delta pieces; a ping between; the cached prompt counted', () => {
    const events: RawMessageStreamEvent[] = [
      { type: 'message_start', message },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The owner wants coffee.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'orch_turn', input: {}, caller: { type: 'direct' } } as never },
      ...pieces(JSON_TEXT).map((partial_json): RawMessageStreamEvent => ({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json } })),
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null, container: null, stop_details: null }, usage: usage(57) },
      { type: 'message_stop' },
    ];
    const list = sse(events);
    list.splice(2, 0, { event: 'ping', data: { type: 'ping' } });
    const { result, text } = readAll('messages', 'anthropic', req, list);
    expect(result).toMatchObject({ kind: 'turn', json: JSON_TEXT, usage: { input: 2060, output: 57, cached: 2048 } });
    expect(text).toBe(JSON_TEXT);
  });

  it('a refusal after some text, and an overloaded error mid-stream', () => {
    const refusal: RawMessageStreamEvent[] = [
      { type: 'message_start', message },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'I ' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null, container: null, stop_details: null }, usage: usage(2) },
      { type: 'message_stop' },
    ];
    expect(readAll('messages', 'anthropic', req, sse(refusal)).result).toMatchObject({ kind: 'error', error: 'refused', usage: { output: 2 } });
    const overloaded: ErrorResponse = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: null };
    const events: Sse[] = [...sse<RawMessageStreamEvent>([{ type: 'message_start', message }, { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'orch_turn', input: {} } as never }, { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"reply": "Le' } }]), { event: 'error', data: overloaded }];
    const r = read('messages', 'anthropic', req, bytesOf(events), []);
    expect(r.result).toMatchObject({ kind: 'error', error: 'http', message: expect.stringContaining('overloaded_error') });
    expect(r.text).toBe('{"reply": "Le');
  });
});

describe('chat completion chunks (openai ChatCompletionChunk; Mistral CompletionChunk by its schema)', () => {
  const chunk = (delta: ChatCompletionChunk.Choice['delta'], finish_reason: ChatCompletionChunk.Choice['finish_reason'] = null): ChatCompletionChunk => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [{ index: 0, delta, finish_reason, logprobs: null }] });

  it('orch_turn and a tool call in pieces by index; usage in a last chunk of its own; [DONE]', () => {
    const req: WireRound = { ...roundRequest('router'), model: 'openai/gpt-5-mini', stream: true };
    const chunks: ChatCompletionChunk[] = [
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'orch_turn', arguments: '' } }] }),
      ...pieces(JSON_TEXT).map((p) => chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] })),
      chunk({}, 'tool_calls'),
      { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-x', choices: [], usage: { prompt_tokens: 500, completion_tokens: 45, total_tokens: 545, prompt_tokens_details: { cached_tokens: 384 } } },
    ];
    const { result, text } = readAll('chat', 'router', req, [...chunks.map((data) => ({ data })), { data: '[DONE]' }], chunks.length - 2);
    expect(result).toMatchObject({ kind: 'turn', json: JSON_TEXT, usage: { input: 500, output: 45, cached: 384 } });
    expect(text).toBe(JSON_TEXT);
  });

  it('a refusal in pieces; an error object mid-stream', () => {
    const req: WireRound = { ...roundRequest('custom', { mode: 'single' }), model: 'local', stream: true };
    const refusal = [chunk({ role: 'assistant', content: null, refusal: '' }), chunk({ refusal: 'Not ' }), chunk({ refusal: 'that.' }), chunk({}, 'stop')];
    expect(readAll('chat', 'custom', req, [...refusal.map((data) => ({ data })), { data: '[DONE]' }], refusal.length - 1).result).toMatchObject({ kind: 'error', error: 'refused', message: expect.stringContaining('Not that.') });
    const broken = read('chat', 'custom', req, bytesOf([{ data: chunk({ content: '{"reply":"He' }) }, { data: { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } } }]), [3]);
    expect(broken.result).toMatchObject({ kind: 'error', error: 'http' });
    expect(broken.text).toBe('{"reply":"He');
  });

  it("Mistral's chunks (each parsed by the SDK's CompletionChunk schema): content chunks, the tool call whole, usage in the last chunk", () => {
    const req: WireRound = { ...roundRequest('mistral'), model: 'mistral-medium-latest', stream: true };
    const raw = [
      { id: 'm1', object: 'chat.completion.chunk', created: 1, model: 'mistral-medium-latest', choices: [{ index: 0, delta: { role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] }] }, finish_reason: null }] },
      { id: 'm1', object: 'chat.completion.chunk', created: 1, model: 'mistral-medium-latest', choices: [{ index: 0, delta: { tool_calls: [{ id: 'abcDEF123', function: { name: 'orch_turn', arguments: JSON_TEXT }, index: 0 }] }, finish_reason: null }] },
      { id: 'm1', object: 'chat.completion.chunk', created: 1, model: 'mistral-medium-latest', choices: [{ index: 0, delta: { content: '' }, finish_reason: 'tool_calls' }], usage: { prompt_tokens: 300, completion_tokens: 44, total_tokens: 344 } },
    ];
    for (const r of raw) expect(CompletionChunk$inboundSchema.safeParse(r).success).toBe(true);
    const { result, text } = readAll('chat', 'mistral', req, [...raw.map((data) => ({ data })), { data: '[DONE]' }], raw.length - 1);
    expect(result).toMatchObject({ kind: 'turn', json: JSON_TEXT, usage: { input: 300, output: 44 } });
    expect(text).toBe(JSON_TEXT);
  });

  it("Mistral's conversation events (each parsed by the SDK's ConversationEventsData schema): the answer in pieces, an error mid-way", () => {
    const req: WireRound = { ...roundRequest('mistral', { mode: 'single' }), model: 'mistral-medium-latest', stream: true };
    const at = '2026-11-30T10:00:00Z';
    const events = [
      { type: 'conversation.response.started', created_at: at, conversation_id: 'conv_1' },
      ...pieces(JSON_TEXT).map((content) => ({ type: 'message.output.delta', created_at: at, output_index: 0, id: 'msg_1', content_index: 0, model: 'mistral-medium-latest', role: 'assistant', content })),
      { type: 'conversation.response.done', created_at: at, usage: { prompt_tokens: 200, completion_tokens: 40, total_tokens: 240 } },
    ];
    for (const e of events) expect(ConversationEventsData$inboundSchema.safeParse(e).success).toBe(true);
    const { result, text } = readAll('conversations', 'mistral', req, events.map((data) => ({ event: data.type, data })));
    expect(result).toMatchObject({ kind: 'turn', json: JSON_TEXT, usage: { input: 200, output: 40 } });
    expect(text).toBe(JSON_TEXT);
    const error = { type: 'conversation.response.error', created_at: at, message: 'Prompt contains 40000 tokens, too large for model with 32768 maximum context length', code: 3051 };
    expect(ConversationEventsData$inboundSchema.safeParse(error).success).toBe(true);
    expect(read('conversations', 'mistral', req, bytesOf([{ event: events[0]!.type, data: events[0] }, { event: error.type, data: error }]), []).result).toMatchObject({ kind: 'error', error: 'context-overflow' });
  });
});
