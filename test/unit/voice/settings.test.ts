// Boots the whole device: the voice settings span the web page, the device actions and the custom endpoint's roles.
// The voice settings on the web page and the custom endpoint's roles, on the
// in-memory device: GET /api/voice gives sttProv, ttsProv, ttsOn and ttsVoice
// with their current values and, per provider, whether it is ready or what is
// missing; POST /api/voice sets them (the device's config keys), and refuses a
// provider whose key or endpoint is missing with the reason, changing
// nothing. The custom endpoint names a base URL and model per role: each
// defaults to the one base URL, is persisted, shows on GET /api/orch and in
// device.status, and is where transcription, speech and the memory's
// embeddings go. GET /api/turn/live shows the owner's turn and its reply.
import { describe, expect, it } from 'vitest';
import { boot, type Device } from '../../../src/main.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { HTTP_PORT } from '../../support/kernel.ts';
import { createMemHal, rebootMemHal, type MemHal } from '../../support/memhal.ts';
import { fakeProvider } from '../../support/provider-fake.ts';
import { speechAnswer } from '../../../tools/provider-emulator.mjs';
import { ProviderSettings } from '../../../src/providers/index.ts';
import { ORCH_NS } from '../../../src/providers/settings.ts';
import { Store } from '../../../src/core/store.ts';
import { sttEndpoint } from '../../../src/stt/index.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function api(mem: MemHal, device: Device, method: string, path: string, fields?: Record<string, string>): Promise<{ status: number; json: Json }> {
  const headers: Record<string, string> = { 'X-Device-Token': device.ctx.token.reveal() };
  if (fields) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const r = await request(mem.net, HTTP_PORT, method, path, { headers, ...(fields ? { body: new URLSearchParams(fields).toString() } : {}) });
  return { status: r.status, json: JSON.parse(r.body) as Json };
}

function start(mem = createMemHal()) {
  mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  const device = boot(mem.hal);
  return { mem, device };
}

describe('the voice settings on the web page', () => {
  it('shows each setting with its value and what each provider lacks; a provider without its key is refused with the reason, nothing changed', async () => {
    const { mem, device } = start();
    const first = await api(mem, device, 'GET', '/api/voice');
    expect(first.json).toMatchObject({ sttProv: 'off', ttsProv: 'openai', ttsOn: false, ttsVoice: 'alloy', choices: { sttProv: ['off', 'openai', 'mistral', 'custom'], ttsProv: ['openai', 'custom'] } });
    expect(first.json['ready']['stt']['openai']).toMatch(/^no-stt-key: /);
    expect(first.json['ready']['stt']['custom']).toMatch(/^no-stt-endpoint: /);
    expect(first.json['ready']['tts']['openai']).toMatch(/^no-tts-key: /);
    const refused = await api(mem, device, 'POST', '/api/voice', { sttProv: 'openai', ttsOn: '1' });
    expect(refused.status).toBe(400);
    expect(refused.json['message']).toMatch(/^No-stt-key: sttProv is openai, and no openai key is set.*Nothing was changed\.$/);
    expect(mem.nvs.get('cfg', 'sttProv')).toBeUndefined();
    // Voice replies need a speech provider that can speak.
    expect((await api(mem, device, 'POST', '/api/voice', { ttsOn: '1' })).json['message']).toMatch(/^Voice replies need speech: no-tts-key: /);
    // With the key: taken, persisted, and shown.
    expect((await api(mem, device, 'POST', '/api/orch', { key_openai: 'sk-openai-0123456789' })).status).toBe(200);
    const ok = await api(mem, device, 'POST', '/api/voice', { sttProv: 'openai', ttsProv: 'openai', ttsOn: '1', ttsVoice: 'coral' });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ sttProv: 'openai', ttsProv: 'openai', ttsOn: true, ttsVoice: 'coral', ready: { stt: { openai: null }, tts: { openai: null } } });
    expect(device.ctx.actions.config('sttProv')).toBe('openai');
    expect(device.ctx.actions.config('ttsOn')).toBe(true);
    // Bad values: refused by the settings' own validator.
    expect((await api(mem, device, 'POST', '/api/voice', { sttProv: 'whisper' })).status).toBe(400);
    expect((await api(mem, device, 'POST', '/api/voice', { ttsOn: 'yes' })).status).toBe(400);
    expect((await api(mem, device, 'POST', '/api/voice', { volume: '3' })).status).toBe(400);
    expect(device.ctx.actions.config('ttsVoice')).toBe('coral');
    device.stop();
  });

  it('GET /api/turn/live shows the owner\'s turn and its reply', async () => {
    const { mem, device } = start();
    expect((await api(mem, device, 'GET', '/api/turn/live')).json).toMatchObject({ busy: false, phase: 'idle', reply: '' });
    await device.assistant.ownerTurn('console', 'hello', 'console');
    await flushJobs();
    const live = (await api(mem, device, 'GET', '/api/turn/live')).json;
    expect(live).toMatchObject({ busy: false, phase: 'done', origin: 'console', chat: 'console' });
    // No provider answers on the in-memory network: the reply delivered is the turn's own apology.
    expect(live['reply']).toMatch(/^Sorry, I could not reach a model provider/);
    device.stop();
  });
});

