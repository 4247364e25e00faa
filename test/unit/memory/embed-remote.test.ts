// Boots the whole device: one test checks the embedding keys and usage ledger main.ts hands memory.
// The remote embedder (src/memory/embed-remote.ts) against the provider
// emulator over TLS validated by the test CA (and a plain-http custom
// server): each provider's own request shape, vectors that find related text
// (Mistral's 1024 numbers reduced to the configured 256), batching within
// each service's limits, usage counted in the providers' ledger and a spent
// budget refused before anything is sent, the key never over plain http nor
// in an error, and every failure an EmbedError in words an owner can read.
// Last, the device as main.ts mounts it: an embedding change counts its
// tokens against the provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Emulator, type RecordedRequest } from '../../../tools/provider-emulator.mjs';
import { emulatedVector, inputTokens } from '../../../tools/embedding-fake.mjs';
import { testCaPem } from '../../../tools/test-ca.mjs';
import { boot } from '../../../src/main.ts';
import { Store } from '../../../src/core/store.ts';
import { EmbedError, type EmbeddingConfig } from '../../../src/memory/embedder.ts';
import { RemoteEmbedder, type EmbeddingKeys } from '../../../src/memory/embed-remote.ts';
import { embeddingKeys } from '../../../src/memory/keys.ts';
import type { ClientRequest, ClientResult } from '../../../src/net/http/client.ts';
import { UsageLedger, USAGE_NS } from '../../../src/providers/usage.ts';
import { ORCH_NS } from '../../../src/providers/settings.ts';
import { createMemHal } from '../../support/memhal.ts';
import { MemNvs } from '../../support/memstorage.ts';
import { nodeClient } from '../../support/node-client.ts';
import { fakeProvider } from '../../support/provider-fake.ts';

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

const KEYS: Record<string, string> = { openai: 'sk-openai-secret-0123', mistral: 'mistral-secret-4567', custom: 'sk-custom-secret-89' };

/** The device's keys over a settings fake and a real ledger on an in-memory NVS. */
function rig(options: { base?: string; keys?: Record<string, string> } = {}) {
  const nvs = new MemNvs();
  const orch = new Store(nvs, ORCH_NS);
  const ledger = new UsageLedger(new Store(nvs, USAGE_NS), orch, () => Date.UTC(2026, 10, 26));
  const keys = options.keys ?? KEYS;
  const settings = { customBase: () => options.base ?? 'http://custom.emulator.test', key: (p: string) => keys[p] ?? null };
  return { orch, ledger, keys: embeddingKeys(settings, ledger) };
}

function embedder(config: EmbeddingConfig, keys: EmbeddingKeys, e: Emulator = emu): RemoteEmbedder {
  return new RemoteEmbedder(config, nodeClient(e.port, testCaPem()), keys);
}

const posts = (e: Emulator): RecordedRequest[] => e.requests.filter((r) => r.method === 'POST' && r.path === '/v1/embeddings');
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb);
};

const MEMORIES = ['the spare tyre is in the garage', 'my sister Eva has her birthday on the third of May', 'the umbrella hangs by the front door', 'the boiler was serviced in March'];
const QUERIES: Array<[string, number]> = [
  ['where is the umbrella?', 2],
  ['when is Eva her birthday', 1],
  ['spare tyre location', 0],
  ['boiler service', 3],
];

/** Embeds the memories and the queries; each query's nearest memory must be its own. */
async function findsRelated(e: RemoteEmbedder): Promise<number[]> {
  const mem = await e.embed(MEMORIES);
  const qs = await e.embed(QUERIES.map(([q]) => q));
  return qs.map((q) => {
    const scores = mem.map((m) => cosine(q, m));
    return scores.indexOf(Math.max(...scores));
  });
}

