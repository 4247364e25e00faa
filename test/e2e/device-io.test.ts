// The LED ring, the battery and audio end to end on the simulator (ring-tft):
// RINGANIM and a led action over MCP produce the animation's frames at warped
// virtual times (control op ring.state), an attention returns to the led
// state after attnHoldMs; battery.set drives the update gate (need-power,
// need-recalibrate, then an install on external power whose progress arc is
// on the ring, with voice capture refused meanwhile); SPKSAY speaks through
// the provider emulator's /v1/audio/speech and SFX plays, each written as a
// WAV in the device folder.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFirmware } from '../../tools/build.mjs';
import { routeArgs, speechMs, speechPcm, start, type Emulator } from '../../tools/provider-emulator.mjs';
import { release } from '../../tools/release.mjs';
import { ensureTestSigningKey } from '../../tools/test-keys.mjs';
import { startUpdateServer, UPDATE_HOST, type UpdateServer } from '../../tools/update-server.mjs';
import { animFrame, modeFrame, PROGRESS_COLOR } from '../../src/device/ring-anim.ts';
import { peakOf, sfxClip } from '../../src/audio/synth.ts';
import { cleanup, startDevice, tempDir, type Device } from './harness.ts';

/** Real time may pass between a warp and a read: frames are matched within this much virtual time after it. */
const SLACK_MS = 1500;
const GRID_MS = 50;

let emu: Emulator;
let server: UpdateServer;
let device: Device;
let token = '';
let client: Client;

