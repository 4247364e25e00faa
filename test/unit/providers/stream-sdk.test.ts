// Streamed rounds judged by the official SDKs (openai 6.49, @anthropic-ai/sdk
// 1.14, @mistralai/mistralai 2.7). Each SDK's own streaming client, pointed at
// the provider emulator, consumes the emulator's stream without error and
// assembles the expected final message (openai's ResponseStream and
// ChatCompletionStream, Anthropic's MessageStream, Mistral's EventStreams,
// whose zod schemas parse every event). The bytes the SDK read are kept and
// fed to the device's own stream reader (src/providers/streamed.ts's
// readers behind src/net/http/sse.ts) cut at arbitrary points: it must reach
// the round result the device's whole-answer parser reads from the SDK's
// assembled message, and hand on the turn's text as it grows (the pieces
// join to the turn's JSON). A stream that fails mid-way (the dialect's error
// event, or a dropped connection) is an error in the SDK and in the device.
// The request bodies are the device's own (its backends, stream: true).
import fc from 'fast-check';
import Anthropic, { APIError as AnthropicAPIError } from '@anthropic-ai/sdk';
import { HTTPClient, Mistral } from '@mistralai/mistralai';
import OpenAI, { APIError as OpenAIAPIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/providers/anthropic.ts';
import type { StreamDialect, WireRound } from '../../../src/providers/common.ts';
import { customBackend } from '../../../src/providers/custom.ts';
import { mistralBackend } from '../../../src/providers/mistral.ts';
import { openaiBackend } from '../../../src/providers/openai.ts';
import type { ProviderId } from '../../../src/providers/settings.ts';
import { streamReader } from '../../../src/providers/streamed.ts';
import { SseParser } from '../../../src/net/http/sse.ts';
import type { Backend, RoundResult } from '../../../src/contracts/index.ts';
import { start, turnObject, type Behaviour, type Emulator } from '../../../tools/provider-emulator.mjs';
import { testCaPem } from '../../../tools/test-ca.mjs';
import { roundRequest } from '../../support/provider-fake.ts';
import { routedFetch } from '../../support/routed-fetch.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await start();
});
afterAll(async () => {
  await emu.close();
});
// Each case scripts its own answer: nothing left over from another.
beforeEach(() => emu.reset());

const enc = new TextEncoder();
const TURN = turnObject('The battery is at 80%. It charges in an hour. Anything else? Ça va, 日本語 and 😀 too.', { memory: 'asked about the battery' });
const TURN_JSON = JSON.stringify(TURN);

/** A fetch to the emulator that keeps the answer's bytes as the SDK reads them. */
function teeFetch(): { fetch: typeof fetch; bytes(): Uint8Array } {
  const inner = routedFetch(emu.port, testCaPem());
  let chunks: Uint8Array[] = [];
  return {
    fetch: async (input, init) => {
      chunks = [];
      const res = await inner(input, init);
      if (!res.body) return res;
      const reader = res.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(c) {
          try {
            const r = await reader.read();
            if (r.done) return c.close();
            chunks.push(r.value);
            c.enqueue(r.value);
          } catch (e) {
            c.error(e);
          }
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    },
    bytes: () => {
      const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      return out;
    },
  };
}

/** The device's reader fed these bytes cut at these points: its result and the turn text it handed on. */
function deviceReads(dialect: StreamDialect, provider: ProviderId, req: WireRound, bytes: Uint8Array, cuts: number[]): { result: RoundResult; text: string } {
  let text = '';
  const reader = streamReader(dialect, provider, req, (d) => (text += d));
  const sse = new SseParser((name, data) => reader.event(name, data));
  let at = 0;
  for (const c of [...new Set(cuts.filter((x) => x > 0 && x < bytes.length))].sort((a, b) => a - b).concat(bytes.length)) {
    sse.feed(bytes.slice(at, c));
    at = c;
  }
  sse.end();
  expect(sse.error).toBeNull();
  return { result: reader.finish(), text };
}

/** The device's reading agrees with its whole-answer parser on the SDK's assembled message, under any chunking. */
function agrees(dialect: StreamDialect, provider: ProviderId, backend: Backend, req: WireRound, bytes: Uint8Array, assembled: unknown, turnText: string | null): RoundResult {
  const whole = backend.parse(200, enc.encode(JSON.stringify(assembled)), req);
  fc.assert(
    fc.property(fc.array(fc.nat(bytes.length), { maxLength: 40 }), (cuts) => {
      const { result, text } = deviceReads(dialect, provider, req, bytes, cuts);
      expect(result).toEqual(whole);
      if (turnText !== null) expect(text).toBe(turnText);
    }),
    { numRuns: 25 },
  );
  return whole;
}

/** The device's request body for a round, streamed. */
function body(backend: Backend, req: WireRound, key: string | null): Record<string, unknown> {
  const built = backend.build(req, key);
  if ('kind' in built) throw new Error(built.message);
  return JSON.parse(new TextDecoder().decode(built.body));
}

const openai = (f: typeof fetch, baseURL = 'https://api.openai.com/v1'): OpenAI => new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0, fetch: f });
// @anthropic-ai/sdk 1.14 sends an API key as Authorization: Bearer with anthropic-version 2026-10-21; the device sends
// x-api-key with 2023-06-01 (both documented), which the emulator requires: the client is told to send what the device does.
const anthropic = (f: typeof fetch, baseURL = 'https://api.anthropic.com'): Anthropic =>
  new Anthropic({ apiKey: 'sk-ant-test', baseURL, maxRetries: 0, fetch: f, defaultHeaders: { 'X-Api-Key': 'sk-ant-test', 'anthropic-version': '2023-06-01' } });
