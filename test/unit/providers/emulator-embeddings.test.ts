// The provider emulator's POST /v1/embeddings (tools/provider-emulator.mjs,
// tools/embedding-fake.mjs; rules in tools/provider-rules.mjs
// checkEmbeddings): it refuses what OpenAI, Mistral and an OpenAI-compatible
// server refuse, in their status codes and error shapes (unknown model, a
// dimensions field the model cannot take or a value out of range, too many
// inputs or tokens, an empty input, wrong types, fields a service does not
// know, no key), and what it accepts it answers with deterministic vectors
// that carry lexical similarity, in each service's answer shape and usage,
// recording every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Emulator } from '../../../tools/provider-emulator.mjs';
import { base64Vector, emulatedVector, inputTokens } from '../../../tools/embedding-fake.mjs';
import { testCaPem } from '../../../tools/test-ca.mjs';
import { routedFetch } from '../../support/routed-fetch.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let emu: Emulator;
let plain: Emulator;
beforeAll(async () => {
  emu = await start();
  plain = await start({ tls: false });
});
afterAll(async () => {
  await emu.close();
  await plain.close();
});

const HOSTS = { openai: 'https://api.openai.com', mistral: 'https://api.mistral.ai', custom: 'http://custom.emulator.test' };

async function post(family: keyof typeof HOSTS, body: unknown, key: string | null = 'sk-test'): Promise<{ status: number; json: Json }> {
  const f = routedFetch(family === 'custom' ? plain.port : emu.port, testCaPem());
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) };
  const res = await f(`${HOSTS[family]}/v1/embeddings`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Json };
}

const openaiError = (message: string | RegExp, code: string | null = null) => ({ error: { message: typeof message === 'string' ? message : expect.stringMatching(message), type: expect.any(String), param: null, code } });
const BAD_INPUT = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";

