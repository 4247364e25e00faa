// The provider wire over the in-memory network: the right host, path and
// headers per provider, one write per request, the key rule (never over
// plain http, for any provider and any base), the custom endpoint's
// schema-less retry after a 400, the Z.ai-style regional pinning, the
// per-provider deadlines on the virtual clock, model resolution, and log
// lines that never carry a key or a body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/providers/anthropic.ts';
import { CATALOG, resolveModel, roundReadMs } from '../../../src/providers/catalog.ts';
import { customBackend } from '../../../src/providers/custom.ts';
import { DEMO_ENDPOINT } from '../../../src/providers/demo.ts';
import { mistralBackend } from '../../../src/providers/mistral.ts';
import { openaiBackend } from '../../../src/providers/openai.ts';
import { routerBackend } from '../../../src/providers/router.ts';
import type { ProviderId } from '../../../src/providers/settings.ts';
import { leaksKey, ProviderWire, WIRE_NS } from '../../../src/providers/wire.ts';
import { zaiBackend } from '../../../src/providers/zai.ts';
import { Store } from '../../../src/core/store.ts';
import { TURN, fakeProvider, roundRequest, wireRig, type Answer, type SeenRequest } from '../../support/provider-fake.ts';

const turnText = JSON.stringify(TURN);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The dialect-correct "here is the turn" answer for a request. */
function turnAnswer(req: SeenRequest): Answer {
  const b = req.body as Json;
  if (req.path === '/v1/responses') return { status: 200, body: { status: 'completed', output: [{ type: 'function_call', call_id: 'c1', name: 'orch_turn', arguments: turnText }] } };
  if (req.path === '/v1/messages') return { status: 200, body: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'orch_turn', input: TURN }] } };
  if (req.path === '/v1/conversations') return { status: 200, body: { outputs: [{ type: 'message.output', content: turnText }] } };
  if (b?.tools) return { status: 200, body: { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'abcdefghi', type: 'function', function: { name: 'orch_turn', arguments: turnText } }] } }] } };
  return { status: 200, body: { choices: [{ message: { role: 'assistant', content: turnText } }] } };
}

