// The update check (spec: Update check result): a 404 is up to date, an
// unreachable feed is unreachable (otaErr=fetch) and never up to date, a
// reached but rejected manifest is failed with otaErr, a newer signed version
// is new-version with otaLatest and otaNotes and one chat notice per version.
// Schema 2 is keyed by device type (otaType, else the build tag), schema 1 by
// build tag; untyped devices and absent types are up to date.
import { describe, expect, it } from 'vitest';
import type { MemHal } from '../../support/memhal.ts';
import { deviceKernel, mountOta, mountSystem, HTTP_PORT } from '../../support/kernel.ts';
import { flushJobs } from '../../support/clock.ts';
import { request } from '../../support/http.ts';
import { createMemHal } from '../../support/memhal.ts';
import { BASE, makeKey, simImage, UpdateFeed, type TestKey } from '../../support/ota.ts';
import { SEEN_MAX } from '../../../src/outbox/outbox.ts';

const key = makeKey();

/** Updates on a kernel with the device's token gate and HTTP server, and src/system's state route. */
function otaAlone(mem: MemHal) {
  const dk = deviceKernel({ mem });
  const { updates, outbox, power } = mountOta(dk);
  mountSystem(dk.kernel, { power });
  dk.start();
  return { ctx: { ...dk.kernel, token: dk.token, ota: updates, outbox }, stop: () => dk.stop() };
}
type Device = ReturnType<typeof otaAlone>;

function setup(options: { board?: 'ring-tft' | 'panel-35'; mode?: 0 | 1; otaType?: string; keys?: TestKey[] } = {}) {
  const mem = createMemHal({ board: options.board ?? 'panel-35', version: 'v1.0.0' });
  mem.flash.slots[0] = simImage('v1.0.0');
  if (options.mode === 0) mem.nvs.set('sys', 'mode', 0);
  if (options.otaType) mem.nvs.set('keep', 'otaType', options.otaType);
  const device = otaAlone(mem);
  device.ctx.ota.keys = (options.keys ?? [key]).map((k) => k.trusted);
  const feed = new UpdateFeed();
  feed.attach(mem.net);
  return { mem, device, feed };
}

async function check(device: Device): Promise<ReturnType<Device['ctx']['ota']['state']>> {
  const t = device.ctx.ota.check();
  if (!t.ok) throw new Error(t.reason);
  await t.done;
  return device.ctx.ota.state();
}