describe("the custom endpoint's roles", () => {
  it('each role defaults to the one base URL; its own base and model are persisted, shown (/api/orch, device.status) and used for transcription, speech and embeddings', async () => {
    const mem = createMemHal();
    const { device } = start(mem);
    expect((await api(mem, device, 'POST', '/api/orch', { custom_base: 'http://llm.lan:8080' })).status).toBe(200);
    let orch = (await api(mem, device, 'GET', '/api/orch')).json;
    expect(orch['custom']['roles']).toEqual({
      chat: { base: 'http://llm.lan:8080', model: 'default', ownBase: false, ownModel: false },
      stt: { base: 'http://llm.lan:8080', model: 'whisper-1', ownBase: false, ownModel: false },
      tts: { base: 'http://llm.lan:8080', model: 'tts-1', ownBase: false, ownModel: false },
      embed: { base: 'http://llm.lan:8080', model: '', ownBase: false, ownModel: false },
    });
    const set = await api(mem, device, 'POST', '/api/orch', { custom_stt_base: 'http://whisper.lan:9000', custom_stt_model: 'large-v3', custom_tts_base: 'http://piper.lan:5000/', custom_tts_model: 'en_US-amy', custom_embed_base: 'http://embed.lan:7000' });
    expect(set.status).toBe(200);
    expect((await api(mem, device, 'POST', '/api/orch', { custom_tts_base: 'piper' })).status).toBe(400);
    expect((await api(mem, device, 'POST', '/api/orch', { custom_embed_model: 'x' })).json['message']).toMatch(/memory settings/);
    orch = (await api(mem, device, 'GET', '/api/orch')).json;
    expect(orch['custom']['roles']['tts']).toEqual({ base: 'http://piper.lan:5000/', model: 'en_US-amy', ownBase: true, ownModel: true });
    expect((device.ctx.status.snapshot() as Json)['customEndpoint']['stt']).toMatchObject({ base: 'http://whisper.lan:9000', model: 'large-v3' });
    device.stop();

    // Persisted: after a restart speech goes to the speech role, transcription to its own, embeddings to theirs.
    const again = rebootMemHal(mem);
    again.nvs.set('cfg', 'ttsProv', 'custom');
    const spoken = fakeProvider(again.net, 'piper.lan', 5000, (r) => {
      const a = speechAnswer(r.body as Record<string, unknown>, { ms: 300 })!;
      return { status: 200, body: a.bytes.toString('latin1'), headers: { 'Content-Type': a.contentType } };
    });
    const embedded = fakeProvider(again.net, 'embed.lan', 7000, (r) => {
      const input = (r.body as { input: string[] }).input;
      return { status: 200, body: { object: 'list', model: 'local-embed', data: input.map((_t, index) => ({ object: 'embedding', index, embedding: Array.from({ length: 256 }, (_, i) => Math.sin(i + index)) })), usage: { prompt_tokens: 3, total_tokens: 3 } } };
    });
    const d2 = boot(again.hal);
    again.serial.take();
    again.serial.type('SPKSAY hello\r\n');
    await again.clock.until(() => /(OK|ERR[^\r\n]*)\r\n$/.test(again.serial.output), 20_000, 20);
    expect(spoken.map((r) => [r.path, (r.body as Json)['model']])).toEqual([['/v1/audio/speech', 'en_US-amy']]);
    expect(await d2.ctx.memory.setEmbedding({ provider: 'custom', model: 'local-embed', dims: 256 })).toMatchObject({ changed: true });
    expect(embedded.map((r) => r.path)).toEqual(['/v1/embeddings']);
    // Transcription asks its own role.
    const settings = new ProviderSettings(new Store(again.nvs, ORCH_NS), { add: () => undefined }, { verify: () => true, setVerify: () => undefined });
    expect(sttEndpoint(settings, 'custom')).toEqual({ ok: true, endpoint: { provider: 'custom', base: 'http://whisper.lan:9000', key: null, model: 'large-v3' } });
    d2.stop();
  });
});