describe('rounds', () => {
  const cases: Array<[ProviderId, string, number, string, 'single' | 'loop']> = [
    ['openai', 'api.openai.com', 443, '/v1/responses', 'loop'],
    ['anthropic', 'api.anthropic.com', 443, '/v1/messages', 'loop'],
    ['mistral', 'api.mistral.ai', 443, '/v1/chat/completions', 'loop'],
    ['mistral', 'api.mistral.ai', 443, '/v1/conversations', 'single'],
    ['router', 'router.desk-assistant.invalid', 443, '/router/openai/v1/chat/completions', 'loop'],
    ['custom', 'llm.lan', 8080, '/v1/chat/completions', 'single'],
  ];
  it.each(cases)('%s reaches %s:%i%s over one write and reads the turn', async (provider, host, port, path, mode) => {
    const rig = wireRig();
    rig.settings.keys[provider] = `key-${provider}-0123456789`;
    rig.settings.base = 'http://llm.lan:8080/ignored/path';
    const seen = fakeProvider(rig.net, host, port, turnAnswer);
    const r = await rig.wire.round(roundRequest(provider, { mode }), 30_000);
    expect(r).toMatchObject({ kind: 'turn', json: turnText });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', path, tls: port === 443, writes: 1 });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect((seen[0]!.body as Json)['model']).toBe(provider === 'router' ? 'gpt-5-mini' : provider === 'custom' ? 'default' : CATALOG[provider].defaultModel);
    if (provider === 'custom') expect(seen[0]!.raw).not.toContain('key-custom'); // plain http: keyless
    else if (provider === 'anthropic') expect(seen[0]!.headers['x-api-key']).toBe('key-anthropic-0123456789');
    else expect(seen[0]!.headers['authorization']).toBe(`Bearer key-${provider}-0123456789`);
  });

  it('validates TLS under tlsVerify, and a refused or untrusted connection is a transport failure', async () => {
    const rig = wireRig(true);
    rig.settings.keys.openai = 'k-openai';
    expect(await rig.wire.round(roundRequest('openai'), 30_000)).toMatchObject({ kind: 'error', error: 'transport' });
    fakeProvider(rig.net, 'api.openai.com', 443, turnAnswer, { trusted: false });
    expect(await rig.wire.round(roundRequest('openai'), 30_000)).toMatchObject({ kind: 'error', error: 'transport', message: expect.stringContaining('ETLS') });
    expect(rig.net.attempts.every((a) => a.tls?.verify === true && a.tls.serverName === 'api.openai.com')).toBe(true);
  });

  it('an unknown provider, or an endpoint on a hosted provider, is a config error, never a throw', async () => {
    const rig = wireRig();
    expect(await rig.wire.round(roundRequest('nobody' as ProviderId), 30_000)).toMatchObject({ kind: 'error', error: 'config' });
    expect(await rig.wire.round(roundRequest('openai'), 30_000, DEMO_ENDPOINT)).toMatchObject({ kind: 'error', error: 'config' });
    expect(rig.logs).toHaveLength(2);
    expect(rig.net.attempts).toHaveLength(0);
  });

  it('without a key nothing is sent: the round is a config error', async () => {
    const rig = wireRig();
    for (const p of ['openai', 'anthropic', 'mistral', 'router'] as const) expect(await rig.wire.round(roundRequest(p), 30_000)).toMatchObject({ kind: 'error', error: 'config' });
    expect(await rig.wire.round(roundRequest('custom', { mode: 'single' }), 30_000)).toMatchObject({ kind: 'error', error: 'config', message: expect.stringContaining('base URL') });
    expect(rig.net.attempts).toHaveLength(0);
  });

  it('the custom endpoint runs no tool loop; the offline demo endpoint does, keyless', async () => {
    const rig = wireRig();
    rig.settings.base = 'https://llm.lan';
    rig.settings.keys.custom = 'custom-secret';
    expect(rig.wire.loops('custom')).toBe(false);
    expect(await rig.wire.round(roundRequest('custom'), 30_000)).toMatchObject({ kind: 'error', error: 'config' });
    expect(rig.wire.loops('custom', DEMO_ENDPOINT)).toBe(true);
    const seen = fakeProvider(rig.net, 'demo.emulator.test', 443, turnAnswer);
    expect(await rig.wire.round(roundRequest('custom'), 30_000, DEMO_ENDPOINT)).toMatchObject({ kind: 'turn' });
    expect(seen[0]!.headers['authorization']).toBeUndefined();
    expect((seen[0]!.body as Json)['model']).toBe('demo');
  });

  it('keyed: a provider with a key; the custom endpoint with a base URL (keyless over http is fine)', () => {
    const rig = wireRig();
    expect(rig.wire.keyed('openai')).toBe(false);
    rig.settings.keys.openai = 'k';
    expect(rig.wire.keyed('openai')).toBe(true);
    expect(rig.wire.keyed('custom')).toBe(false);
    rig.settings.base = 'not a url';
    expect(rig.wire.keyed('custom')).toBe(false);
    rig.settings.base = 'http://192.168.1.20:11434';
    expect(rig.wire.keyed('custom')).toBe(true);
  });
});

describe('keys never go over plain http', () => {
  const hostArb = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}(\.[a-z]{2,5}){0,2}$/);
  const baseArb = fc
    .tuple(fc.constantFrom('http', 'https', 'HTTP', 'Http'), hostArb, fc.option(fc.integer({ min: 1, max: 65535 })), fc.constantFrom('', '/', '/v1', '/x/y/'))
    .map(([s, h, p, path]) => `${s}://${h}${p === null ? '' : `:${p}`}${path}`);
  const keyArb = fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/);

  it('for every backend and any base URL, a request to an http:// URL carries no key (property)', () => {
    fc.assert(
      fc.property(baseArb, keyArb, fc.constantFrom('single', 'loop'), (base, key, mode) => {
        const backends = [openaiBackend(base), anthropicBackend(base), mistralBackend(base), zaiBackend(base), routerBackend(base), customBackend({ base, style: 'chat', model: 'm' }), customBackend({ base, style: 'messages', model: 'm' })];
        for (const be of backends) {
          const w = be.build(roundRequest(be.id, { mode: mode as 'single' | 'loop', model: be.id === 'router' ? 'openai/gpt-5-mini' : 'm' }), key);
          if ('kind' in w) {
            expect(w.error).toBe('config');
            continue;
          }
          const plain = w.url.toLowerCase().startsWith('http://');
          const headerText = Object.entries(w.headers).flat().join('\n');
          const bodyText = new TextDecoder().decode(w.body);
          if (plain) {
            expect(be.id).toBe('custom'); // hosted providers refuse instead
            expect(headerText).not.toContain(key);
            expect(bodyText).not.toContain(key);
          } else expect(headerText).toContain(key);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('through the wire: a plain-http custom endpoint gets no key on the wire, an https one does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('http', 'https'), fc.integer({ min: 1, max: 65535 }), keyArb, fc.constantFrom<'chat' | 'messages'>('chat', 'messages'), async (scheme, port, key, style) => {
        const rig = wireRig();
        rig.settings.base = `${scheme}://llm.lan:${port}/base`;
        rig.settings.style = style;
        rig.settings.keys.custom = key;
        const seen = fakeProvider(rig.net, 'llm.lan', port, turnAnswer);
        const r = await rig.wire.round(roundRequest('custom', { mode: 'single' }), 30_000);
        expect(r.kind).toBe('turn');
        expect(seen[0]!.raw.includes(key)).toBe(scheme === 'https');
        expect(rig.logs.join('\n')).not.toContain(key);
      }),
      { numRuns: 60 },
    );
  });

  it('the last check refuses a finished request that would leak a key to http', () => {
    expect(leaksKey('http://x/v1', { Authorization: 'Bearer abc123' }, 'abc123')).toBe(true);
    expect(leaksKey('http://x/v1', { 'x-api-key': 'abc123' }, 'abc123')).toBe(true);
    expect(leaksKey('https://x/v1', { Authorization: 'Bearer abc123' }, 'abc123')).toBe(false);
    expect(leaksKey('http://x/v1', { Accept: 'application/json' }, 'abc123')).toBe(false);
  });
});