describe('update check verdicts', () => {
  it('starts pending, and reads <base>/latest/manifest.json under the default update base', async () => {
    const { device, feed } = setup();
    expect(device.ctx.ota.state()).toMatchObject({ otaResult: 'pending', ota: 'idle', otaSlot: 'ota_0', autoUpd: false, lastOta: null });
    await check(device);
    expect(feed.requests).toEqual(['/releases/latest/manifest.json']);
    expect(device.ctx.ota.base()).toBe(BASE);
  });

  it('reads a 404 (no release yet) as up-to-date', async () => {
    const { device } = setup();
    expect(await check(device)).toMatchObject({ otaResult: 'up-to-date', otaErr: null, otaLatest: null });
  });

  it('reports an unreachable feed as unreachable with otaErr=fetch, never up-to-date', async () => {
    const { mem, device } = setup();
    mem.net.online = false;
    expect(await check(device)).toMatchObject({ otaResult: 'unreachable', otaErr: 'fetch' });
    mem.net.online = true;
    device.ctx.ota.setBase('https://nowhere.example/releases');
    expect(await check(device)).toMatchObject({ otaResult: 'unreachable', otaErr: 'fetch' });
  });

  it('reports a server error as unreachable, not as up to date', async () => {
    const { device, feed } = setup();
    feed.files.set('/releases/latest/manifest.json', { status: 503, body: 'busy' });
    expect(await check(device)).toMatchObject({ otaResult: 'unreachable', otaErr: 'fetch' });
  });

  it.each([
    ['not JSON', '{"schema":2,', 'json'],
    ['schema 3', JSON.stringify({ schema: 3, version: 'v2.0.0', variants: {} }), 'schema'],
    ['a bad version', JSON.stringify({ schema: 2, version: '2.0', variants: {} }), 'version'],
    ['no variants', JSON.stringify({ schema: 2, version: 'v2.0.0' }), 'variants'],
    ['a variant without sha256', JSON.stringify({ schema: 2, version: 'v2.0.0', variants: { 'panel-35': { url: 'x', size: 10, sig: 'MEUC' } } }), 'variant'],
    ['a variant larger than the slot', JSON.stringify({ schema: 2, version: 'v2.0.0', variants: { 'panel-35': { url: 'x', size: 0x680001, sha256: 'a'.repeat(64), sig: Buffer.alloc(64, 1).toString('base64') } } }), 'variant'],
  ])('reports a reached manifest with %s as failed with otaErr', async (_what, body, err) => {
    const { device, feed } = setup();
    feed.files.set('/releases/latest/manifest.json', { body });
    expect(await check(device)).toMatchObject({ otaResult: 'failed', otaErr: err });
  });

  it('refuses a manifest signed by a key the firmware does not trust (failed, otaErr sig)', async () => {
    const { device, feed } = setup();
    feed.publish({ version: 'v2.0.0', key: makeKey('stranger') });
    expect(await check(device)).toMatchObject({ otaResult: 'failed', otaErr: 'sig', otaLatest: 'v2.0.0' });
  });

  it('refuses a signature made for another device type', async () => {
    const { device, feed } = setup();
    feed.publish({
      version: 'v2.0.0',
      key,
      mutate: (m) => {
        const v = m['variants'] as Record<string, { sig: string }>;
        v['panel-35']!.sig = v['panel-28']!.sig;
      },
    });
    expect(await check(device)).toMatchObject({ otaResult: 'failed', otaErr: 'sig' });
  });

  it('reports a newer signed version as new-version with otaLatest and otaNotes', async () => {
    const { device, feed } = setup();
    feed.publish({ version: 'v2.0.0', key, notes: 'Faster wake word.' });
    expect(await check(device)).toMatchObject({ otaResult: 'new-version', otaErr: null, otaLatest: 'v2.0.0', otaNotes: 'Faster wake word.' });
  });

  it('reports the same or an older signed version as up-to-date (latest seen still shown)', async () => {
    const { device, feed } = setup();
    feed.publish({ version: 'v1.0.0', key });
    expect(await check(device)).toMatchObject({ otaResult: 'up-to-date', otaLatest: 'v1.0.0' });
    feed.publish({ version: 'v0.9.0', key });
    expect(await check(device)).toMatchObject({ otaResult: 'up-to-date', otaLatest: 'v0.9.0' });
  });

  it('also trusts a second compiled-in key (rotation: old and new keys side by side)', async () => {
    const next = makeKey('next');
    const { device, feed } = setup({ keys: [key, next] });
    feed.publish({ version: 'v2.0.0', key: next });
    expect(await check(device)).toMatchObject({ otaResult: 'new-version' });
  });
});

describe('device types', () => {
  it('takes the variant of the stored otaType (same family)', async () => {
    const { device, feed } = setup({ otaType: 'panel-40' });
    feed.publish({ version: 'v2.0.0', key, types: ['panel-40'] });
    expect(await check(device)).toMatchObject({ otaResult: 'new-version' });
  });

  it('falls back to the build tag (the board type) when otaType is unset', async () => {
    const { device, feed } = setup({ board: 'ring-tft' });
    feed.publish({ version: 'v2.0.0', key, types: ['ring-tft'] });
    expect(await check(device)).toMatchObject({ otaResult: 'new-version' });
  });

  it('settles as up-to-date when the manifest has no variant for this type', async () => {
    const { device, feed } = setup();
    feed.publish({ version: 'v2.0.0', key, types: ['ring-tft', 'panel-28'] });
    expect(await check(device)).toMatchObject({ otaResult: 'up-to-date', otaErr: null, otaLatest: 'v2.0.0' });
  });

  it('gives an untyped device (e.g. the frozen e-ink kind) no update: up-to-date', async () => {
    const { device, feed } = setup({ otaType: 'eink' });
    feed.publish({ version: 'v2.0.0', key });
    expect(await check(device)).toMatchObject({ otaResult: 'up-to-date', otaErr: null });
  });

  it('refuses a stored type of the other board family', async () => {
    const { device, feed } = setup({ board: 'ring-tft', otaType: 'panel-35' });
    feed.publish({ version: 'v2.0.0', key });
    expect(await check(device)).toMatchObject({ otaResult: 'failed', otaErr: 'wrong-family' });
    expect(feed.requests).toEqual([]);
  });

  it('reads a schema 1 (transition) manifest keyed by build tag and signed with the v1 message', async () => {
    const { device, feed } = setup({ otaType: 'panel-40' });
    feed.publish({ version: 'v2.0.0', key, schema: 1, types: ['panel-35'] });
    expect(await check(device)).toMatchObject({ otaResult: 'new-version' });
    // a v2-message signature under schema 1 is refused
    const v2 = feed.publish({ version: 'v2.0.1', key, types: ['panel-35'] });
    feed.files.set('/releases/latest/manifest.json', { body: JSON.stringify({ ...v2.manifest, schema: 1 }) });
    expect(await check(device)).toMatchObject({ otaResult: 'failed', otaErr: 'sig' });
  });
});

