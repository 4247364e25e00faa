// Installing an update (spec: Install and rollback, Update refusal tokens,
// Limits): the gates (Notifier, busy, heap floor, battery with the force
// re-submit, up to date), streaming into the inactive slot with progress,
// sha-fail, sig-fail, cut and oversized downloads leaving the running
// firmware and boot slot untouched, dry runs, forward-only and forced
// same-version installs, and the routes' 202/409 bodies.
import { describe, expect, it } from 'vitest';
import { mount, ready } from '../../../src/core/subsystem.ts';
import { storage } from '../../../src/storage/index.ts';
import { deviceKernel, mountOta, HTTP_PORT } from '../../support/kernel.ts';
import { RebootSignal, createMemHal } from '../../support/memhal.ts';
import { request } from '../../support/http.ts';
import { makeKey, simImage, UpdateFeed } from '../../support/ota.ts';

const key = makeKey();

function setup(options: { board?: 'ring-tft' | 'panel-35' | 'panel-40'; version?: string } = {}) {
  const version = options.version ?? 'v1.0.0';
  const mem = createMemHal({ board: options.board ?? 'panel-35', version });
  mem.flash.slots[0] = simImage(version);
  // Updates on a kernel with the device's token gate and HTTP server; storage before it, as in the
  // device, so the status line has a field ahead of ota's.
  const dk = deviceKernel({ mem });
  mount(dk.kernel, storage, { timeline: { row() {} }, files: ready({ store: { summary: () => ({ count: 0, bytes: 0 }) } }) });
  const { updates } = mountOta(dk);
  dk.start();
  const device = { ctx: { ...dk.kernel, token: dk.token, ota: updates } };
  device.ctx.ota.keys = [key.trusted];
  const feed = new UpdateFeed();
  feed.attach(mem.net);
  const ota = device.ctx.ota;
  const untouched = () => {
    expect(mem.flash.boot).toBe(0);
    expect(mem.flash.running).toBe(0);
    expect(mem.flash.slots[1].length).toBe(0);
    expect(mem.nvs.get('ota', 'otaPend')).toBeUndefined();
  };
  return { mem, device, feed, ota, untouched };
}

async function settle<T>(t: { ok: true; done: Promise<T> } | { ok: false; reason: string }): Promise<T> {
  if (!t.ok) throw new Error(`refused: ${t.reason}`);
  return t.done;
}

