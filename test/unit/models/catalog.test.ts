// The model catalog and the fallback rule set on the in-memory HAL, with the
// real provider wire against fake providers on the in-memory network that
// answer their models endpoints as the real ones do (tools/model-lists.mjs):
// roles, size classes and flags per provider, probe-hidden models with
// all=1, the 24-hour refresh on the virtual clock, and GET /api/fallbacks
// naming exactly the providers and models a failing turn then walks.
import { describe, expect, it } from 'vitest';
import { mount } from '../../../src/core/subsystem.ts';
import { models } from '../../../src/models/index.ts';
import { parseModelList, REFRESH_EVERY_MS, FIRST_REFRESH_MS } from '../../../src/models/catalog.ts';
import { guessRoles, guessSize } from '../../../src/models/known.ts';
import { CATALOG } from '../../../src/providers/catalog.ts';
import { modelListBody } from '../../../tools/model-lists.mjs';
import { request } from '../../support/http.ts';
import { mountAssistant } from '../../support/assistant.ts';
import { deviceKernel, HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { fakeProvider, type SeenRequest } from '../../support/provider-fake.ts';

/** The catalog on a device kernel, over the assistant's stack (the real provider wire; TURN runs a real turn). */
function boot(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const { assistant, providers, catalog: later } = mountAssistant(dk);
  const { catalog } = mount(dk.kernel, models, { assistant, providers: providers.settings, wire: providers.wire });
  later.set(catalog);
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token }, stop: () => dk.stop() };
}

type Device = ReturnType<typeof boot>;

interface Rig {
  mem: MemHal;
  device: Device;
  token: string;
  seen: Record<string, SeenRequest[]>;
}

const HOSTS = { openai: 'api.openai.com', anthropic: 'api.anthropic.com', mistral: 'api.mistral.ai' } as const;

