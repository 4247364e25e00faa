// The system tools as a caller sees them: system.health, device.status,
// device.selftest (PASS/FAIL/SKIP per item, audible items only on request
// and never while silent), device.control through the validator and the
// applier (reboot and protected keys refused, nothing changed on refusal),
// and ota.status (read-only).
import { describe, expect, it } from 'vitest';
import { audio as audioSubsystem } from '../../../src/audio/index.ts';
import { Audio } from '../../../src/audio/audio.ts';
import { mount, ready } from '../../../src/core/subsystem.ts';
import type { ToolCaller } from '../../../src/core/tools/types.ts';
import { device as deviceSubsystem } from '../../../src/device/index.ts';
import { MCP_CALLER } from '../../../src/mcp/server.ts';
import { MusicPlayer } from '../../../src/music/player.ts';
import { Power } from '../../../src/power/index.ts';
import { Card } from '../../../src/storage/index.ts';
import { system } from '../../../src/system/index.ts';
import { Timeline } from '../../../src/timeline/index.ts';
import { mountAssistant } from '../../support/assistant.ts';
import { deviceKernel, mountOta, testKernel } from '../../support/kernel.ts';
import { createMemHal, type MemHalOptions } from '../../support/memhal.ts';

const SYNTHESIS: ToolCaller = { via: 'turn', admin: true, scheduled: false, unattended: true, person: null };

/**
 * The system's tools with what they report on, on a device kernel, mounted as main.ts mounts them: the system under
 * the assistant's stack (the providers' usage, the tools of the turn and memory), the updates (ota.status's fields),
 * the device subsystem (the ring) over the system's device actions, and audio (the tts action's speaker).
 */
function boot(mem: ReturnType<typeof createMemHal>) {
  const dk = deviceKernel({ mem });
  const { system, providers, parts } = mountAssistant(dk);
  const { updates } = mountOta(dk, { power: system.power, timeline: system.timeline });
  const { ring } = system;
  // The audio subsystem gives the tts action its speaker; no chat messenger in these tests.
  const audio = mount(dk.kernel, audioSubsystem, {
    providers: providers.settings,
    actions: system.actions,
    updates,
    client: parts.client,
    chat: ready({ settings: { token: () => '' }, people: { ownerChat: () => null }, sendVoice: () => Promise.resolve({ ok: false, error: 'no chat in this test' }) }),
    ring,
    card: system.card,
  });
  system.speaker.set(audio);
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token, actions: system.actions } };
}

function start(options: MemHalOptions = {}) {
  const mem = createMemHal(options);
  const device = boot(mem);
  const call = (name: string, args: unknown = {}, caller: ToolCaller = MCP_CALLER) => device.ctx.tools.call(name, args, caller);
  return { mem, device, call };
}

/**
 * The system subsystem alone, for the self-test: a test kernel with the real
 * lower parts it reads (the device actions and ring, the speaker and the music
 * player over it, the card, the battery model); every caller is the owner.
 */
function selftestStart(options: MemHalOptions = {}) {
  const { kernel, mem } = testKernel({ hal: options });
  const { hal, log } = kernel;
  const { actions } = mount(kernel, deviceSubsystem, {});
  const audio = new Audio(hal, log);
  const music = new MusicPlayer({ sd: hal.sd, audio: audio.speaker.music, clock: hal.clock, log });
  mount(kernel, system, {
    timeline: new Timeline(hal.clock, log),
    card: new Card(hal.sd),
    actions,
    people: ready({ roleOf: () => 'admin' }),
    music,
    audio,
    power: new Power(hal, log),
  });
  const call = (name: string, args: unknown = {}, caller: ToolCaller = MCP_CALLER) => kernel.tools.call(name, args, caller);
  return { mem, call };
}

describe('system.health and device.status', () => {
  it('reports hardware and subsystem health', async () => {
    const { call, mem } = start({ board: 'ring-tft', sd: { present: false } });
    mem.system.heapFigures.freeInternal = 20 * 1024;
    const r = await call('system.health');
    expect(r.success).toBe(true);
    const h = JSON.parse(r.output);
    expect(h.firmware).toMatchObject({ version: 'v0.1.0', board: 'ring-tft', mode: 1 });
    expect(h.heap).toMatchObject({ freeInternal: 20 * 1024, aboveFloor: false });
    expect(h.storage.sd.tier).toBe('none');
    expect(h.storage.nvs).toBe('ok');
    expect(h.hardware.ring.leds).toBeGreaterThan(0);
    expect(h.subsystems.tools).toBeGreaterThanOrEqual(10);
  });

  it('gives the full state snapshot with usage.budget, and never the token', async () => {
    const { call, device } = start();
    const r = await call('device.status');
    const s = JSON.parse(r.output);
    expect(Object.keys(s)).toEqual(expect.arrayContaining(Object.keys(device.ctx.status.snapshot())));
    // One entry per provider (issue 24: it was always {}): nothing used yet, no budget set.
    expect(Object.keys(s.usage.budget)).toEqual(['openai', 'anthropic', 'mistral', 'zai', 'router', 'custom']);
    expect(s.usage.budget.anthropic).toMatchObject({ used: 0, budget: null, exhausted: false, monthly: { input: 0, output: 0, reasoning: 0, cached: 0 } });
    expect(r.output).not.toContain(device.ctx.token.reveal());
    device.ctx.status.section(() => ({ leaky: { token: device.ctx.token.reveal(), apPass: 'abcdefghij', fine: 1 } }));
    const again = JSON.parse((await call('device.status')).output);
    expect(again.leaky).toEqual({ fine: 1 });
  });
});

