// Replaying a provider's own answer on the next round, judged by the service
// rules the provider emulator enforces (tools/provider-rules.mjs): provider
// A's reasoning items keep their paired following item (fc_/msg_ ids) and
// carry encrypted content under store false, whatever the model id (codex-*);
// provider B's pause_turn continues the turn instead of failing it; refusal
// and the other stop reasons are read as what they are; every answer's
// usage is read.
import { describe, expect, it } from 'vitest';
import { checkRound } from '../../../tools/provider-rules.mjs';
import { anthropicBackend } from '../../../src/providers/anthropic.ts';
import { mistralBackend } from '../../../src/providers/mistral.ts';
import { openaiBackend } from '../../../src/providers/openai.ts';
import { usageOf } from '../../../src/providers/usage.ts';
import type { RoundRequest, RoundResult, TranscriptItem } from '../../../src/contracts/index.ts';
import { roundRequest } from '../../support/provider-fake.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const enc = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
const dec = (b: Uint8Array): Json => JSON.parse(new TextDecoder().decode(b)) as Json;

function bodyOf(backend: ReturnType<typeof openaiBackend>, req: RoundRequest): Json {
  const w = backend.build(req, 'sk-test');
  if ('kind' in w) throw new Error(w.message);
  return dec(w.body);
}

/** The next round after a tools answer: its items, then the device's result for each call. */
function nextRound(req: RoundRequest, r: RoundResult): RoundRequest {
  if (r.kind !== 'tools') throw new Error(`expected tools, got ${JSON.stringify(r)}`);
  const transcript: TranscriptItem[] = [...req.transcript, ...r.items, ...r.calls.map((c) => ({ kind: 'tool_result' as const, id: c.id, name: c.name, output: '{"success":true,"output":"80%"}' }))];
  return { ...req, transcript };
}

describe('provider A: reasoning replay', () => {
  const a = openaiBackend();

  it('a reasoning item is replayed right before its following item, under that item\'s fc_ id (the service refuses it unpaired)', () => {
    const req = roundRequest('openai', { model: 'gpt-5-mini' });
    expect(bodyOf(a, req)['include']).toEqual(['reasoning.encrypted_content']);
    const answer = {
      status: 'completed',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA-enc' },
        { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'device_status', arguments: '{}', status: 'completed' },
      ],
    };
    const next = nextRound(req, a.parse(200, enc(answer), req));
    const body = bodyOf(a, next);
    const input = body['input'] as Json[];
    const at = input.findIndex((i) => i['type'] === 'reasoning');
    expect(input[at + 1]).toMatchObject({ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] });
    expect(input[at + 2]).toMatchObject({ type: 'function_call', id: 'fc_1', call_id: 'call_1' });
    // The emulator's rule, with the pairing it recorded when it answered.
    const followers = new Map([['rs_1', 'msg_1']]);
    expect(checkRound('responses', { host: 'api.openai.com', headers: {}, body }, { family: 'openai', followers })).toBeNull();
  });

  it('codex-* models ask for encrypted reasoning; a reasoning item without it is never replayed (404 under store false)', () => {
    const req = roundRequest('openai', { model: 'codex-mini-latest' });
    expect(bodyOf(a, req)['include']).toEqual(['reasoning.encrypted_content']);
    // A model the device does not know as a reasoning model answers reasoning without encrypted content.
    const other = roundRequest('openai', { model: 'gpt-4.1' });
    expect(bodyOf(a, other)['include']).toBeUndefined();
    const answer = { status: 'completed', output: [{ type: 'reasoning', id: 'rs_2', summary: [] }, { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'device_status', arguments: '{}' }] };
    const body = bodyOf(a, nextRound(other, a.parse(200, enc(answer), other)));
    expect((body['input'] as Json[]).some((i) => i['type'] === 'reasoning')).toBe(false);
    expect(checkRound('responses', { host: 'api.openai.com', headers: {}, body }, { family: 'openai', followers: new Map() })).toBeNull();
  });

  it('usage with reasoning and cached tokens is read from the answer', () => {
    const req = roundRequest('openai');
    const r = a.parse(200, enc({ status: 'completed', output: [{ type: 'function_call', id: 'fc_3', call_id: 'c3', name: 'device_status', arguments: '{}' }], usage: { input_tokens: 1200, input_tokens_details: { cached_tokens: 1000 }, output_tokens: 300, output_tokens_details: { reasoning_tokens: 256 }, total_tokens: 1500 } }), req);
    expect(r.usage).toEqual({ input: 1200, output: 300, reasoning: 256, cached: 1000 });
  });

  it('a refusal is the model declining, not a malformed answer', () => {
    const req = roundRequest('openai', { mode: 'single' });
    expect(a.parse(200, enc({ status: 'completed', output: [{ type: 'message', id: 'msg_9', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] }] }), req)).toMatchObject({ kind: 'error', error: 'refused' });
  });
});

describe('provider B: stop reasons', () => {
  const b = anthropicBackend();

  it('pause_turn continues the turn: the paused content goes back as the assistant message, then the round is sent again', () => {
    const req = roundRequest('anthropic');
    const paused = {
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      ],
      stop_reason: 'pause_turn',
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 7, cache_creation_input_tokens: 3 },
    };
    const r = b.parse(200, enc(paused), req);
    expect(r).toMatchObject({ kind: 'continue', usage: { input: 20, output: 5, reasoning: 0, cached: 7 } });
    if (r.kind !== 'continue') return;
    const body = bodyOf(b, { ...req, transcript: [...req.transcript, ...r.items] });
    const messages = body['messages'] as Json[];
    expect(messages[messages.length - 1]).toEqual({ role: 'assistant', content: paused.content });
  });

  it('refusal and a full context window are typed; max_tokens is a cut answer', () => {
    const req = roundRequest('anthropic');
    expect(b.parse(200, enc({ content: [], stop_reason: 'refusal' }), req)).toMatchObject({ kind: 'error', error: 'refused' });
    expect(b.parse(200, enc({ content: [], stop_reason: 'model_context_window_exceeded' }), req)).toMatchObject({ kind: 'error', error: 'context-overflow' });
    expect(b.parse(200, enc({ content: [], stop_reason: 'max_tokens' }), req)).toMatchObject({ kind: 'error', error: 'malformed', message: expect.stringContaining('max_tokens') });
  });
});

describe('provider C: content chunks and usage', () => {
  const c = mistralBackend();
  it('a message made of chunks (thinking, then text) reads as its text; usage is read', () => {
    const req = roundRequest('mistral');
    const turn = JSON.stringify({ reply: 'Hi', memory: '', ask: '' });
    const r = c.parse(200, enc({ choices: [{ index: 0, message: { role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] }, { type: 'text', text: turn }] }, finish_reason: 'stop' }], usage: { prompt_tokens: 50, completion_tokens: 9, total_tokens: 59 } }), req);
    expect(r).toMatchObject({ kind: 'turn', json: turn, usage: { input: 50, output: 9, reasoning: 0, cached: 0 } });
  });
});

describe('usageOf', () => {
  it('reads every dialect\'s usage shape', () => {
    expect(usageOf({ usage: { prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 6 }, completion_tokens_details: { reasoning_tokens: 2 } } })).toEqual({ input: 10, output: 4, reasoning: 2, cached: 6 });
    expect(usageOf({ type: 'span.model_request_end', model_usage: { input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 } })).toEqual({ input: 7, output: 1, reasoning: 0, cached: 2 });
    expect(usageOf({ usage: null })).toBeNull();
    expect(usageOf({ status: 'in_progress' })).toBeNull();
  });
});