function setup(options: { mistralList?: unknown; anthropicStatus?: number; priority?: string; model?: string } = {}): Rig {
  const mem = createMemHal();
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.nvs.set('orch', 'key.openai', 'sk-openai-key');
  mem.nvs.set('orch', 'key.anthropic', 'sk-ant-key');
  mem.nvs.set('orch', 'key.mistral', 'mistral-key');
  mem.nvs.set('orch', 'priority', options.priority ?? 'anthropic,openai,mistral');
  if (options.model) mem.nvs.set('orch', 'model', options.model);
  const seen: Record<string, SeenRequest[]> = {};
  for (const [p, host] of Object.entries(HOSTS)) {
    seen[p] = fakeProvider(mem.net, host, 443, (req) => {
      if (req.method === 'GET') {
        if (p === 'anthropic' && options.anthropicStatus) return { status: options.anthropicStatus, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
        return { status: 200, body: p === 'mistral' && options.mistralList ? options.mistralList : modelListBody(host, req.path) };
      }
      return { status: 500, body: { error: { message: 'emulated outage', type: 'server_error' } } };
    });
  }
  const device = boot(mem);
  return { mem, device, token: device.ctx.token.reveal(), seen };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

async function get(rig: Rig, path: string): Promise<Json> {
  const res = await request(rig.mem.net, HTTP_PORT, 'GET', path, { headers: { 'X-Device-Token': rig.token } });
  expect(res.status, res.body).toBe(200);
  return JSON.parse(res.body) as Json;
}

type Entry = { id: string; roles: string[]; size: string; flags: string[]; hidden: string | null; listed: boolean | null };
const ids = (list: Entry[]): string[] => list.map((m) => m.id);
const byId = (list: Entry[], id: string): Entry => list.find((m) => m.id === id)!;

describe('the model catalog', () => {
  it('shows compiled-in knowledge as unverified until the first refresh, two minutes after boot', async () => {
    const rig = setup();
    const before = await get(rig, '/api/models');
    const openai = before['providers'].openai.models as Entry[];
    expect(byId(openai, 'gpt-5-mini')).toMatchObject({ roles: ['orchestrator', 'sub-agent'], size: 'M', listed: null });
    expect(byId(openai, 'gpt-5-mini').flags).toEqual(expect.arrayContaining(['tools', 'json-schema', 'default', 'unverified']));
    expect(byId(openai, 'gpt-image-1-mini')).toMatchObject({ roles: ['image'], size: 'S' });
    expect(before['providers'].zai).toMatchObject({ keyed: false, listed: false });
    expect(rig.seen['openai']!.length).toBe(0);
    await rig.mem.clock.advance(FIRST_REFRESH_MS + 1000);
    await rig.mem.clock.until(() => rig.seen['mistral']!.length > 0, 10_000);
    expect(rig.seen['openai']!.map((r) => r.path)).toEqual(['/v1/models']);
    expect(rig.seen['anthropic']![0]).toMatchObject({ path: '/v1/models?limit=1000', headers: { 'x-api-key': 'sk-ant-key' } });
  });

  it('merges each provider\'s list: known models listed are shown, unknown, snapshot and fine-tuned ids only with all=1', async () => {
    const rig = setup();
    const view = await get(rig, '/api/models?refresh=1');
    expect(view['providers'].openai).toMatchObject({ keyed: true, listed: true, error: null });
    const openai = view['providers'].openai.models as Entry[];
    expect(ids(openai)).toEqual(expect.arrayContaining(['gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'gpt-image-1-mini', 'text-embedding-3-small']));
    expect(ids(openai)).not.toEqual(expect.arrayContaining(['babbage-002']));
    expect(openai.every((m) => m.hidden === null && m.listed === true)).toBe(true);
    expect(byId(openai, 'gpt-5')).toMatchObject({ size: 'L' });
    expect(byId(openai, 'gpt-5-nano')).toMatchObject({ size: 'S' });
    // Anthropic lists dated ids: the aliases the firmware sends are listed through them.
    const anthropic = view['providers'].anthropic.models as Entry[];
    expect(ids(anthropic)).toEqual(['claude-opus-4-5', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1']);
    expect(byId(anthropic, CATALOG.anthropic.defaultModel).flags).toContain('default');
    const all = await get(rig, '/api/models?all=1');
    const openaiAll = all['providers'].openai.models as Entry[];
    expect(byId(openaiAll, 'babbage-002')).toMatchObject({ hidden: 'unknown', roles: [] });
    expect(byId(openaiAll, 'dall-e-3')).toMatchObject({ hidden: 'unknown', roles: ['image'] });
    expect(byId(openaiAll, 'gpt-5-2025-08-07')).toMatchObject({ hidden: 'snapshot', size: 'L', roles: ['orchestrator', 'sub-agent'] });
    expect(byId(openaiAll, 'gpt-5-mini-2025-08-07')).toMatchObject({ hidden: 'snapshot', size: 'M' });
    expect(byId(openaiAll, 'ft:gpt-4.1-mini:acme::b7x')).toMatchObject({ hidden: 'fine-tune' });
    expect(byId(all['providers'].anthropic.models, 'claude-3-haiku-20240307')).toMatchObject({ hidden: 'snapshot', size: 'S' });
    // Mistral's capabilities decide an unknown model's roles.
    const mistralAll = all['providers'].mistral.models as Entry[];
    expect(byId(mistralAll, 'codestral-latest')).toMatchObject({ hidden: 'unknown', roles: ['orchestrator', 'sub-agent'] });
    expect(byId(mistralAll, 'codestral-latest').flags).toContain('tools');
    expect(byId(mistralAll, 'mistral-medium-2508')).toMatchObject({ hidden: 'snapshot' });
    expect(all['all']).toBe(true);
  });

  it('hides a known model the key cannot reach, and a failed read keeps the last good list', async () => {
    const rig = setup({ mistralList: { object: 'list', data: [{ id: 'mistral-large-latest', capabilities: { completion_chat: true, function_calling: true } }, { id: 'mistral-small-latest' }] }, anthropicStatus: 401 });
    const view = await get(rig, '/api/models?refresh=1');
    expect(ids(view['providers'].mistral.models)).toEqual(['mistral-large-latest', 'mistral-small-latest']);
    const all = await get(rig, '/api/models?all=1');
    expect(byId(all['providers'].mistral.models, 'mistral-medium-latest')).toMatchObject({ hidden: 'unlisted', listed: false });
    // The key was refused: the known models stay, unverified, with the reason.
    expect(view['providers'].anthropic).toMatchObject({ keyed: true, listed: false, error: expect.stringMatching(/^auth/) });
    expect((view['providers'].anthropic.models as Entry[]).every((m) => m.flags.includes('unverified'))).toBe(true);
  });

  it('refreshes every 24 hours on the clock', async () => {
    const rig = setup();
    const reads = (): number => rig.seen['openai']!.filter((r) => r.method === 'GET').length;
    await rig.mem.clock.advance(FIRST_REFRESH_MS);
    await rig.mem.clock.until(() => reads() === 1, 5_000);
    await rig.mem.clock.advance(REFRESH_EVERY_MS - 60_000);
    expect(reads()).toBe(1);
    await rig.mem.clock.advance(61_000);
    await rig.mem.clock.until(() => reads() === 2, 5_000);
    await rig.mem.clock.advance(REFRESH_EVERY_MS);
    await rig.mem.clock.until(() => reads() === 3, 5_000);
    const view = await get(rig, '/api/models');
    expect(view['refreshEveryMs']).toBe(REFRESH_EVERY_MS);
    expect(view['nextRefreshInMs']).toBeGreaterThan(REFRESH_EVERY_MS - 120_000);
    // Two virtual days fire every timer of the device (the watchdog feed each second): fixed work, not a time limit.
  }, 60_000);

  it('reads every list shape, and guesses roles and sizes of unknown names', () => {
    const enc = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
    expect(parseModelList(enc(modelListBody('api.anthropic.com', '/v1/models')))!.ids[0]).toBe('claude-opus-4-5-20251101');
    expect(parseModelList(enc({ data: [{ id: 'a' }, { id: 'a' }, { id: 'bad id' }, { nope: 1 }, { id: 'b' }] }))!.ids).toEqual(['a', 'b']);
    expect(parseModelList(enc({ error: 'x' }))).toBeNull();
    expect(parseModelList(new TextEncoder().encode('{broken'))).toBeNull();
    expect(guessSize('llama-3.1-8b-instruct')).toBe('S');
    expect(guessSize('mistral-large-2411')).toBe('L');
    expect(guessRoles('text-embedding-ada-002')).toEqual(['embedding']);
    expect(guessRoles('whisper-1')).toEqual(['transcribe']);
  });
});

describe('the fallback rule set', () => {
  it('names the chain a failing turn then walks: the same providers and models, in order', async () => {
    const rig = setup({ model: 'claude-opus-4-5', mistralList: { object: 'list', data: [{ id: 'mistral-large-latest' }, { id: 'mistral-small-latest' }] } });
    await get(rig, '/api/models?refresh=1');
    const rules = await get(rig, '/api/fallbacks');
    expect(rules).toMatchObject({ midFail: true, maxSwitches: 2 });
    expect(rules['chain']).toMatchObject([
      { position: 1, role: 'primary', provider: 'anthropic', model: 'claude-opus-4-5', why: 'configured', size: 'L' },
      { position: 2, role: 'alternate', provider: 'openai', model: CATALOG.openai.defaultModel, why: 'default', size: 'M' },
      // Mistral's default is not listed for this key: the catalog picks the first listed orchestrator model.
      { position: 3, role: 'alternate', provider: 'mistral', model: 'mistral-large-latest', why: expect.stringContaining('not listed'), size: 'L' },
    ]);
    expect(rules['skipped']).toEqual(expect.arrayContaining([{ provider: 'zai', why: 'no key' }, { provider: 'custom', why: 'no endpoint set' }]));
    expect(JSON.stringify(rules['rules'])).toContain('transport, timeout, http, malformed');
    // Every provider fails: the turn walks exactly that chain (each retried once on its host).
    rig.mem.serial.take();
    rig.mem.serial.type('TURN hello\r\n');
    await rig.mem.clock.until(() => /(^|\n)(OK|ERR[^\n]*)\r?\n$/.test(rig.mem.serial.output), 120_000, 100);
    const rounds = (p: keyof typeof HOSTS): string[] => rig.seen[p]!.filter((r) => r.method === 'POST').map((r) => (r.body as { model: string }).model);
    expect(rounds('anthropic')).toEqual(['claude-opus-4-5', 'claude-opus-4-5']);
    expect(rounds('openai')).toEqual([CATALOG.openai.defaultModel, CATALOG.openai.defaultModel]);
    expect(rounds('mistral')).toEqual(['mistral-large-latest', 'mistral-large-latest']);
    // midFail off: the rules say so.
    const off = await request(rig.mem.net, HTTP_PORT, 'POST', '/api/orch', { headers: { 'X-Device-Token': rig.token, 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'midFail=0' });
    expect(off.status).toBe(200);
    expect(JSON.stringify((await get(rig, '/api/fallbacks'))['rules'])).toContain('fresh conversation');
  });
});
