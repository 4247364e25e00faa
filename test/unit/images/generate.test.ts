// image.generate on the in-memory HAL against the image API fake
// (tools/image-fake.mjs on the in-memory network): turn-only, offered only
// with an image-capable key, needs a card, saves the PNG byte for byte
// (streamed through the base64 decoder into the store), quality low by
// default, the catalog's image model, refusals that leave nothing behind,
// describe; and the streaming decoder itself, cut anywhere.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mount } from '../../../src/core/subsystem.ts';
import { files } from '../../../src/files/index.ts';
import { images } from '../../../src/images/index.ts';
import { mcp } from '../../../src/mcp/index.ts';
import { models } from '../../../src/models/index.ts';
import type { TurnWire } from '../../../src/turn/index.ts';
import { B64ValueStream } from '../../../src/images/b64-stream.ts';
import type { RoundRequest, RoundResult } from '../../../src/contracts/index.ts';
import { createImageApi, IMAGE_PATH, png, type ImageApi } from '../../../tools/image-fake.mjs';
import { request } from '../../support/http.ts';
import { mountAssistant } from '../../support/assistant.ts';
import { deviceKernel, HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';
import { serveHttp } from '../../support/telegram-net.ts';
import { TestWire, turnResult } from '../../support/test-wire.ts';

const KEY = 'sk-openai-image-key';

/** Calls image.generate with the given arguments, then answers with what the tool said. */
class ImageWire extends TestWire {
  args: Record<string, unknown> = {};
  results: string[] = [];
  offered: string[] = [];
  protected override answer(req: RoundRequest): RoundResult {
    const last = req.transcript[req.transcript.length - 1]!;
    if (last.kind === 'tool_result') {
      this.results.push(last.output);
      return turnResult({ reply: 'done' });
    }
    this.offered = req.tools.map((t) => t.name);
    const args = JSON.stringify(this.args);
    return { kind: 'tools', calls: [{ id: 'c1', name: 'image_generate', args }], items: [{ kind: 'tool_call', id: 'c1', name: 'image_generate', args }] };
  }
}

/**
 * image.generate on a device kernel, mounted as main.ts mounts it: over the assistant's stack (the test's wire), the
 * file store on the system's card, the model catalog (the image model), and /mcp beside it.
 */
function boot(mem: MemHal, options: { wire: TurnWire }) {
  const dk = deviceKernel({ mem });
  const { kernel } = dk;
  const rig = mountAssistant(dk, options);
  const { assistant, providers, system, parts, outbox } = rig;
  const { files: stored } = mount(kernel, files, { card: system.card, client: parts.client, outbox: outbox });
  const { catalog } = mount(kernel, models, { assistant, providers: providers.settings, wire: providers.wire });
  rig.catalog.set(catalog);
  mount(kernel, images, { files: stored, client: parts.client, catalog, providers: providers.settings });
  mount(kernel, mcp, {});
  dk.start();
  return { ctx: { ...kernel, token: dk.token }, assistant, files: stored, stop: () => dk.stop() };
}

type Device = ReturnType<typeof boot>;

interface Rig {
  mem: MemHal;
  device: Device;
  wire: ImageWire;
  api: ImageApi;
  describes: unknown[];
}

function setup(options: { key?: boolean; sd?: boolean; image?: { width?: number; height?: number; noise?: boolean } } = {}): Rig {
  const mem = createMemHal(options.sd === false ? { sd: { present: false } } : {});
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  mem.nvs.set('orch', 'key.anthropic', 'sk-ant');
  if (options.key !== false) mem.nvs.set('orch', 'key.openai', KEY);
  const api = createImageApi({ key: KEY, ...options.image });
  const describes: unknown[] = [];
  serveHttp(mem.net, 'api.openai.com', async (method, path, headers, body) => {
    if (path === IMAGE_PATH) return api.answer(method, path, headers, body);
    describes.push(JSON.parse(new TextDecoder().decode(body)));
    const answer = { id: 'resp_1', object: 'response', status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A red lamp on a desk.' }] }] };
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(answer)) };
  });
  const wire = new ImageWire();
  const device = boot(mem, { wire });
  return { mem, device, wire, api, describes };
}

type Result = { success: boolean; output: string; error: string | null; error_type: string | null };

async function generate(rig: Rig, args: Record<string, unknown>): Promise<Result> {
  rig.wire.args = args;
  const before = rig.wire.results.length;
  void rig.device.assistant.ownerTurn('console', 'draw something', 'console');
  await rig.mem.clock.until(() => rig.wire.results.length > before, 60_000, 20);
  return JSON.parse(rig.wire.results[rig.wire.results.length - 1]!) as Result;
}

function fileBytes(rig: Rig, path: string): Uint8Array | null {
  try {
    const st = rig.mem.hal.sd.stat(path)!;
    return rig.mem.hal.sd.read(path, 0, st.size);
  } catch {
    return null;
  }
}