describe('installing', () => {
  it('streams the image into the inactive slot with progress, arms the guard, flips and restarts', async () => {
    const { mem, feed, ota } = setup();
    const { image } = feed.publish({ version: 'v2.0.0', key, image: simImage('v2.0.0', 200_000) });
    const seen: number[] = [];
    const poll = mem.clock.setInterval(() => seen.push(ota.state().otaPct), 0);
    const t = ota.apply({ source: 'web' });
    expect(ota.installing()).toBe(false); // the manifest is read first
    const outcome = await settle(t);
    poll.cancel();
    expect(outcome).toEqual({ kind: 'restarting', version: 'v2.0.0' });
    expect(ota.installing()).toBe(true);
    expect(ota.state()).toMatchObject({ ota: 'restarting', lastOta: 'installing v2.0.0', otaPct: 100 });
    expect(Buffer.from(mem.flash.slots[1]).equals(Buffer.from(image))).toBe(true);
    expect(mem.flash.boot).toBe(1);
    expect(mem.flash.states[1]).toBe('new');
    expect(mem.nvs.get('ota', 'otaPend')).toBe('v2.0.0');
    expect(mem.nvs.get('ota', 'otaBoots')).toBe(0);
    expect(mem.nvs.get('ota', 'otaPrev')).toBe(0);
    await expect(mem.clock.advance(1000)).rejects.toBeInstanceOf(RebootSignal);
    expect(mem.system.reboots).toEqual(['ota']);
  });

  it('reports sha-fail for a tampered image and leaves everything as it was', async () => {
    const { feed, ota, untouched } = setup();
    feed.publish({
      version: 'v2.0.0',
      key,
      mutate: (_m, img) => {
        const bad = img.slice();
        bad[bad.length - 1]! ^= 1;
        return bad;
      },
    });
    expect(await settle(ota.apply({ source: 'web' }))).toMatchObject({ kind: 'failed', lastOta: 'sha-fail' });
    expect(ota.state()).toMatchObject({ ota: 'idle', lastOta: 'sha-fail', otaPct: 0 });
    untouched();
  });

  it('reports sig-fail for an image signed with a key the firmware does not trust', async () => {
    const { feed, ota, untouched } = setup();
    feed.publish({ version: 'v2.0.0', key: makeKey('stranger') });
    expect(await settle(ota.apply({ source: 'web' }))).toMatchObject({ kind: 'failed', lastOta: 'sig-fail' });
    expect(ota.state().lastOta).toBe('sig-fail');
    untouched();
  });

  it('fails a cut download (failed vX, otaErr download) and leaves the running firmware untouched', async () => {
    const { feed, ota, untouched } = setup();
    const { image } = feed.publish({ version: 'v2.0.0', key, image: simImage('v2.0.0', 100_000) });
    feed.files.set('/releases/v2.0.0/desk-v2.0.0.img', { body: image, cutAt: 50_000 });
    expect(await settle(ota.apply({ source: 'web' }))).toMatchObject({ kind: 'failed', lastOta: 'failed v2.0.0', error: 'download' });
    expect(ota.state()).toMatchObject({ lastOta: 'failed v2.0.0', otaErr: 'download', ota: 'idle' });
    untouched();
  });

  it('fails an image shorter or longer than the manifest says (otaErr size)', async () => {
    const { feed, ota, untouched } = setup();
    const { image } = feed.publish({ version: 'v2.0.0', key });
    feed.files.set('/releases/v2.0.0/desk-v2.0.0.img', { body: image.subarray(0, image.length - 10) });
    expect(await settle(ota.apply({ source: 'web' }))).toMatchObject({ kind: 'failed', error: 'size' });
    feed.files.set('/releases/v2.0.0/desk-v2.0.0.img', { body: Buffer.concat([image, Buffer.alloc(10)]) });
    expect(await settle(ota.apply({ source: 'web' }))).toMatchObject({ kind: 'failed', error: 'size' });
    untouched();
  });

  it('ends a download that stalls for 30 s', async () => {
    const { mem, feed, ota, untouched } = setup();
    const { image } = feed.publish({ version: 'v2.0.0', key, image: simImage('v2.0.0', 100_000) });
    feed.files.set('/releases/v2.0.0/desk-v2.0.0.img', { body: image, stallAt: 30_000 });
    const t = ota.apply({ source: 'web' });
    await mem.clock.advance(1000);
    expect(ota.state()).toMatchObject({ ota: 'downloading', lastOta: 'installing v2.0.0' });
    expect(ota.installing()).toBe(true);
    expect(ota.state().otaPct).toBeGreaterThan(0);
    await mem.clock.advance(30_000);
    expect(await settle(t)).toMatchObject({ kind: 'failed', error: 'download' });
    expect(ota.installing()).toBe(false);
    untouched();
  });

  it('a dry run verifies without flipping', async () => {
    const { mem, feed, ota } = setup();
    feed.publish({ version: 'v2.0.0', key });
    expect(await settle(ota.apply({ source: 'web', dry: true }))).toEqual({ kind: 'verified', version: 'v2.0.0' });
    expect(ota.state()).toMatchObject({ ota: 'idle', lastOta: 'verified v2.0.0' });
    expect(mem.flash.boot).toBe(0);
    expect(mem.nvs.get('ota', 'otaPend')).toBeUndefined();
    await mem.clock.advance(5000);
    expect(mem.system.reboots).toEqual([]);
  });

  it('shows progress on the LED ring of the ring board', async () => {
    const { mem, feed, ota } = setup({ board: 'ring-tft' });
    feed.publish({ version: 'v2.0.0', key, image: simImage('v2.0.0', 100_000), types: ['ring-tft'] });
    await settle(ota.apply({ source: 'menu' }));
    // The arc: LEDs fully lit from LED 0 as the download goes, the edge LED partly, the rest a dim track.
    const full = (f: Uint8Array): number => Array.from({ length: 24 }, (_, i) => f[i * 3 + 2]!).filter((b) => b === 80).length;
    const progress = mem.ring.frames.filter((f) => f[2]! > 0);
    expect(progress.map(full)).toContain(24);
    expect(new Set(progress.map(full)).size).toBeGreaterThan(2);
    expect(progress.some((f) => Array.from({ length: 24 }, (_, i) => f[i * 3 + 2]!).some((b) => b > 6 && b < 80))).toBe(true);
  });
});