describe('check triggers and the chat notice', () => {
  it('checks about 2 minutes after boot, then daily', async () => {
    const { mem, feed } = setup();
    await mem.clock.advance(119_000);
    expect(feed.requests).toHaveLength(0);
    await mem.clock.advance(2_000);
    expect(feed.requests).toHaveLength(1);
    await mem.clock.advance(23 * 3600_000);
    expect(feed.requests).toHaveLength(1);
    await mem.clock.advance(3600_000);
    expect(feed.requests).toHaveLength(2);
  });

  it('queues one owner notice per version, ending with the /update prompt, even across reboots', async () => {
    const { mem, device, feed } = setup();
    feed.publish({ version: 'v2.0.0', key, notes: 'Better sleep.' });
    await check(device);
    await check(device);
    const notices = device.ctx.outbox.pending();
    expect(notices).toHaveLength(1);
    expect(notices[0]!.key).toBe('ota-available:v2.0.0');
    expect(notices[0]!.text).toMatch(/v2\.0\.0.*Better sleep\..*Reply \/update to install it\.$/);
    device.ctx.outbox.ack('ota-available:v2.0.0');
    // Many other notices later (more than the outbox remembers keys of), and a reboot.
    for (let i = 0; i < SEEN_MAX + 4; i++) {
      device.ctx.outbox.post(`other:${i}`, `notice ${i}`);
      device.ctx.outbox.ack(`other:${i}`);
    }
    expect(device.ctx.outbox.post('ota-available:v2.0.0', 'the outbox alone has forgotten it')).toBe(true);
    device.ctx.outbox.ack('ota-available:v2.0.0');
    device.stop();
    const again = otaAlone(mem);
    again.ctx.ota.keys = [key.trusted];
    await check(again);
    expect(again.ctx.outbox.pending()).toHaveLength(0);
    expect(mem.nvs.get('ota', 'otaAnnounced')).toBe('v2.0.0');
    feed.publish({ version: 'v2.1.0', key });
    await check(again);
    expect(again.ctx.outbox.pending().map((n) => n.key)).toEqual(['ota-available:v2.1.0']);
    again.ctx.outbox.ack('ota-available:v2.1.0');
    // A feed that falls back to an older version is not announced again.
    feed.publish({ version: 'v2.0.0', key });
    expect(await check(again)).toMatchObject({ otaResult: 'new-version', otaLatest: 'v2.0.0' });
    expect(again.ctx.outbox.pending()).toHaveLength(0);
  });

  it('POST /api/ota/check answers 202 and the verdict lands in the state snapshot; 409 while busy', async () => {
    const { mem, device, feed } = setup();
    feed.publish({ version: 'v2.0.0', key });
    const token = device.ctx.token.reveal();
    const headers = { 'X-Device-Token': token };
    expect((await request(mem.net, HTTP_PORT, 'POST', '/api/ota/check')).status).toBe(401);
    const first = device.ctx.ota.check();
    expect(first.ok).toBe(true);
    const busy = await request(mem.net, HTTP_PORT, 'POST', '/api/ota/check', { headers });
    expect(busy.status).toBe(409);
    expect(JSON.parse(busy.body)).toMatchObject({ error: 'busy' });
    if (first.ok) await first.done;
    const res = await request(mem.net, HTTP_PORT, 'POST', '/api/ota/check', { headers });
    expect(res.status).toBe(202);
    await mem.clock.advance(10);
    await flushJobs();
    const state = JSON.parse((await request(mem.net, HTTP_PORT, 'GET', '/api/state', { headers })).body);
    expect(state).toMatchObject({ ota: 'idle', otaResult: 'new-version', otaLatest: 'v2.0.0', otaNotes: 'Release v2.0.0', otaPct: 0, otaErr: null, otaSlot: 'ota_0', lastOta: null, autoUpd: false, otaType: 'panel-35' });
  });

  it('refuses checks and installs with 409 in Notifier mode', async () => {
    const { mem, device, feed } = setup({ mode: 0 });
    feed.publish({ version: 'v2.0.0', key });
    expect(device.ctx.ota.check()).toMatchObject({ ok: false, reason: 'notifier' });
    expect(device.ctx.ota.apply({ source: 'menu', force: true })).toMatchObject({ ok: false, reason: 'notifier' });
    await mem.clock.advance(3 * 3600_000);
    expect(feed.requests).toEqual([]);
    expect(await device.ctx.console.execute('OTACHECK')).toBe('ERR notifier\r\n');
  });
});