beforeAll(async () => {
  const work = tempDir('desk-devio-');
  const image = await buildFirmware({ outDir: join(work, 'v9'), version: 'v9.0.0', force: true });
  release({ image, version: 'v9.0.0', keyPem: ensureTestSigningKey().pem, out: join(work, 'feeds', 'stall') });
  server = await startUpdateServer({ root: join(work, 'feeds') });
  server.faults.set('/stall/v9.0.0/desk-v9.0.0.img', { kind: 'stall', after: Math.floor(readFileSync(image).length / 3) });
  emu = await start();
  device = await startDevice({ board: 'ring-tft', args: [...routeArgs(emu.port), '--route', `${UPDATE_HOST}:443=127.0.0.1:${server.port}`] });
  token = (await device.command('WEBTOK?')).split('\n')[0]!;
  const orch = await device.fetch('/api/orch', { method: 'POST', token, body: new URLSearchParams({ key_openai: 'sk-e2e-openai' }) });
  expect(orch.status).toBe(200);
  client = new Client({ name: 'e2e-ring', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', device.url!), { requestInit: { headers: { 'X-Device-Token': token } } }));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await emu?.close();
  await server?.close();
  await cleanup();
});

const ring = async (): Promise<Uint8Array> => Uint8Array.from((await device.board.request<{ rgb: number[] }>('ring.state')).rgb);
/** Warps the firmware's clock; the console's answer after it says the runtime has spent the warp (events keep their order). */
const warp = async (ms: number): Promise<void> => {
  await device.board.request('clock.warp', { ms });
  expect(await device.command('PING')).toBe('PONG\nOK');
};
const hex = (f: Uint8Array): string => Buffer.from(f).toString('hex');

/** The grid time in [from, from + SLACK_MS] whose frame is exactly `shown`, or null. */
function timeOf(shown: Uint8Array, frameAt: (t: number) => Uint8Array, from: number): number | null {
  for (let t = Math.floor(from / GRID_MS) * GRID_MS; t <= from + SLACK_MS; t += GRID_MS) if (hex(frameAt(t)) === hex(shown)) return t;
  return null;
}

async function led(action: Record<string, unknown>): Promise<string> {
  const r = (await client.callTool({ name: 'device.control', arguments: { action: { led: action } } })) as { content: Array<{ text: string }>; isError?: boolean };
  expect(r.isError).toBe(false);
  return r.content[0]!.text;
}

describe('the LED ring at warped times', () => {
  it('a solid led action is its exact frame; RINGANIM plays at the warped time, then the ring returns after attnHoldMs', async () => {
    expect(await led({ mode: 'solid', color: { r: 255, g: 0, b: 0 }, brightness: 100 })).toBe('led solid: shown on the ring');
    expect(hex(await ring())).toBe('640000'.repeat(24));
    expect(await device.command('RINGANIM 1')).toBe('anim=1 thinking: a blue comet circles the ring\nhold=4000 ms (default)\nOK');
    await warp(600);
    const shown = await ring();
    // the comet's head is half way round: a frame of the thinking animation at 600 ms (plus what real time added)
    expect(timeOf(shown, (t) => animFrame(1, 24, t, 128), 600)).not.toBeNull();
    expect(hex(shown)).not.toBe('640000'.repeat(24));
    await warp(4000);
    expect(hex(await ring())).toBe('640000'.repeat(24));
    expect(await device.command('LEDSTATE')).toMatch(/\nshowing=led name=solid t=\d+ level=100 fps=20\nframe=(640000){24}\nOK$/);
  });

  it('a pulse over MCP breathes on the virtual clock, and LEDSTATE prints the frame of the time it names', async () => {
    expect(await led({ mode: 'pulse', color: { r: 0, g: 255, b: 0 }, brightness: 200 })).toBe('led pulse: shown on the ring');
    await warp(1000);
    const peak = await ring();
    const t = timeOf(peak, (x) => modeFrame('pulse', { r: 0, g: 255, b: 0 }, 24, x, 200), 1000);
    expect(t).not.toBeNull();
    const state = await device.command('LEDSTATE');
    const at = Number(/ t=(\d+) /.exec(state)![1]);
    const frame = /\nframe=([0-9a-f]+)\n/.exec(state)![1]!;
    expect(frame).toBe(hex(modeFrame('pulse', { r: 0, g: 255, b: 0 }, 24, at, 200)));
    expect(at).toBeGreaterThanOrEqual(1000);
  });
});

describe('the battery gate and the install on the ring', () => {
  it('battery.set drives the gate: need-power, need-recalibrate, then on external power the install runs with its arc on the ring', async () => {
    expect(await device.command(`OTAURL https://${UPDATE_HOST}/stall`)).toMatch(/OK$/);
    await device.board.request('battery.set', { present: true, levelPct: 30, healthPct: 90, external: false, charging: false });
    expect(await device.command('OTAAPPLY')).toBe('offer: Install anyway (I am charging) (OTAAPPLY force)\nERR need-power');
    await device.board.request('battery.set', { levelPct: 70, healthPct: 50 });
    expect(await device.command('OTAAPPLY')).toBe('offer: Install anyway (I am charging) (OTAAPPLY force)\nERR need-recalibrate');
    const snap = (await (await device.fetch('/api/state', { token })).json()) as { battery: Record<string, unknown> };
    expect(snap.battery).toMatchObject({ levelPct: 70, healthPct: 50, external: false, calibrated: false });

    await device.board.request('battery.set', { external: true, charging: true });
    const apply = await device.fetch('/api/ota/apply', { method: 'POST', token });
    expect(apply.status).toBe(202);
    // the download stalls at a third: the arc shows it (7 of 24 LEDs full, the 8th partly, the rest a dim track)
    await expect.poll(async () => /otaPct=(\d+)/.exec(await device.command('OTA?'))?.[1], { timeout: 20_000 }).toBe('33');
    const arc = await ring();
    const blues = Array.from({ length: 24 }, (_, i) => arc[i * 3 + 2]!);
    const full = Math.round((PROGRESS_COLOR.b * 128) / 255);
    expect(blues.slice(0, 7).every((b) => b === full)).toBe(true);
    expect(blues[7]).toBeGreaterThan(blues[23]!);
    expect(blues[7]).toBeLessThan(full);
    expect(blues.slice(8).every((b) => b === blues[23] && b > 0)).toBe(true);
    expect(await device.command('LEDSTATE')).toMatch(/\nshowing=progress name=progress t=\d+ level=128 fps=20 pct=33\n/);
    expect(await device.command('MICREC')).toBe('ERR busy: an update is installing; voice capture is refused until it is done');
    // the stall ends the install; the ring goes back to the led state
    await warp(31_000);
    await expect.poll(async () => /lastOta=(.*)/.exec(await device.command('OTA?'))?.[1], { timeout: 20_000 }).toBe('failed v9.0.0');
    expect(await device.command('LEDSTATE')).toMatch(/\nshowing=led name=pulse /);
  }, 60_000);
});

/** The newest WAV the board wrote, once its header is final (the stream closed). */
async function newestWav(after: Set<string>): Promise<{ name: string; rate: number; channels: number; samples: Int16Array }> {
  const dir = join(device.dir, 'audio');
  let found: string | null = null;
  await expect
    .poll(
      async () => {
        const fresh = readdirSync(dir).filter((f) => f.endsWith('.wav') && !after.has(f));
        if (fresh.length !== 1) return false;
        found = fresh[0]!;
        const b = readFileSync(join(dir, found));
        return b.readUInt32LE(40) === statSync(join(dir, found)).size - 44 && b.readUInt32LE(40) > 0 && !(await device.board.request<{ audio: { playing: boolean } }>('status')).audio.playing;
      },
      { timeout: 20_000 },
    )
    .toBe(true);
  const b = readFileSync(join(dir, found!));
  const copy = Buffer.from(b.subarray(44));
  return { name: found!, rate: b.readUInt32LE(24), channels: b.readUInt16LE(22), samples: new Int16Array(copy.buffer, copy.byteOffset, copy.length >> 1) };
}

const wavs = (): Set<string> => new Set(readdirSync(join(device.dir, 'audio')).filter((f) => f.endsWith('.wav')));

describe('audio written to WAV files', () => {
  it('SPKSAY speaks through the emulator at sfxVol; the speech is a WAV in the device folder', async () => {
    emu.reset();
    const before = wavs();
    const text = 'Hello from the simulator.';
    const ms = speechMs(text);
    expect(await device.command(`SPKSAY ${text}`, 30_000)).toMatch(new RegExp(`^speech ${(ms / 1000).toFixed(2)} s at 24000 Hz, volume 50\\nspoken \\(peak \\d+\\)\\nOK$`));
    const speech = emu.requests.find((r) => r.path === '/v1/audio/speech')!;
    expect(speech).toMatchObject({ host: 'api.openai.com', body: { model: 'gpt-4o-mini-tts', input: text, voice: 'alloy', response_format: 'wav' } });
    expect(speech.headers['authorization']).toBe('Bearer sk-e2e-openai');
    const wav = await newestWav(before);
    expect(wav).toMatchObject({ rate: 24000, channels: 1 });
    expect(wav.samples.length).toBe((ms * 24000) / 1000);
    expect(Math.abs(peakOf(wav.samples) - peakOf(speechPcm(ms)) * 0.5)).toBeLessThanOrEqual(1);
  }, 40_000);

  it('SFX plays the effect at the volume: its own WAV, peak following SFXVOL', async () => {
    expect(await device.command('SFXVOL 80')).toBe('sfxVol=80\nOK');
    const before = wavs();
    expect(await device.command('SFX ding')).toMatch(/^sfx=ding theme=classic volume=80 sfxLvlO=100 gain=0\.80 samples=9600 ms=400 peak=\d+\nOK$/);
    const wav = await newestWav(before);
    expect(wav.samples.length).toBe(9600);
    expect(Math.abs(peakOf(wav.samples) - peakOf(sfxClip('ding', 'classic')) * 0.8)).toBeLessThanOrEqual(1);
    expect(await device.command('SFXVOL 0')).toBe('sfxVol=0 (silent)\nOK');
    const quiet = wavs();
    expect(await device.command('SFX ding')).toMatch(/silent \(sfxVol is 0\): nothing played\nOK$/);
    expect(wavs()).toEqual(quiet);
  }, 40_000);
});
