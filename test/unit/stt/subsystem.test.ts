// The stt subsystem mounted alone on a test kernel, its one option (the
// device's config) a fake: audio.transcribe is registered but never offered
// or callable, and the state section shows sttProv narrowed to a speech
// provider or off. test/unit/stt/planned.test.ts checks the same through
// the whole device (the tool panel, device.control, GET /api/state).
import { describe, expect, it } from 'vitest';
import { mount } from '../../../src/core/subsystem.ts';
import { stt } from '../../../src/stt/index.ts';
import { testKernel } from '../../support/kernel.ts';

describe('the stt subsystem', () => {
  it('registers audio.transcribe, never offered or callable, and the stt state section', async () => {
    const { kernel } = testKernel();
    let sttProv: unknown;
    mount(kernel, stt, { actions: { config: () => sttProv } });
    const owner = { via: 'turn' as const, admin: true, scheduled: false, unattended: false, person: null };
    expect(kernel.tools.get('audio.transcribe')).toBeDefined();
    expect(kernel.tools.list(owner).map((t) => t.name)).not.toContain('audio.transcribe');
    expect(kernel.tools.list({ ...owner, via: 'mcp' }).map((t) => t.name)).not.toContain('audio.transcribe');
    expect(await kernel.tools.call('audio.transcribe', {}, owner)).toMatchObject({ success: false, error_type: 'unavailable' });
    expect(kernel.status.snapshot()).toEqual({ stt: { provider: 'off', transcribe: 'planned' } });
    sttProv = 'mistral';
    expect(kernel.status.snapshot()).toEqual({ stt: { provider: 'mistral', transcribe: 'planned' } });
    sttProv = 'whisper-box';
    expect(kernel.status.snapshot()).toEqual({ stt: { provider: 'off', transcribe: 'planned' } });
  });
});