describe('each provider in its own shape', () => {
  it('OpenAI text-embedding-3-small at 256: {model, input, dimensions 256, encoding_format float} with the key; 256 numbers that find related text', async () => {
    emu.reset();
    const e = embedder({ provider: 'openai', model: 'text-embedding-3-small', dims: 256 }, rig().keys);
    expect(await findsRelated(e)).toEqual(QUERIES.map(([, i]) => i));
    const [first] = posts(emu);
    expect(first).toMatchObject({ host: 'api.openai.com', body: { model: 'text-embedding-3-small', input: MEMORIES, dimensions: 256, encoding_format: 'float' } });
    expect(Object.keys(first!.body).sort()).toEqual(['dimensions', 'encoding_format', 'input', 'model']);
    expect(first!.headers['authorization']).toBe(`Bearer ${KEYS['openai']}`);
    expect(emu.requests.filter((r) => r.refused)).toEqual([]);
  });

  it("Mistral mistral-embed at 256: Mistral's shape without output_dimension; its 1024 numbers reduced to 256 that still find related text, unit length, the same every time", async () => {
    emu.reset();
    const e = embedder({ provider: 'mistral', model: 'mistral-embed', dims: 256 }, rig().keys);
    expect(await findsRelated(e)).toEqual(QUERIES.map(([, i]) => i));
    const [first] = posts(emu);
    expect(first).toMatchObject({ host: 'api.mistral.ai', body: { model: 'mistral-embed', input: MEMORIES, encoding_format: 'float' } });
    expect(Object.keys(first!.body).sort()).toEqual(['encoding_format', 'input', 'model']);
    expect(first!.headers['authorization']).toBe(`Bearer ${KEYS['mistral']}`);
    const [a, b] = await e.embed([MEMORIES[0]!, MEMORIES[0]!]);
    expect(a!.length).toBe(256);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(Math.abs(cosine(a!, a!) - 1)).toBeLessThan(1e-6);
    expect(Math.abs(Math.hypot(...a!) - 1)).toBeLessThan(1e-5);
    // The reduction keeps what the provider's own 1024 numbers say: cosines agree within a few hundredths.
    const wide = MEMORIES.map((m) => emulatedVector(m, 1024, 'mistral-embed'));
    const narrow = await e.embed(MEMORIES);
    for (let i = 0; i < MEMORIES.length; i++)
      for (let j = i + 1; j < MEMORIES.length; j++) expect(Math.abs(cosine(narrow[i]!, narrow[j]!) - cosine(wide[i]!, wide[j]!))).toBeLessThan(0.15);
    expect(emu.requests.filter((r) => r.refused)).toEqual([]);
  });

  it('Mistral codestral-embed is asked for its output_dimension (and float), and answers exactly that', async () => {
    emu.reset();
    const [v] = await embedder({ provider: 'mistral', model: 'codestral-embed', dims: 256 }, rig().keys).embed(['a function that parses dates']);
    expect(v!.length).toBe(256);
    expect(posts(emu)[0]!.body).toEqual({ model: 'codestral-embed', input: ['a function that parses dates'], encoding_format: 'float', output_dimension: 256, output_dtype: 'float' });
  });

  it('the custom endpoint over plain http: OpenAI style, keyless even with a key set; dimensions only for a text-embedding-3 model', async () => {
    plain.reset();
    const { keys } = rig({ base: 'http://custom.emulator.test:8080/' });
    const local = embedder({ provider: 'custom', model: 'local-embed', dims: 256 }, keys, plain);
    expect(await findsRelated(local)).toEqual(QUERIES.map(([, i]) => i));
    const [first] = posts(plain);
    expect(first).toMatchObject({ host: 'custom.emulator.test', path: '/v1/embeddings', body: { model: 'local-embed', input: MEMORIES, encoding_format: 'float' } });
    expect(first!.body).not.toHaveProperty('dimensions');
    expect(first!.headers['authorization']).toBeUndefined();
    expect(first!.text).not.toContain(KEYS['custom']);
    await embedder({ provider: 'custom', model: 'text-embedding-3-small', dims: 128 }, keys, plain).embed(['hello']);
    expect(posts(plain).at(-1)!.body).toMatchObject({ dimensions: 128 });
    for (const r of plain.requests) expect(JSON.stringify(r.headers)).not.toContain(KEYS['custom']);
    expect(plain.requests.filter((r) => r.refused)).toEqual([]);
  });

  it('an empty text is the zero vector and is never sent (the services refuse it)', async () => {
    emu.reset();
    const e = embedder({ provider: 'openai', model: 'text-embedding-3-small', dims: 64 }, rig().keys);
    const [blank, word, spaces] = await e.embed(['', 'lamp', '   ']);
    expect(Array.from(blank!)).toEqual(new Array(64).fill(0));
    expect(Array.from(spaces!)).toEqual(new Array(64).fill(0));
    expect(word!.some((x) => x !== 0)).toBe(true);
    expect(posts(emu).map((r) => r.body.input)).toEqual([['lamp']]);
    expect(await e.embed(['', ' '])).toHaveLength(2);
    expect(posts(emu)).toHaveLength(1);
  });
});