describe('what may be installed', () => {
  it('installs nothing when the release is not newer, unless forced from the web (or the test console)', async () => {
    const { feed, ota } = setup({ version: 'v2.0.0' });
    feed.publish({ version: 'v2.0.0', key });
    expect(await settle(ota.apply({ source: 'chat', force: true }))).toEqual({ kind: 'up-to-date', version: 'v2.0.0' });
    expect(await settle(ota.apply({ source: 'menu', force: true }))).toEqual({ kind: 'up-to-date', version: 'v2.0.0' });
    // the last check said up-to-date: an unforced apply is refused at once
    expect(ota.apply({ source: 'web' })).toMatchObject({ ok: false, reason: 'up-to-date' });
    feed.publish({ version: 'v1.5.0', key });
    expect(await settle(ota.apply({ source: 'web', force: true }))).toEqual({ kind: 'restarting', version: 'v1.5.0' });
  });

  it('reports up-to-date when there is no release (404)', async () => {
    const { ota } = setup();
    expect(await settle(ota.apply({ source: 'chat' }))).toEqual({ kind: 'up-to-date', version: null });
    expect(ota.apply({ source: 'chat' })).toMatchObject({ ok: false, reason: 'up-to-date', message: 'The firmware is up to date.' });
  });
});

describe('install gates', () => {
  it('refuses a low battery with need-power and a weak battery with need-recalibrate, each offering the force re-submit', async () => {
    const { mem, feed, ota } = setup();
    feed.publish({ version: 'v2.0.0', key });
    mem.battery.reading = { ...mem.battery.reading, levelPct: 39, healthPct: 95, external: false };
    expect(ota.apply({ source: 'menu' })).toMatchObject({ ok: false, reason: 'need-power', offer: 'Install anyway (I am charging)' });
    mem.battery.reading = { ...mem.battery.reading, levelPct: 40, healthPct: 59 };
    expect(ota.apply({ source: 'menu' })).toMatchObject({ ok: false, reason: 'need-recalibrate', offer: 'Install anyway (I am charging)' });
    mem.battery.reading = { ...mem.battery.reading, levelPct: 10, external: true };
    expect(ota.apply({ source: 'menu', dry: true }).ok).toBe(true);
  });

  it('passes at 40 % and 60 %, on external power, and with monitoring disabled; force bypasses the gate', async () => {
    const { mem, feed, ota } = setup();
    feed.publish({ version: 'v2.0.0', key });
    mem.battery.reading = { ...mem.battery.reading, levelPct: 40, healthPct: 60, external: false };
    await settle(ota.apply({ source: 'menu', dry: true }));
    mem.battery.reading = { ...mem.battery.reading, present: false, levelPct: null, healthPct: null, external: false };
    await settle(ota.apply({ source: 'menu', dry: true }));
    mem.battery.reading = { ...mem.battery.reading, present: true, levelPct: 5, healthPct: 20 };
    expect(await settle(ota.apply({ source: 'chat', force: true, dry: true }))).toMatchObject({ kind: 'verified' });
  });

  it('refuses below the update heap floor (24 KB free, 16 KB block), even forced', () => {
    const { mem, ota } = setup();
    mem.system.heapFigures.freeInternal = 24 * 1024 - 1;
    expect(ota.apply({ source: 'web', force: true })).toMatchObject({ ok: false, reason: 'low-heap' });
    mem.system.heapFigures.freeInternal = 24 * 1024;
    mem.system.heapFigures.largestBlock = 16 * 1024 - 1;
    expect(ota.apply({ source: 'web', force: true })).toMatchObject({ ok: false, reason: 'low-heap' });
    mem.system.heapFigures.largestBlock = 16 * 1024;
    expect(ota.apply({ source: 'web', force: true }).ok).toBe(true);
  });

  it('refuses a second install or a check while one runs (busy)', async () => {
    const { feed, ota } = setup();
    feed.publish({ version: 'v2.0.0', key });
    const t = ota.apply({ source: 'web', dry: true });
    expect(ota.apply({ source: 'web' })).toMatchObject({ ok: false, reason: 'busy' });
    expect(ota.check()).toMatchObject({ ok: false, reason: 'busy' });
    await settle(t);
  });
});