describe('image.generate', () => {
  it('saves the PNG from a turn: the catalog\'s image model, quality low, byte for byte', async () => {
    const rig = setup();
    const r = await generate(rig, { prompt: 'a red desk lamp' });
    expect(r.success, r.error ?? '').toBe(true);
    expect(rig.wire.offered).toContain('image_generate');
    expect(rig.api.requests[0]).toEqual({ model: 'gpt-image-1-mini', prompt: 'a red desk lamp', n: 1, size: '1024x1024', quality: 'low', output_format: 'png' });
    const name = /Saved images\/(image-[0-9a-f]{6}\.png) \(PNG, (\d+) bytes; gpt-image-1-mini, 1024x1024, quality low\)\./.exec(r.output);
    expect(name, r.output).toBeTruthy();
    expect(Number(name![2])).toBe(rig.api.image.length);
    expect(fileBytes(rig, `/mem/files/images/${name![1]}`)).toEqual(new Uint8Array(rig.api.image));
    const meta = rig.device.files.store.stat(null, 'images', name![1]);
    expect(meta).toMatchObject({ kind: 'image', owner: null, size: rig.api.image.length });
    // Nothing is left in the waiting room.
    expect(rig.mem.hal.sd.list('/mem/incoming').filter((e) => !e.isDir)).toEqual([]);
  });

  it('streams a large image into the store under the asked name, size and quality', async () => {
    const rig = setup({ image: { width: 256, height: 256, noise: true } });
    expect(rig.api.image.length).toBeGreaterThan(150_000);
    const r = await generate(rig, { prompt: 'noise', project: 'art', name: 'static', size: '1536x1024', quality: 'high', model: 'gpt-image-1' });
    expect(r.success, r.error ?? '').toBe(true);
    expect(rig.api.requests[0]).toMatchObject({ model: 'gpt-image-1', size: '1536x1024', quality: 'high' });
    expect(fileBytes(rig, '/mem/files/art/static.png')).toEqual(new Uint8Array(rig.api.image));
  });

  it('is offered only with an image-capable key, runs only in a turn, and needs a card', async () => {
    const nokey = setup({ key: false });
    const panel = JSON.parse((await request(nokey.mem.net, HTTP_PORT, 'GET', '/api/tools', { headers: { 'X-Device-Token': nokey.device.ctx.token.reveal() } })).body) as { tools: Array<{ name: string; runsOn: string; where: string }> };
    expect(panel.tools.find((t) => t.name === 'image.generate')).toMatchObject({ runsOn: 'Unavailable', where: 'turn' });
    expect(await generate(nokey, { prompt: 'x' })).toMatchObject({ success: false, error_type: 'unavailable' });
    const rig = setup();
    const mcp = await request(rig.mem.net, HTTP_PORT, 'POST', '/mcp', {
      headers: { 'X-Device-Token': rig.device.ctx.token.reveal(), 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'image.generate', arguments: { prompt: 'x' } } }),
    });
    expect(mcp.body).toContain('not-here');
    const nocard = setup({ sd: false });
    const r = await generate(nocard, { prompt: 'x' });
    expect(r).toMatchObject({ success: false, error_type: 'no-card' });
    expect(r.error).toMatch(/No SD card/);
    expect(nocard.api.requests).toHaveLength(0);
  });

  it('refuses a model that makes no images, a name that is not a PNG, and passes on the service\'s refusal leaving nothing behind', async () => {
    const rig = setup();
    const bad = await generate(rig, { prompt: 'x', model: 'gpt-5' });
    expect(bad).toMatchObject({ success: false, error_type: 'bad-arguments' });
    expect(bad.error).toContain('image models: gpt-image-1-mini, gpt-image-1');
    expect(await generate(rig, { prompt: 'x', name: 'pic.jpg' })).toMatchObject({ success: false, error_type: 'bad-arguments' });
    const refused = await generate(rig, { prompt: 'something forbidden' });
    expect(refused).toMatchObject({ success: false, error_type: 'refused' });
    expect(rig.device.files.store.list(null, 'images')).toEqual([]);
    expect(rig.mem.hal.sd.list('/mem/incoming').filter((e) => !e.isDir)).toEqual([]);
  });

  it('describes the image when asked, sending it back as a data URL', async () => {
    const rig = setup();
    const r = await generate(rig, { prompt: 'a red desk lamp', describe: true });
    expect(r.output).toContain('Description: A red lamp on a desk.');
    const sent = JSON.stringify(rig.describes[0]);
    expect(sent).toContain(`data:image/png;base64,${rig.api.image.toString('base64')}`);
  });
});

describe('the streaming base64 decoder', () => {
  it('decodes the b64_json value of a body cut anywhere, escaped slashes included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), (bytes, cuts, escape) => {
        let b64 = Buffer.from(bytes).toString('base64');
        if (escape) b64 = b64.replace(/\//g, '\\/');
        const body = new TextEncoder().encode(`{"created":1,"data":[{"b64_json" : "${b64}"}],"usage":{"b64_json_tokens":1}}`);
        const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
        const out: number[] = [];
        const s = new B64ValueStream((b) => out.push(...b));
        let at = 0;
        for (const p of [...points, body.length]) {
          s.feed(body.subarray(at, p));
          at = p;
        }
        expect(s.error).toBeNull();
        expect(s.done).toBe(true);
        expect(new Uint8Array(out)).toEqual(bytes);
      }),
    );
    const bad = new B64ValueStream(() => {});
    bad.feed(new TextEncoder().encode('{"b64_json":"ab$c"}'));
    expect(bad.error).toMatch(/not base64/);
    const notString = new B64ValueStream(() => {});
    notString.feed(new TextEncoder().encode('{"b64_json":12}'));
    expect(notString.error).toMatch(/not a string/);
    expect(png(2, 2).subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });
});