describe('device.selftest', () => {
  it('gives one line per item and skips what the board lacks', async () => {
    const { call } = selftestStart({ board: 'panel-35', sd: { present: false } });
    const r = await call('device.selftest');
    expect(r.success).toBe(true);
    const lines = r.output.split('\n');
    expect(lines[0]).toMatch(/^selftest: \d PASS, 0 FAIL, \d SKIP$/);
    const items = Object.fromEntries(lines.slice(1).map((l) => [l.split(' ')[1]!.replace(':', ''), l.split(' ')[0]]));
    expect(items).toEqual({ nvs: 'PASS', sd: 'SKIP', flash: 'PASS', heap: 'PASS', display: 'PASS', ring: 'SKIP', touch: 'PASS', battery: expect.any(String), speaker: 'PASS', audio: 'SKIP', mic: 'PASS' });
    expect(r.output).toContain('PASS speaker: output present (the mixer runs at 24000 Hz); the MP3 decoder turned a test frame into 1152 samples');
    expect(r.output).toContain('SKIP audio: audible test not requested (audible: false)');
    expect(r.output).toContain('PASS mic: opened and closed the 16 kHz mono input');
  });

  it('tests the card, the ring and the battery where present, and leaves no trace', async () => {
    const { call, mem } = selftestStart({ board: 'ring-tft', sd: { present: true, totalBytes: 32 * 1024 ** 3 } });
    const before = mem.ring.frames.length;
    const r = await call('device.selftest');
    expect(r.output).toMatch(/PASS sd: card 32768\.0 MB; wrote, read back and removed a test file/);
    expect(r.output).toMatch(/PASS ring: \d+ LEDs took a frame/);
    expect(mem.ring.frames.length).toBe(before + 1);
    expect(mem.sd.stat('/selftest.tmp')).toBeNull();
    expect(mem.nvs.keys('selftest')).toEqual([]);
  });

  it('reports a heap below the floor and a broken NVS as FAIL', async () => {
    const { call, mem } = selftestStart();
    mem.system.heapFigures.largestBlock = 8 * 1024;
    const broken = (): never => {
      throw new Error('NVS write failed');
    };
    mem.nvs.set = broken;
    mem.nvs.setMany = broken;
    const r = await call('device.selftest');
    expect(r.output).toContain('FAIL heap: free 160 KB, largest block 8 KB');
    expect(r.output).toContain('FAIL nvs: NVS write failed');
    expect(r.output.split('\n')[0]).toMatch(/2 FAIL/);
  });

  it('plays the tone only when audible is asked and the device is not silent', async () => {
    const { call, mem } = selftestStart();
    expect((await call('device.selftest', { audible: true })).output).toContain('PASS audio: played a 200 ms 880 Hz tone');
    const played = mem.audio.samples.length;
    expect(mem.audio.samples.reduce((n, pcm) => n + pcm.length, 0)).toBe(4800); // 200 ms at 24 kHz
    await call('device.control', { action: { config: { sfxVol: 0 } } });
    expect((await call('device.selftest', { audible: true })).output).toContain('SKIP audio: refused: the device is silent (sfxVol is 0)');
    await call('device.control', { action: { config: { sfxVol: 40, sfxLvlO: 0 } } });
    expect((await call('device.selftest', { audible: true })).output).toContain('refused: the device is silent (sfxLvlO is 0)');
    expect(mem.audio.samples.length).toBe(played);
  });
});

