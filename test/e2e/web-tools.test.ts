// The model catalog, web.search and image.generate of the real firmware on
// XS, against the provider emulator over TLS (its models lists, the search
// API fake and the image API fake): a refresh reads each keyed provider's
// list, a search comes back with five results by default, and a turn that
// calls image.generate leaves the PNG on the simulated card byte for byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_NAMES, routeArgs, start, turnObject, type Emulator } from '../../tools/provider-emulator.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

let emu: Emulator;
let device: Device;
let token = '';

async function post(path: string, fields: Record<string, string>): Promise<Response> {
  return device.fetch(path, { method: 'POST', token, body: new URLSearchParams(fields) });
}

beforeAll(async () => {
  emu = await start();
  device = await startDevice({ args: routeArgs(emu.port, EMULATOR_NAMES) });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  expect((await post('/api/orch', { key_anthropic: 'sk-e2e-anthropic', key_openai: 'sk-e2e-openai', priority: 'anthropic,openai' })).status).toBe(200);
});

afterAll(async () => {
  await cleanup();
  await emu?.close();
});

describe('models, search and images on the simulator', () => {
  it('refreshes the catalog from the providers\' lists', async () => {
    const view = (await (await device.fetch('/api/models?refresh=1', { token })).json()) as { providers: Record<string, { listed: boolean; models: Array<{ id: string; hidden: string | null }> }> };
    expect(view.providers['openai']!.listed).toBe(true);
    expect(view.providers['anthropic']!.models.map((m) => m.id)).toContain('claude-sonnet-4-5');
    expect(view.providers['mistral']!.listed).toBe(false);
    const all = (await (await device.fetch('/api/models?all=1', { token })).json()) as typeof view;
    expect(all.providers['openai']!.models.find((m) => m.id === 'babbage-002')).toMatchObject({ hidden: 'unknown' });
    expect(emu.requests.find((r) => r.host === 'api.anthropic.com' && r.method === 'GET')!.path).toBe('/v1/models');
  });

  it('searches the web over /mcp once a key is set', async () => {
    expect((await post('/api/websearch', { key: 'BSA-e2e-key', budget: '10' })).status).toBe(200);
    const found = await device.tool(token, 'web.search', { query: 'desk lamp' });
    expect(found.isError).toBe(false);
    expect(found.text.split('\n').filter((l) => /^\d+\. /.test(l))).toHaveLength(5);
    expect(emu.search.queries).toMatchObject([{ q: 'desk lamp', count: 5 }]);
    const view = (await (await device.fetch('/api/websearch', { token })).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ keySet: true, used: 1, remaining: 9 });
  });

  it('saves the image a turn asks for on the card', async () => {
    emu.script([{ tools: [{ name: 'image_generate', args: { prompt: 'a red desk lamp', name: 'lamp' } }] }, { turn: turnObject('Here is your lamp.') }]);
    expect(await device.command('TURN draw a red desk lamp', 60_000)).toBe('Here is your lamp.\nOK');
    expect(emu.images.requests[0]).toMatchObject({ model: 'gpt-image-1-mini', quality: 'low', output_format: 'png' });
    const dl = await device.fetch('/api/files/dl?project=images&name=lamp.png', { token });
    expect(dl.status).toBe(200);
    expect(new Uint8Array(await dl.arrayBuffer())).toEqual(new Uint8Array(emu.images.image));
  });
});