const mistral = (f: typeof fetch): Mistral => new Mistral({ apiKey: 'mistral-test', serverURL: 'https://api.mistral.ai', httpClient: new HTTPClient({ fetcher: f }), retryConfig: { strategy: 'none' } });

const script = (b: Behaviour): void => emu.script(b);

describe('provider A, Responses (openai ResponseStream)', () => {
  const backend = openaiBackend();
  const cases: Array<[string, Partial<WireRound>, Behaviour, string | null]> = [
    ['a loop round ending with orch_turn, a reasoning item first', { mode: 'loop' }, { turn: TURN, reasoning: true }, TURN_JSON],
    ['a single-shot round (structured output text)', { mode: 'single' }, { turn: TURN }, TURN_JSON],
    ['a tool round (device_status)', { mode: 'loop' }, { tools: [{ name: 'device_status', args: {} }] }, ''],
    ['a refusal', { mode: 'loop' }, { refusal: 'I cannot help with that.' }, ''],
  ];
  it.each(cases)('%s', async (_name, over, behaviour, turnText) => {
    const req: WireRound = { ...roundRequest('openai', over), model: 'gpt-5-mini', stream: true };
    script(behaviour);
    const tee = teeFetch();
    const stream = openai(tee.fetch).responses.stream(body(backend, req, 'sk-test') as never);
    const seen: string[] = [];
    for await (const e of stream) seen.push(e.type);
    const final = await stream.finalResponse();
    expect(seen[0]).toBe('response.created');
    expect(seen[seen.length - 1]).toBe('response.completed');
    const r = agrees('responses', 'openai', backend, req, tee.bytes(), final, turnText);
    if (turnText) expect(r).toMatchObject({ kind: 'turn', json: TURN_JSON });
    if (behaviour.tools) expect(r).toMatchObject({ kind: 'tools', calls: [{ name: 'device_status', args: '{}' }] });
    if (behaviour.refusal) expect(r).toMatchObject({ kind: 'error', error: 'refused' });
    expect(r.usage).toEqual(behaviour.reasoning ? { input: 100, output: 32, reasoning: 12, cached: 40 } : { input: 100, output: 20, reasoning: 0, cached: 40 });
    const rec = emu.requests.at(-1)!;
    expect([rec.streamed, rec.refused]).toEqual([true, undefined]);
  });
});

describe('provider B, Messages (Anthropic MessageStream)', () => {
  const backend = anthropicBackend();
  const cases: Array<[string, Partial<WireRound>, Behaviour, string | null]> = [
    ['a loop round: thinking, then orch_turn built from input_json_delta pieces', { mode: 'loop' }, { turn: TURN, reasoning: true }, TURN_JSON],
    ['a single-shot round (orch_turn pinned)', { mode: 'single' }, { turn: TURN }, TURN_JSON],
    ['a tool round', { mode: 'loop' }, { tools: [{ name: 'device_status', args: { detail: 'all' } }] }, ''],
    ['a refusal (stop_reason refusal)', { mode: 'loop' }, { refusal: true }, ''],
    ['a paused turn (pause_turn with a server tool call)', { mode: 'loop' }, { pause: true, text: 'Searching.' }, ''],
  ];
  it.each(cases)('%s', async (_name, over, behaviour, turnText) => {
    const req: WireRound = { ...roundRequest('anthropic', over), model: 'claude-sonnet-4-5', stream: true };
    script(behaviour);
    const tee = teeFetch();
    const stream = anthropic(tee.fetch).messages.stream(body(backend, req, 'sk-ant-test') as never);
    const final = await stream.finalMessage();
    const r = agrees('messages', 'anthropic', backend, req, tee.bytes(), final, turnText);
    if (turnText) {
      expect(final.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'orch_turn', input: TURN });
      expect(r).toMatchObject({ kind: 'turn', json: TURN_JSON });
    }
    if (behaviour.refusal) expect(r).toMatchObject({ kind: 'error', error: 'refused' });
    if (behaviour.pause) expect(r.kind).toBe('continue');
    expect(r.usage).toMatchObject({ input: 130, output: 20, cached: 30 });
  });
});