describe('device.control', () => {
  it('shows an led action on the ring and records it', async () => {
    const { call, mem, device } = start({ board: 'ring-tft' });
    const r = await call('device.control', { action: { led: { mode: 'solid', color: { r: 255, g: 0, b: 0 }, brightness: 255 }, lights: null, config: null, orch_model: null, reboot: null, tts: null } });
    expect(r).toMatchObject({ success: true, output: 'led solid: shown on the ring' });
    const frame = mem.ring.last()!;
    expect([...frame.slice(0, 3)]).toEqual([255, 0, 0]);
    expect(device.ctx.actions.ledState()).toEqual({ mode: 'solid', color: { r: 255, g: 0, b: 0 }, brightness: 255 });
    await call('device.control', { action: { lights: { value: 'off' } } });
    expect([...mem.ring.last()!].every((b) => b === 0)).toBe(true);
    const pulse = await call('device.control', { action: { led: { mode: 'pulse', color: null, brightness: null } } });
    expect(pulse.output).toBe('led pulse: shown on the ring');
  });

  it('records led state on a board without a ring', async () => {
    const { call, device } = start({ board: 'panel-35' });
    const r = await call('device.control', { action: { led: { mode: 'rainbow' } } });
    expect(r.output).toBe('led rainbow: recorded; this board has no LED ring');
    expect(device.ctx.actions.ledState().mode).toBe('rainbow');
  });

  it('persists config keys in NVS namespace cfg as typed, and reads them back', async () => {
    const { call, mem, device } = start();
    const r = await call('device.control', { action: { config: { sfxVol: '30', ttsOn: 'true', devName: '  Desk  ', theme: null } } });
    expect(r).toMatchObject({ success: true, output: 'config: saved sfxVol=30, ttsOn=true, devName=Desk' });
    expect(mem.nvs.get('cfg', 'sfxVol')).toBe(30);
    expect(mem.nvs.get('cfg', 'ttsOn')).toBe(1);
    expect(mem.nvs.get('cfg', 'devName')).toBe('Desk');
    expect(device.ctx.actions.config('ttsOn')).toBe(true);
    expect(device.ctx.actions.config('theme')).toBeUndefined();
    await call('device.control', { action: { config: { sleepOvr: 15 } } });
    expect(mem.nvs.get('cfg', 'sleepOvr')).toBe(15);
    expect((await call('device.control', { action: { config: { sleepOvr: -1 } } })).output).toBe('config: saved sleepOvr cleared');
    expect(mem.nvs.get('cfg', 'sleepOvr')).toBeUndefined();
  });

  it('refuses protected keys whole, without echoing the value, and changes nothing', async () => {
    const { call, mem } = start();
    const r = await call('device.control', { action: { config: { sfxVol: 10, apiKeyA: 'sk-secret-value' } } });
    expect(r).toEqual({ success: false, output: '', error: 'refused: protected-BLOCKED; nothing was changed.', error_type: 'refused' });
    expect(JSON.stringify(r)).not.toContain('sk-secret-value');
    expect(mem.nvs.keys('cfg')).toEqual([]);
  });

  it('refuses reboot, malformed actions and ttsOn in an unattended turn', async () => {
    const { call, mem } = start();
    expect((await call('device.control', { action: { reboot: true } })).error).toBe('refused: reboot is not available from device.control; nothing was changed.');
    await mem.clock.advance(10_000);
    expect(mem.system.reboots).toEqual([]);
    expect((await call('device.control', { action: { led: {}, lights: { value: 'off' } } })).error).toBe('refused: several-kinds; nothing was changed.');
    expect((await call('device.control', { action: { config: { sfxVol: 500 } } })).error).toBe('refused: bad-value (sfxVol); nothing was changed.');
    expect((await call('device.control', {})).error_type).toBe('bad-arguments');
    const unattended = await call('device.control', { action: { config: { ttsOn: true, sfxVol: 5 } } }, SYNTHESIS);
    expect(unattended).toMatchObject({ success: false, error_type: 'unattended' });
    expect(mem.nvs.keys('cfg')).toEqual([]);
  });

  it('records tts (not spoken while voice replies are off), and saves orch_model for the provider layer', async () => {
    const { call, mem, device } = start();
    const tts = await call('device.control', { action: { tts: { text: 'Hello there' } } });
    expect(tts).toMatchObject({ success: false, error_type: 'unavailable', error: 'tts: not spoken (off: voice replies are off (ttsOn))' });
    expect(device.ctx.actions.lastTts()).toBe('Hello there');
    expect(mem.audio.samples).toEqual([]);
    const orch = await call('device.control', { action: { orch_model: { provider: 'Anthropic', model: 'model-x' } } });
    expect(orch.output).toBe('orch_model: anthropic model-x saved for the next turn');
    expect(mem.nvs.get('orch', 'provider')).toBe('anthropic');
    expect(mem.nvs.get('orch', 'model')).toBe('model-x');
  });
});

describe('ota.status', () => {
  it('reports every update field, null where the engine reports nothing, and installs nothing', async () => {
    const { call, device } = start();
    const r = await call('ota.status');
    const o = JSON.parse(r.output);
    const snap = device.ctx.status.snapshot();
    for (const k of ['ota', 'otaResult', 'otaLatest', 'otaNotes', 'otaPct', 'otaErr', 'otaSlot', 'lastOta', 'autoUpd']) {
      expect(o).toHaveProperty(k);
      expect(o[k]).toEqual(k in snap ? snap[k] : null);
    }
    expect(o.note).toMatch(/no tool installs/);
  });
});