describe('batching within the services\' limits', () => {
  it('OpenAI: 70 texts in requests of at most 32 (the device\'s ceiling), in order', async () => {
    emu.reset();
    const texts = Array.from({ length: 70 }, (_, i) => `note number ${i} about the lamp`);
    const vs = await embedder({ provider: 'openai', model: 'text-embedding-3-small', dims: 64 }, rig().keys).embed(texts);
    expect(posts(emu).map((r) => r.body.input.length)).toEqual([32, 32, 6]);
    expect(posts(emu).flatMap((r) => r.body.input)).toEqual(texts);
    const alone = await embedder({ provider: 'openai', model: 'text-embedding-3-small', dims: 64 }, rig().keys).embed([texts[45]!]);
    expect(Array.from(vs[45]!)).toEqual(Array.from(alone[0]!));
  });

  it('Mistral: at most 16384 tokens a request (counted as bytes + 2 a text), and a text over 8192 bytes is cut on a character boundary; the emulator refuses none', async () => {
    emu.reset();
    const texts = Array.from({ length: 30 }, (_, i) => `${i} `.padEnd(1000, 'e')); // 1000 bytes each
    texts.push('€'.repeat(4000)); // 12000 bytes
    const vs = await embedder({ provider: 'mistral', model: 'mistral-embed', dims: 256 }, rig().keys).embed(texts);
    expect(vs).toHaveLength(31);
    const sent = posts(emu);
    for (const r of sent) expect((r.body.input as string[]).reduce((n, t) => n + inputTokens(t), 0)).toBeLessThanOrEqual(16_384);
    expect(sent.map((r) => r.body.input.length)).toEqual([16, 14, 1]); // 16 x 1002 fits, 17 do not; the cut text's 8192 does not fit beside 14
    const long = sent.flatMap((r) => r.body.input as string[]).at(-1)!;
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(8192);
    expect(long).toBe('€'.repeat(2730));
    expect(emu.requests.filter((r) => r.refused)).toEqual([]);
  });
});

describe('usage and budgets', () => {
  it("every answer's input tokens count against its provider's day and month", async () => {
    emu.reset();
    const r = rig();
    await embedder({ provider: 'openai', model: 'text-embedding-3-small', dims: 64 }, r.keys).embed(MEMORIES);
    await embedder({ provider: 'mistral', model: 'mistral-embed', dims: 64 }, r.keys).embed(['a', 'bb']);
    const view = r.ledger.view() as Record<string, { daily: { input: number; output: number }; monthly: { input: number } }>;
    expect(view['openai']!.daily).toMatchObject({ input: MEMORIES.reduce((n, t) => n + inputTokens(t), 0), output: 0 });
    expect(view['openai']!.monthly.input).toBe(view['openai']!.daily.input);
    expect(view['mistral']!.monthly.input).toBe(3 + 4);
    expect(view['anthropic']!.monthly.input).toBe(0);
  });

  it('a provider at or past its monthly budget is refused before anything is sent, with the reason; another provider still embeds', async () => {
    emu.reset();
    const r = rig();
    r.orch.set('bgt.openai', 60);
    const e = embedder({ provider: 'openai', model: 'text-embedding-3-small', dims: 64 }, r.keys);
    await e.embed(MEMORIES); // under the budget when sent; past it after
    expect(posts(emu)).toHaveLength(1);
    const err = await e.embed(['one more']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedError);
    expect((err as Error).message).toBe('openai has used its monthly budget of 60 tokens, so nothing is embedded with it until 2026-12-01 or until the owner raises the budget on the web page');
    expect(posts(emu)).toHaveLength(1);
    await embedder({ provider: 'mistral', model: 'mistral-embed', dims: 64 }, r.keys).embed(['still fine']);
    expect(posts(emu)).toHaveLength(2);
    // The owner raises the budget: embeddings go again.
    r.orch.set('bgt.openai', 100_000);
    await e.embed(['one more']);
    expect(posts(emu)).toHaveLength(3);
  });

  it('the usage of an answer that is then refused as malformed still counts (the provider charged it)', async () => {
    emu.reset();
    const r = rig();
    emu.script({ match: { path: '/v1/embeddings' }, raw: { body: JSON.stringify({ object: 'list', data: [], model: 'text-embedding-3-small', usage: { prompt_tokens: 9, total_tokens: 9 } }) } });
    await expect(embedder({ provider: 'openai', model: 'text-embedding-3-small', dims: 64 }, r.keys).embed(['x'])).rejects.toThrow('openai answered 0 vectors for 1 texts');
    expect((r.ledger.view()['openai'] as { monthly: { input: number } }).monthly.input).toBe(9);
  });
});