describe('chat completions (openai ChatCompletionStream): the custom endpoint, OpenAI-style', () => {
  const backend = customBackend({ base: 'https://custom.emulator.test', style: 'chat', model: 'local' });
  const cases: Array<[string, Partial<WireRound>, Behaviour, string | null]> = [
    ['a single-shot round: the JSON in content pieces', { mode: 'single' }, { turn: TURN }, TURN_JSON],
    ['a refusal in refusal pieces', { mode: 'single' }, { refusal: 'No.' }, ''],
  ];
  it.each(cases)('%s', async (_name, over, behaviour, turnText) => {
    const req: WireRound = { ...roundRequest('custom', over), model: 'local', stream: true };
    script(behaviour);
    const tee = teeFetch();
    const sent = body(backend, req, null);
    expect(sent['stream_options']).toEqual({ include_usage: true });
    const stream = openai(tee.fetch, 'https://custom.emulator.test/v1').chat.completions.stream(sent as never);
    const final = await stream.finalChatCompletion();
    expect(final.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 20 });
    const r = agrees('chat', 'custom', backend, req, tee.bytes(), final, turnText);
    if (turnText) expect(r).toMatchObject({ kind: 'turn', json: TURN_JSON });
    else expect(r).toMatchObject({ kind: 'error', error: 'refused' });
    expect(r.usage).toEqual({ input: 100, output: 20, reasoning: 5, cached: 50 });
  });

  it('a loop round: orch_turn and a tool call in argument pieces, by index (the offline demo endpoint, which loops)', async () => {
    const demo = customBackend({ base: 'https://demo.emulator.test', style: 'chat', model: 'demo', loops: true });
    const req: WireRound = { ...roundRequest('custom'), model: 'demo', stream: true };
    script({ turn: TURN, tools: [{ name: 'device_status', args: { n: 1 } }] });
    const tee = teeFetch();
    const stream = openai(tee.fetch, 'https://demo.emulator.test/v1').chat.completions.stream(body(demo, req, null) as never);
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls?.map((c) => (c.type === 'function' ? c.function.name : ''))).toEqual(['orch_turn', 'device_status']);
    expect(agrees('chat', 'custom', demo, req, tee.bytes(), final, TURN_JSON)).toMatchObject({ kind: 'turn', json: TURN_JSON });
  });
});