describe('the custom endpoint schema-less retry', () => {
  function rig400(answers: Array<(req: SeenRequest) => Answer>) {
    const rig = wireRig();
    rig.settings.base = 'http://llm.lan:8080';
    rig.settings.custom = 'llama3';
    let n = 0;
    const seen = fakeProvider(rig.net, 'llm.lan', 8080, (req) => answers[Math.min(n++, answers.length - 1)]!(req));
    return { rig, seen };
  }
  const schemaRefused = (): Answer => ({ status: 400, body: { error: { message: "Unsupported value: 'response_format.type' json_schema" } } });

  it('a 400 to the strict schema is retried once without it, and the answer is read', async () => {
    const { rig, seen } = rig400([schemaRefused, turnAnswer]);
    const r = await rig.wire.round(roundRequest('custom', { mode: 'single' }), 30_000);
    expect(r).toMatchObject({ kind: 'turn', json: turnText });
    expect(seen).toHaveLength(2);
    expect((seen[0]!.body as Json)['response_format'].type).toBe('json_schema');
    expect((seen[1]!.body as Json)['response_format']).toBeUndefined();
    expect((seen[1]!.body as Json)['messages'][0].content).toContain('Answer with one JSON object');
    expect((seen[1]!.body as Json)['model']).toBe('llama3');
    expect(rig.logs.some((l) => l.includes('retrying without'))).toBe(true);
  });

  it('only once, only for 400, only for the custom endpoint', async () => {
    const twice = rig400([schemaRefused, schemaRefused, turnAnswer]);
    expect(await twice.rig.wire.round(roundRequest('custom', { mode: 'single' }), 30_000)).toMatchObject({ kind: 'error', error: 'http', status: 400 });
    expect(twice.seen).toHaveLength(2);
    const auth = rig400([() => ({ status: 401, body: { error: { message: 'no' } } }), turnAnswer]);
    expect(await auth.rig.wire.round(roundRequest('custom', { mode: 'single' }), 30_000)).toMatchObject({ error: 'auth' });
    expect(auth.seen).toHaveLength(1);
    const rig = wireRig();
    rig.settings.keys.openai = 'k';
    const seen = fakeProvider(rig.net, 'api.openai.com', 443, () => ({ status: 400, body: { error: { message: 'bad schema' } } }));
    expect(await rig.wire.round(roundRequest('openai', { mode: 'single' }), 30_000)).toMatchObject({ error: 'http', status: 400 });
    expect(seen).toHaveLength(1);
  });
});