describe('the routes and the console', () => {
  it('POST /api/ota/apply: 202 when accepted (dry=1, force=1 as form fields or query); 409 bodies name the refusal and offer force', async () => {
    const { mem, device, feed, ota } = setup();
    feed.publish({ version: 'v2.0.0', key });
    const headers = { 'X-Device-Token': device.ctx.token.reveal() };
    const form = { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' };
    mem.battery.reading = { ...mem.battery.reading, levelPct: 20, external: false };
    const refused = await request(mem.net, HTTP_PORT, 'POST', '/api/ota/apply', { headers: form, body: 'dry=1' });
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body)).toEqual({
      error: 'need-power',
      message: 'The battery is below 40%: connect power to install the update.',
      offer: { label: 'Install anyway (I am charging)', field: 'force', value: '1' },
    });
    const accepted = await request(mem.net, HTTP_PORT, 'POST', '/api/ota/apply?dry=1', { headers: form, body: 'force=1' });
    expect(accepted.status).toBe(202);
    expect(JSON.parse(accepted.body)).toEqual({ accepted: true, dry: true, force: true });
    await mem.clock.until(() => ota.state().lastOta === 'verified v2.0.0', 5000);
    expect(ota.state().lastOta).toBe('verified v2.0.0');
  });

  it('OTAAPPLY, OTAURL and OTA? on the console', async () => {
    const { mem, device, feed } = setup();
    const c = (line: string) => device.ctx.console.execute(line);
    expect(await c('OTAURL ftp://x')).toMatch(/^ERR usage/);
    expect(await c('OTAURL https://updates.desk-assistant.invalid/beta')).toBe('otaBase=https://updates.desk-assistant.invalid/beta\r\nOK\r\n');
    expect(await c('OTACHECK')).toBe('otaResult=up-to-date\r\nOK\r\n');
    expect(await c('OTAURL default')).toBe('otaBase=https://updates.desk-assistant.invalid/releases\r\nOK\r\n');
    feed.publish({ version: 'v2.0.0', key });
    expect(await c('OTACHECK')).toBe('otaResult=new-version\r\notaLatest=v2.0.0\r\nOK\r\n');
    mem.battery.reading = { ...mem.battery.reading, levelPct: 20, external: false };
    expect(await c('OTAAPPLY')).toBe('offer: Install anyway (I am charging) (OTAAPPLY force)\r\nERR need-power\r\n');
    expect(await c('OTAAPPLY dry force')).toBe('verified v2.0.0\r\nOK\r\n');
    expect(await c('OTAAPPLY now')).toMatch(/^ERR usage/);
    const state = await c('OTA?');
    expect(state).toContain('otaResult=new-version\r\n');
    expect(state).toContain('lastOta=verified v2.0.0\r\n');
    expect(state).toContain('otaType=panel-35\r\n');
    expect(await c('OTAAPPLY force')).toBe('restarting into v2.0.0\r\nOK\r\n');
    expect(device.ctx.status.line()).toMatch(/ ota=restarting lastOta=installing_v2\.0\.0$/);
  });
});