describe('OpenAI: what the service refuses', () => {
  const M = 'text-embedding-3-small';
  it.each([
    ['an unknown model (404 model_not_found)', { model: 'text-embedding-9', input: ['x'] }, 404, openaiError('The model `text-embedding-9` does not exist or you do not have access to it.', 'model_not_found')],
    ['no model', { input: ['x'] }, 400, openaiError('you must provide a model parameter')],
    ['dimensions for text-embedding-ada-002', { model: 'text-embedding-ada-002', input: ['x'], dimensions: 256 }, 400, openaiError('This model does not support specifying dimensions.')],
    ['dimensions 0', { model: M, input: ['x'], dimensions: 0 }, 400, openaiError(/^Invalid value for 'dimensions' = 0/, 'invalid_value')],
    ['dimensions past the model (1537)', { model: M, input: ['x'], dimensions: 1537 }, 400, openaiError(/from 1 to 1536/, 'invalid_value')],
    ['a fractional dimensions', { model: M, input: ['x'], dimensions: 12.5 }, 400, openaiError(/^Invalid value for 'dimensions'/, 'invalid_value')],
    ['an empty list', { model: M, input: [] }, 400, openaiError(BAD_INPUT)],
    ['an empty string in a list', { model: M, input: ['a', ''] }, 400, openaiError(BAD_INPUT)],
    ['a number as input', { model: M, input: 5 }, 400, openaiError(BAD_INPUT)],
    ['objects as inputs', { model: M, input: [{ text: 'x' }] }, 400, openaiError(BAD_INPUT)],
    ['2049 inputs', { model: M, input: new Array(2049).fill('x') }, 400, openaiError(BAD_INPUT)],
    ['a text over 8192 tokens', { model: M, input: ['x'.repeat(8191)] }, 400, openaiError(/^This model's maximum context length is 8192 tokens, however you requested 8193 tokens/)],
    ['over 300,000 tokens in one request', { model: M, input: new Array(37).fill('x'.repeat(8190)) }, 400, openaiError('Requested 303104 tokens, max 300000 tokens per request', 'max_tokens_per_request')],
    ['a field the API does not take', { model: M, input: ['x'], output_dimension: 256 }, 400, openaiError('Unrecognized request argument supplied: output_dimension')],
    ['an encoding_format it does not make', { model: M, input: ['x'], encoding_format: 'int8' }, 400, openaiError("Invalid value: 'int8'. Supported values are: 'float' and 'base64'.")],
    ['a body that is not JSON', '{"model":', 400, openaiError('We could not parse the JSON body of your request.')],
  ])('%s', async (_what, body, status, answer) => {
    emu.reset();
    const r = await post('openai', body);
    expect(r.status).toBe(status);
    expect(r.json).toEqual(answer);
    expect(emu.requests[0]!.refused).toMatchObject({ status });
  });

  it('no key: 401; a wrong key where the test sets one: 401', async () => {
    emu.reset();
    expect((await post('openai', { model: M, input: ['x'] }, null)).status).toBe(401);
    emu.keys.set('api.openai.com', 'sk-right');
    const wrong = await post('openai', { model: M, input: ['x'] }, 'sk-wrong');
    expect(wrong).toEqual({ status: 401, json: openaiError('Incorrect API key provided') });
    expect((await post('openai', { model: M, input: ['x'] }, 'sk-right')).status).toBe(200);
  });
});

describe('Mistral: what the service refuses', () => {
  const detail = (type: string, loc: Array<string | number>, msg: string) => ({ object: 'Error', detail: [expect.objectContaining({ type, loc: ['body', ...loc], msg })], message: expect.any(Array), type: 'invalid_request_error', code: 3001 });
  const mistralError = (message: string, type = 'invalid_request_error', code: string | null = null) => ({ object: 'error', message, type, param: null, code });
  it.each([
    ["OpenAI's dimensions (422 extra_forbidden)", { model: 'mistral-embed', input: ['x'], dimensions: 256 }, 422, detail('extra_forbidden', ['dimensions'], 'Extra inputs are not permitted')],
    ['no input (422 missing)', { model: 'mistral-embed' }, 422, detail('missing', ['input'], 'Field required')],
    ['no model (422 missing)', { input: ['x'] }, 422, detail('missing', ['model'], 'Field required')],
    ['token arrays as input (422)', { model: 'mistral-embed', input: [[1, 2]] }, 422, detail('string_type', ['input'], 'Input should be a valid string or a list of strings')],
    ['an output_dtype outside its enum (422)', { model: 'codestral-embed', input: ['x'], output_dtype: 'float16' }, 422, detail('enum', ['output_dtype'], "Input should be 'float', 'int8', 'uint8', 'binary', 'ubinary'")],
    ['encoding_format base64 (422: float only)', { model: 'mistral-embed', input: ['x'], encoding_format: 'base64' }, 422, detail('enum', ['encoding_format'], "Input should be 'float'")],
    ['an unknown model (400 invalid_model)', { model: 'mistral-embed-xl', input: ['x'] }, 400, mistralError('Invalid model: mistral-embed-xl', 'invalid_model', '1500')],
    ['output_dimension for mistral-embed', { model: 'mistral-embed', input: ['x'], output_dimension: 256 }, 400, mistralError('output_dimension and output_dtype are not supported by mistral-embed')],
    ['output_dimension past codestral-embed (3073)', { model: 'codestral-embed', input: ['x'], output_dimension: 3073 }, 400, mistralError('output_dimension must be between 1 and 3072 for codestral-embed')],
    ['257 inputs (code 3210)', { model: 'mistral-embed', input: new Array(257).fill('x') }, 400, mistralError('Too many inputs in request, split into more batches.', 'invalid_request_prompt', '3210')],
    ['over 16384 tokens in one request (code 3210)', { model: 'mistral-embed', input: new Array(3).fill('x'.repeat(6000)) }, 400, mistralError('Too many tokens overall, split into more batches.', 'invalid_request_prompt', '3210')],
    ['an empty text', { model: 'mistral-embed', input: ['a', ''] }, 400, mistralError('Input cannot be empty')],
  ])('%s', async (_what, body, status, answer) => {
    emu.reset();
    const r = await post('mistral', body);
    expect(r.status).toBe(status);
    expect(r.json).toEqual(answer);
  });
});

describe('a custom OpenAI-compatible server', () => {
  it('takes any model, keyless over http; dimensions only for a text-embedding-3 model', async () => {
    plain.reset();
    const ok = await post('custom', { model: 'nomic-embed-text', input: ['the lamp'] }, null);
    expect(ok.status).toBe(200);
    expect(ok.json['data'][0].embedding).toHaveLength(768);
    expect(await post('custom', { model: 'nomic-embed-text', input: ['x'], dimensions: 256 }, null)).toEqual({ status: 400, json: openaiError('This model does not support specifying dimensions.') });
    expect((await post('custom', { model: 'text-embedding-3-small', input: ['x'], dimensions: 256 }, null)).json['data'][0].embedding).toHaveLength(256);
  });
});

describe('what the emulator answers', () => {
  it("OpenAI: CreateEmbeddingResponse's shape, the width asked for, usage {prompt_tokens, total_tokens}, base64 the same numbers as float32", async () => {
    emu.reset();
    const input = ['the umbrella hangs by the door', 'where is my umbrella', 'the boiler was serviced'];
    const r = await post('openai', { model: 'text-embedding-3-small', input, dimensions: 256, encoding_format: 'float' });
    expect(r.status).toBe(200);
    const tokens = input.reduce((n, t) => n + inputTokens(t), 0);
    expect(r.json).toEqual({ object: 'list', model: 'text-embedding-3-small', usage: { prompt_tokens: tokens, total_tokens: tokens }, data: input.map((_t, index) => ({ object: 'embedding', index, embedding: expect.any(Array) })) });
    const [a, b, c] = (r.json['data'] as Array<{ embedding: number[] }>).map((d) => d.embedding);
    expect(a).toHaveLength(256);
    const cos = (x: number[], y: number[]): number => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(cos(a!, a!)).toBeCloseTo(1, 5);
    expect(cos(a!, b!)).toBeGreaterThan(0.3);
    expect(Math.abs(cos(a!, c!))).toBeLessThan(0.3);
    expect(cos(a!, b!)).toBeGreaterThan(cos(a!, c!) + 0.2);
    const again = await post('openai', { model: 'text-embedding-3-small', input: [input[0]], dimensions: 256 });
    expect(again.json['data'][0].embedding).toEqual(a);
    const b64 = await post('openai', { model: 'text-embedding-3-small', input: [input[0]], dimensions: 256, encoding_format: 'base64' });
    expect(b64.json['data'][0].embedding).toBe(base64Vector(a!));
    // Another model's vectors of the same text are not the same vectors.
    expect(emulatedVector(input[0]!, 256, 'text-embedding-3-large')).not.toEqual(a);
    expect(emu.requests.map((q) => [q.method, q.host, q.path])).toEqual(new Array(3).fill(['POST', 'api.openai.com', '/v1/embeddings']));
  });

  it("Mistral: EmbeddingResponse's shape (id, object, model, usage with completion_tokens 0, data), 1024 numbers for mistral-embed", async () => {
    emu.reset();
    const r = await post('mistral', { model: 'mistral-embed', input: 'one text' });
    expect(r.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), object: 'list', model: 'mistral-embed', usage: { prompt_tokens: 10, total_tokens: 10, completion_tokens: 0 }, data: [{ object: 'embedding', index: 0, embedding: expect.any(Array) }] });
    expect(r.json['data'][0].embedding).toHaveLength(1024);
  });

  it('a scripted behaviour answers an embedding request only when it names the path; one meant for a turn is left alone', async () => {
    emu.reset();
    emu.script([{ status: 500 }, { match: { path: '/v1/embeddings' }, embedding: { width: 3 } }]);
    const r = await post('openai', { model: 'text-embedding-3-small', input: ['x'] });
    expect(r.json['data'][0].embedding).toHaveLength(3);
    expect(emu.pending()).toBe(1);
  });
});