describe('Z.ai-style regional pinning', () => {
  const models: Answer = { status: 200, body: { object: 'list', data: [{ id: 'glm-4.6' }] } };
  const denied: Answer = { status: 401, body: { error: { code: '1000', message: 'Authentication failed' } } };

  it('the key check probes GET /api/paas/v4/models on both regional hosts and pins the one that answers, persisted', async () => {
    const rig = wireRig();
    rig.settings.keys.zai = 'zai-key-123';
    const global = fakeProvider(rig.net, 'api.z.ai', 443, (r) => (r.method === 'GET' ? denied : turnAnswer(r)));
    const china = fakeProvider(rig.net, 'open.bigmodel.cn', 443, (r) => (r.method === 'GET' ? models : turnAnswer(r)));
    expect(await rig.wire.verifyKey('zai')).toEqual({ ok: true, provider: 'zai', url: 'https://open.bigmodel.cn/api/paas/v4/models' });
    expect(global[0]).toMatchObject({ method: 'GET', path: '/api/paas/v4/models' });
    expect(china[0]!.headers['authorization']).toBe('Bearer zai-key-123');
    expect(rig.wire.zaiHost()).toBe('https://open.bigmodel.cn');
    expect(await rig.wire.round(roundRequest('zai'), 30_000)).toMatchObject({ kind: 'turn' });
    expect(china.at(-1)).toMatchObject({ method: 'POST', path: '/api/paas/v4/chat/completions' });
    expect(global).toHaveLength(1);
    // Another wire on the same NVS (a reboot) keeps the pin.
    const again = new ProviderWire({ request: () => Promise.reject(new Error('no network')) }, rig.settings, { info() {}, warn() {} }, rig.clock, new Store(rig.nvs, WIRE_NS));
    expect(again.zaiHost()).toBe('https://open.bigmodel.cn');
  });

  it('a first round with nothing pinned runs the check first; when neither host takes the key, nothing is pinned', async () => {
    const rig = wireRig();
    rig.settings.keys.zai = 'zai-key-123';
    const global = fakeProvider(rig.net, 'api.z.ai', 443, (r) => (r.method === 'GET' ? models : turnAnswer(r)));
    fakeProvider(rig.net, 'open.bigmodel.cn', 443, () => denied);
    expect(await rig.wire.round(roundRequest('zai', { mode: 'single' }), 30_000)).toMatchObject({ kind: 'turn' });
    expect(global.map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(rig.wire.zaiHost()).toBe('https://api.z.ai');

    const bad = wireRig();
    bad.settings.keys.zai = 'wrong';
    fakeProvider(bad.net, 'api.z.ai', 443, () => denied);
    fakeProvider(bad.net, 'open.bigmodel.cn', 443, () => denied);
    expect(await bad.wire.verifyKey('zai')).toMatchObject({ ok: false, error: 'auth', status: 401 });
    expect(await bad.wire.round(roundRequest('zai'), 30_000)).toMatchObject({ kind: 'error', error: 'auth' });
    expect(bad.wire.zaiHost()).toBeNull();
  });
});

describe('key checks of the other providers', () => {
  it('list models with the provider headers: openai, mistral (Bearer), anthropic (x-api-key), router (its upstream), custom', async () => {
    const rig = wireRig();
    Object.assign(rig.settings.keys, { openai: 'ko', mistral: 'km', anthropic: 'ka', router: 'kr', custom: 'kc' });
    rig.settings.orchModel = 'mistral/mistral-small-latest';
    rig.settings.base = 'https://llm.lan:8443/x';
    const ok: Answer = { status: 200, body: { data: [] } };
    const o = fakeProvider(rig.net, 'api.openai.com', 443, () => ok);
    const m = fakeProvider(rig.net, 'api.mistral.ai', 443, () => ({ status: 401, body: { message: 'Unauthorized' } }));
    const a = fakeProvider(rig.net, 'api.anthropic.com', 443, () => ok);
    const r = fakeProvider(rig.net, 'router.desk-assistant.invalid', 443, () => ok);
    const c = fakeProvider(rig.net, 'llm.lan', 8443, () => ok);
    expect(await rig.wire.verifyKey('openai')).toMatchObject({ ok: true });
    expect(await rig.wire.verifyKey('mistral')).toMatchObject({ ok: false, error: 'auth' });
    expect(await rig.wire.verifyKey('anthropic')).toMatchObject({ ok: true });
    expect(await rig.wire.verifyKey('router')).toMatchObject({ ok: true });
    expect(await rig.wire.verifyKey('custom')).toMatchObject({ ok: true });
    expect([o[0]!.path, m[0]!.path, a[0]!.path, r[0]!.path, c[0]!.path]).toEqual(['/v1/models', '/v1/models', '/v1/models', '/router/mistral/v1/models', '/v1/models']);
    expect(a[0]!.headers).toMatchObject({ 'x-api-key': 'ka', 'anthropic-version': '2023-06-01' });
    expect(r[0]!.headers['authorization']).toBe('Bearer kr');
    expect(c[0]!.headers['authorization']).toBe('Bearer kc');
  });
});

describe('deadlines', () => {
  it('a round that gets no answer ends as timeout at the engine budget', async () => {
    const rig = wireRig();
    rig.settings.keys.openai = 'k';
    fakeProvider(rig.net, 'api.openai.com', 443, () => 'hold');
    let result: unknown = null;
    void rig.wire.round(roundRequest('openai'), 20_000).then((r) => (result = r));
    await rig.clock.advance(19_999);
    expect(result).toBeNull();
    await rig.clock.advance(1);
    expect(result).toMatchObject({ kind: 'error', error: 'timeout' });
  });

  it('the provider caps shorten a longer budget: sized to the output a round asks for on hosted providers (B: 8192 tokens, 235 s), 30 s for the custom endpoint', async () => {
    const rig = wireRig();
    rig.settings.keys.anthropic = 'k';
    rig.settings.base = 'http://llm.lan:8080';
    fakeProvider(rig.net, 'api.anthropic.com', 443, () => 'hold');
    fakeProvider(rig.net, 'llm.lan', 8080, () => 'hold');
    const done: Record<string, number> = {};
    const t0 = rig.clock.monoMs();
    void rig.wire.round(roundRequest('anthropic'), 600_000).then(() => (done['anthropic'] = rig.clock.monoMs() - t0));
    void rig.wire.round(roundRequest('custom', { mode: 'single' }), 600_000).then(() => (done['custom'] = rig.clock.monoMs() - t0));
    await rig.clock.advance(61_000);
    // A long answer is not cut at the synchronous read's 60 s: 8192 tokens at 40 a second after 30 s to the first.
    expect(done).toEqual({ custom: 30_000 });
    await rig.clock.advance(roundReadMs(8192) - 61_000);
    expect(done).toEqual({ custom: 30_000, anthropic: 30_000 + 204_800 });
  });
});

describe('models', () => {
  it('an empty, invalid or foreign model id becomes the provider default; a valid one is kept', () => {
    expect(resolveModel('openai', '')).toBe('gpt-5-mini');
    expect(resolveModel('openai', 'gpt-4.1')).toBe('gpt-4.1');
    expect(resolveModel('openai', 'claude-sonnet-4-5')).toBe('gpt-5-mini');
    expect(resolveModel('anthropic', 'claude-opus-4-1')).toBe('claude-opus-4-1');
    expect(resolveModel('mistral', 'mistral large')).toBe('mistral-medium-latest');
    expect(resolveModel('zai', 'glm-4.5-air')).toBe('glm-4.5-air');
    expect(resolveModel('router', 'gpt-5')).toBe('openai/gpt-5-mini');
    expect(resolveModel('router', 'anthropic/claude-sonnet-4-5')).toBe('anthropic/claude-sonnet-4-5');
    expect(resolveModel('openai', 'x'.repeat(40))).toBe('gpt-5-mini');
    const rig = wireRig();
    expect(rig.wire.modelFor('custom', '')).toBe('default');
    expect(rig.wire.modelFor('custom', 'gpt-5-mini')).toBe('default'); // the orchestrator's model is another provider's
    rig.settings.custom = 'qwen3:8b';
    expect(rig.wire.modelFor('custom', 'gpt-5')).toBe('qwen3:8b');
    expect(rig.wire.modelFor('custom', '', DEMO_ENDPOINT)).toBe('demo');
  });
});

describe('logging', () => {
  it('one line per round with provider, model, mode and outcome; never a key, a header or a body', async () => {
    const rig = wireRig();
    rig.settings.keys.openai = 'sk-secret-openai-key';
    rig.settings.keys.mistral = 'mistral-secret-key';
    fakeProvider(rig.net, 'api.openai.com', 443, turnAnswer);
    fakeProvider(rig.net, 'api.mistral.ai', 443, () => ({ status: 400, body: { object: 'error', message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length' } }));
    await rig.wire.round(roundRequest('openai', { transcript: [{ kind: 'user', text: 'my secret diary entry' }] }), 30_000);
    expect(await rig.wire.round(roundRequest('mistral'), 30_000)).toMatchObject({ error: 'context-overflow' });
    const text = rig.logs.join('\n');
    expect(rig.logs).toHaveLength(2);
    expect(rig.logs[0]).toMatch(/^wire: openai gpt-5-mini loop: turn \(\d+ ms\)$/);
    expect(rig.logs[1]).toMatch(/^W wire: mistral mistral-medium-latest loop: context-overflow: HTTP 400/);
    for (const secret of ['sk-secret-openai-key', 'mistral-secret-key', 'my secret diary entry', 'Bearer']) expect(text).not.toContain(secret);
  });
});