describe('provider C (Mistral EventStreams: every event parsed by the SDK)', () => {
  const backend = mistralBackend();
  it('a loop round on chat completions: the tool call whole in one chunk, usage in the last', async () => {
    const req: WireRound = { ...roundRequest('mistral'), model: 'mistral-medium-latest', stream: true };
    const sent = body(backend, req, 'mistral-test');
    expect(sent['stream_options']).toBeUndefined();
    script({ turn: TURN });
    const tee = teeFetch();
    const stream = await mistral(tee.fetch).chat.stream({
      model: 'mistral-medium-latest',
      messages: [{ role: 'user', content: 'What is the battery level?' }],
      tools: [{ type: 'function', function: { name: 'orch_turn', description: 'the turn', parameters: { type: 'object' } } }],
      toolChoice: 'any',
    });
    let args = '';
    let usage = 0;
    for await (const ev of stream) {
      for (const tc of ev.data.choices[0]?.delta.toolCalls ?? []) args += typeof tc.function.arguments === 'string' ? tc.function.arguments : JSON.stringify(tc.function.arguments);
      if (ev.data.usage) usage = ev.data.usage.totalTokens ?? 0;
    }
    expect(JSON.parse(args)).toEqual(TURN);
    expect(usage).toBe(120);
    const { result, text } = deviceReads('chat', 'mistral', req, tee.bytes(), []);
    expect(result).toMatchObject({ kind: 'turn', json: TURN_JSON, usage: { input: 100, output: 20 } });
    expect(text).toBe(TURN_JSON);
  });

  it('a single-shot round on the conversations API (startStream): message.output.delta pieces, then the usage', async () => {
    const req: WireRound = { ...roundRequest('mistral', { mode: 'single' }), model: 'mistral-medium-latest', stream: true };
    expect(body(backend, req, 'mistral-test')['stream']).toBe(true);
    script({ turn: TURN });
    const tee = teeFetch();
    const stream = await mistral(tee.fetch).beta.conversations.startStream({
      model: 'mistral-medium-latest',
      inputs: 'What is the battery level?',
      instructions: 'You are the desk assistant.',
      store: false,
      completionArgs: { responseFormat: { type: 'json_schema', jsonSchema: { name: 'orch_turn', schemaDefinition: { type: 'object', properties: {}, required: [], additionalProperties: false }, strict: true } } },
    });
    let text = '';
    const types: string[] = [];
    for await (const ev of stream) {
      types.push(ev.data.type);
      if (ev.data.type === 'message.output.delta') text += typeof ev.data.content === 'string' ? ev.data.content : '';
    }
    expect(types[0]).toBe('conversation.response.started');
    expect(types.at(-1)).toBe('conversation.response.done');
    expect(text).toBe(TURN_JSON);
    const device = deviceReads('conversations', 'mistral', req, tee.bytes(), [5, 50, 500]);
    expect(device.result).toMatchObject({ kind: 'turn', json: TURN_JSON, usage: { input: 100, output: 20 } });
    expect(device.text).toBe(TURN_JSON);
  });
});

describe('a stream that fails mid-way', () => {
  it("the dialect's error event: each SDK raises its API error, the device ends the round with a retryable error", async () => {
    const ask = async (dialect: StreamDialect, run: (f: typeof fetch) => Promise<unknown>, provider: ProviderId, req: WireRound, kind: (new (...a: never[]) => Error) | Record<string, unknown>): Promise<RoundResult> => {
      script({ turn: TURN, midError: { afterTokens: 5 } });
      const tee = teeFetch();
      if (typeof kind === 'function') await expect(run(tee.fetch)).rejects.toBeInstanceOf(kind);
      else await expect(run(tee.fetch)).rejects.toMatchObject(kind);
      const { result, text } = deviceReads(dialect, provider, req, tee.bytes(), []);
      expect(text.length).toBeGreaterThan(0);
      return result;
    };
    // Responses: the SDK's ResponseStream rejects with the error event itself (ResponseErrorEvent).
    const a: WireRound = { ...roundRequest('openai'), model: 'gpt-5-mini', stream: true };
    expect(await ask('responses', (f) => openai(f).responses.stream(body(openaiBackend(), a, 'sk-test') as never).finalResponse(), 'openai', a, { type: 'error', code: 'server_error' })).toMatchObject({ kind: 'error', error: 'http', message: expect.stringContaining('server_error') });
    const b: WireRound = { ...roundRequest('anthropic'), model: 'claude-sonnet-4-5', stream: true };
    expect(await ask('messages', (f) => anthropic(f).messages.stream(body(anthropicBackend(), b, 'sk-ant-test') as never).finalMessage(), 'anthropic', b, AnthropicAPIError)).toMatchObject({ kind: 'error', error: 'http', message: expect.stringContaining('overloaded_error') });
    const c: WireRound = { ...roundRequest('custom', { mode: 'single' }), model: 'local', stream: true };
    const custom = customBackend({ base: 'https://custom.emulator.test', style: 'chat', model: 'local' });
    expect(await ask('chat', (f) => openai(f, 'https://custom.emulator.test/v1').chat.completions.stream(body(custom, c, null) as never).finalChatCompletion(), 'custom', c, OpenAIAPIError)).toMatchObject({ kind: 'error', error: 'http' });
  });

  it('a dropped connection: the SDK fails, and the device reads a transport failure, never half an answer', async () => {
    const req: WireRound = { ...roundRequest('anthropic'), model: 'claude-sonnet-4-5', stream: true };
    script({ turn: TURN, cut: { afterTokens: 8 } });
    const tee = teeFetch();
    await expect(anthropic(tee.fetch).messages.stream(body(anthropicBackend(), req, 'sk-ant-test') as never).finalMessage()).rejects.toThrow();
    expect(deviceReads('messages', 'anthropic', req, tee.bytes(), []).result).toMatchObject({ kind: 'error', error: 'transport' });
  });
});
