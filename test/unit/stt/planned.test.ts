// Speech to text, planned only: audio.transcribe is on the tool panel as
// Unavailable, never offered and never callable; sttProv takes the speech
// providers of the catalog (or off) and the state shows it.
import { describe, expect, it } from 'vitest';
import { mount } from '../../../src/core/subsystem.ts';
import { mcp } from '../../../src/mcp/index.ts';
import { stt } from '../../../src/stt/index.ts';
import { request } from '../../support/http.ts';
import { deviceKernel, HTTP_PORT, mountSystem } from '../../support/kernel.ts';
import { createMemHal, type MemHal } from '../../support/memhal.ts';

/** Speech to text on a device kernel: the system (the state, device.control over the device actions) and /mcp's tool panel beside it. */
function sttAlone(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const { actions } = mountSystem(dk.kernel);
  mount(dk.kernel, stt, { actions });
  mount(dk.kernel, mcp, {});
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token } };
}

describe('speech to text (planned)', () => {
  it('lists audio.transcribe as Unavailable, offers it nowhere, refuses every call; sttProv is a speech provider or off', async () => {
    const mem = createMemHal();
    const device = sttAlone(mem);
    const token = device.ctx.token.reveal();
    const get = async (path: string): Promise<Record<string, unknown>> => JSON.parse((await request(mem.net, HTTP_PORT, 'GET', path, { headers: { 'X-Device-Token': token } })).body) as Record<string, unknown>;
    const panel = (await get('/api/tools'))['tools'] as Array<{ name: string; runsOn: string }>;
    expect(panel.find((t) => t.name === 'audio.transcribe')).toMatchObject({ runsOn: 'Unavailable' });
    const owner = { via: 'turn' as const, admin: true, scheduled: false, unattended: false, person: null };
    expect(device.ctx.tools.list(owner).map((t) => t.name)).not.toContain('audio.transcribe');
    expect(device.ctx.tools.list({ ...owner, via: 'mcp' }).map((t) => t.name)).not.toContain('audio.transcribe');
    expect(await device.ctx.tools.call('audio.transcribe', {}, owner)).toMatchObject({ success: false, error_type: 'unavailable' });
    expect(await device.ctx.tools.call('audio_transcribe', {}, { ...owner, via: 'mcp' })).toMatchObject({ success: false, error_type: 'unavailable' });
    expect((await get('/api/state'))['stt']).toEqual({ provider: 'off', transcribe: 'planned' });
    expect(await device.ctx.tools.call('device.control', { action: { config: { sttProv: 'mistral' } } }, owner)).toMatchObject({ success: true });
    expect((await get('/api/state'))['stt']).toEqual({ provider: 'mistral', transcribe: 'planned' });
    expect(await device.ctx.tools.call('device.control', { action: { config: { sttProv: 'whisper-box' } } }, owner)).toMatchObject({ success: false });
    expect((await get('/api/state'))['stt']).toEqual({ provider: 'mistral', transcribe: 'planned' });
  });
});