describe('keys, endpoints and failures', () => {
  const OPENAI: EmbeddingConfig = { provider: 'openai', model: 'text-embedding-3-small', dims: 64 };

  it('no key, no custom base URL, a provider without embeddings, a keyed provider over plain http: clear errors, nothing sent', async () => {
    emu.reset();
    const none = rig({ keys: {}, base: '' }).keys;
    await expect(embedder(OPENAI, none).embed(['x'])).rejects.toThrow('no openai key is set: add it on the web page to embed with openai');
    await expect(embedder({ provider: 'mistral', model: 'mistral-embed', dims: 64 }, none).embed(['x'])).rejects.toThrow('no mistral key is set');
    await expect(embedder({ provider: 'custom', model: 'm', dims: 64 }, none).embed(['x'])).rejects.toThrow('the custom endpoint has no base URL set: set it on the web page');
    await expect(embedder({ provider: 'anthropic', model: 'm', dims: 64 }, rig().keys).embed(['x'])).rejects.toThrow('anthropic has no embeddings endpoint on this device: use openai, mistral or the custom endpoint');
    const http: EmbeddingKeys = { endpoint: () => ({ baseUrl: 'http://api.openai.com', key: KEYS['openai']! }) };
    await expect(embedder(OPENAI, http).embed(['x'])).rejects.toThrow('refusing to send the openai key over plain http');
    expect(emu.requests).toEqual([]);
  });

  it('a configuration its model cannot serve is refused before anything is sent', async () => {
    emu.reset();
    const k = rig().keys;
    await expect(embedder({ ...OPENAI, dims: 2048 }, k).embed(['x'])).rejects.toThrow('text-embedding-3-small makes at most 1536 numbers per text, and the embedding is configured for 2048: choose 1536 dimensions or fewer');
    await expect(embedder({ provider: 'mistral', model: 'mistral-embed', dims: 2048 }, k).embed(['x'])).rejects.toThrow('mistral-embed makes 1024 numbers per text, fewer than the 2048 the embedding is configured for: choose 1024 dimensions or fewer');
    expect(emu.requests).toEqual([]);
  });

  it("a refused key (401) is named, never quoted; the provider's words of other refusals are kept without the key", async () => {
    emu.reset();
    emu.keys.set('api.openai.com', 'sk-the-right-one');
    const err = (await embedder(OPENAI, rig().keys).embed(['x']).catch((x: unknown) => x)) as Error;
    expect(err).toBeInstanceOf(EmbedError);
    expect(err.message).toBe('openai refused the key (HTTP 401): check the openai key on the web page');
    emu.keys.clear();
    emu.script({ match: { path: '/v1/embeddings' }, status: 400, message: `Bad request made with key ${KEYS['openai']}` });
    const bad = (await embedder(OPENAI, rig().keys).embed(['x']).catch((x: unknown) => x)) as Error;
    expect(bad.message).toBe('openai refused the embedding request (HTTP 400): Bad request made with key [key] | invalid_request_error');
    emu.script({ match: { path: '/v1/embeddings' }, status: 429, message: 'Rate limit reached' });
    await expect(embedder(OPENAI, rig().keys).embed(['x'])).rejects.toThrow(/^openai is limiting embedding requests \(HTTP 429\): Rate limit reached.*; try again later$/);
    emu.script({ match: { path: '/v1/embeddings' }, status: 503, message: 'overloaded' });
    await expect(embedder(OPENAI, rig().keys).embed(['x'])).rejects.toThrow(/^openai had a server error embedding \(HTTP 503\): overloaded/);
    // The emulator's own refusal of a wrong request reaches the owner in the service's words.
    await expect(embedder({ provider: 'openai', model: 'text-embedding-4-tiny', dims: 64 }, rig().keys).embed(['x'])).rejects.toThrow(
      'openai refused the embedding request (HTTP 404): The model `text-embedding-4-tiny` does not exist or you do not have access to it. | model_not_found | invalid_request_error',
    );
  });

  it('answers that are not what was asked are refused, each in its own words', async () => {
    const cases: Array<[EmbeddingConfig, object, string]> = [
      [OPENAI, { broken: true }, 'openai answered something that is not a list of embeddings'],
      [OPENAI, { embedding: { vectors: [[0.1, 'x']] } }, 'openai answered an embedding with something other than finite numbers in it'],
      [OPENAI, { embedding: { width: 80 } }, 'openai answered 80 numbers per text though 64 were asked for'],
      [{ provider: 'mistral', model: 'mistral-embed', dims: 256 }, { embedding: { width: 128 } }, 'mistral answered vectors of 128 numbers, fewer than the 256 the embedding is configured for: choose 128 dimensions or fewer for mistral-embed'],
      [OPENAI, { raw: { body: '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1]},{"object":"embedding","index":0,"embedding":[1]}]}' } }, 'openai answered 2 vectors for 1 texts'],
    ];
    for (const [config, behaviour, words] of cases) {
      emu.reset();
      emu.script({ match: { path: '/v1/embeddings' }, ...behaviour });
      const err = (await embedder(config, rig().keys).embed(['x']).catch((x: unknown) => x)) as Error;
      expect(err, words).toBeInstanceOf(EmbedError);
      expect(err.message).toBe(words);
    }
    emu.reset();
    emu.script({ match: { path: '/v1/embeddings' }, raw: { body: '{"data":[{"index":1,"embedding":[1]},{"index":1,"embedding":[1]}]}' } });
    await expect(embedder(OPENAI, rig().keys).embed(['x', 'y'])).rejects.toThrow('openai answered a vector with a missing, repeated or out-of-range index');
    emu.script({ match: { path: '/v1/embeddings' }, raw: { body: '{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}' } });
    await expect(embedder({ ...OPENAI, model: 'text-embedding-ada-002', dims: 1 }, rig().keys).embed(['x', 'y'])).rejects.toThrow('openai answered vectors of different lengths (2 and 1 numbers)');
  });

  it('a timeout, an unreachable host and an oversized answer are failures in words, the key in none of them', async () => {
    const answers: ClientResult[] = [
      { ok: false, error: 'timeout', message: 'no complete answer within 30000 ms' },
      { ok: false, error: 'connect', message: `ECONNREFUSED for ${KEYS['openai']}` },
      { ok: false, error: 'too-large', message: 'body over the cap' },
    ];
    const seen: ClientRequest[] = [];
    const client = { request: (req: ClientRequest) => (seen.push(req), Promise.resolve(answers[seen.length - 1]!)) };
    const e = new RemoteEmbedder(OPENAI, client, rig().keys);
    const words = [];
    for (let i = 0; i < answers.length; i++) words.push(((await e.embed(['x']).catch((x: unknown) => x)) as Error).message);
    expect(words).toEqual([
      'openai did not answer the embedding request within 30 s',
      'could not reach openai for embeddings (connect: ECONNREFUSED for [key])',
      'openai answered more than the device can read at once (its vectors are wider than expected)',
    ]);
    expect(seen.map((r) => [r.method, r.url, r.timeoutMs])).toEqual(new Array(3).fill(['POST', 'https://api.openai.com/v1/embeddings', 30_000]));
  });
});

describe('on the device as main.ts mounts it', () => {
  it('an embedding change to OpenAI goes through the providers\' keys and counts its tokens against openai (USAGE?)', async () => {
    const mem = createMemHal();
    mem.nvs.set('orch', 'key.openai', KEYS['openai']!);
    const seen = fakeProvider(mem.net, 'api.openai.com', 443, (r) => {
      const input = (r.body as { input: string[] }).input;
      return { status: 200, body: { object: 'list', model: 'text-embedding-3-small', data: input.map((t, index) => ({ object: 'embedding', index, embedding: emulatedVector(t, 256, 'text-embedding-3-small') })), usage: { prompt_tokens: 7, total_tokens: 7 } } };
    });
    const device = boot(mem.hal);
    try {
      expect(await device.ctx.memory.setEmbedding({ provider: 'openai', model: 'text-embedding-3-small', dims: 256 })).toMatchObject({ changed: true });
      expect(seen.map((r) => [r.path, r.headers['authorization']])).toEqual([['/v1/embeddings', `Bearer ${KEYS['openai']}`]]);
      const usage = device.ctx.status.snapshot()['usage'] as { budget: Record<string, { monthly: { input: number } }> };
      expect(usage.budget['openai']!.monthly.input).toBe(7);
    } finally {
      device.stop();
    }
  });
});
