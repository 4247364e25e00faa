// Firmware updates end to end on the simulator (spec: Install and rollback,
// Update check result, Versioning): real images built and signed with the
// release tool, served over HTTPS by the local update server under the real-
// looking update host (routed by the board), installed into the other flash
// slot, booted by the simulated bootloader and confirmed by the guard (the
// healthy window passed with clock.warp); a v3 that crashes on boot rolls
// back to v2 after three boots; tampered, wrongly signed and truncated
// downloads leave the running firmware untouched; power cuts during the
// download, after arming and after the flip come back bootable with the
// right lastOta.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFirmware } from '../../tools/build.mjs';
import { signedMessage } from '../../tools/ota-sign.mjs';
import { release } from '../../tools/release.mjs';
import { ensureTestSigningKey, makeSigningKey } from '../../tools/test-keys.mjs';
import { startUpdateServer, UPDATE_HOST, type UpdateServer } from '../../tools/update-server.mjs';
import { cleanup, startDevice, tempDir, type Device } from './harness.ts';

let work: string;
let server: UpdateServer;
const img: Record<string, string> = {};

beforeAll(async () => {
  work = tempDir('desk-ota-');
  img.v1 = await buildFirmware({ outDir: join(work, 'v1'), version: 'v1.0.0', force: true });
  img.v2 = await buildFirmware({ outDir: join(work, 'v2'), version: 'v2.0.0', force: true });
  img.v3 = await buildFirmware({ outDir: join(work, 'v3'), version: 'v3.0.0', force: true, defines: { __OTA_TEST_CRASH_ON_BOOT__: 'true' } });
  const key = ensureTestSigningKey().pem;
  const root = join(work, 'feeds');
  release({ image: img.v2, version: 'v2.0.0', keyPem: key, out: join(root, 'good'), notes: 'Second release.' });
  release({ image: img.v3, version: 'v3.0.0', keyPem: key, out: join(root, 'crash') });
  release({ image: img.v2, version: 'v2.0.0', keyPem: makeSigningKey(join(work, 'stranger.pem')), out: join(root, 'wrongkey') });
  for (const feed of ['tampered', 'trunc', 'stall', 'openssl']) release({ image: img.v2, version: 'v2.0.0', keyPem: key, out: join(root, feed) });
  // The openssl feed's panel-35 signature is made by the openssl command line instead of the release tool.
  const m = JSON.parse(readFileSync(join(root, 'openssl/latest/manifest.json'), 'utf8'));
  writeFileSync(join(work, 'msg'), signedMessage(2, 'v2.0.0', 'panel-35', m.variants['panel-35'].sha256));
  m.variants['panel-35'].sig = execFileSync('openssl', ['dgst', '-sha256', '-sign', ensureTestSigningKey().path, join(work, 'msg')]).toString('base64');
  writeFileSync(join(root, 'openssl/latest/manifest.json'), JSON.stringify(m));
  const tampered = join(root, 'tampered/v2.0.0/desk-v2.0.0.img');
  const bytes = readFileSync(tampered);
  bytes[bytes.length - 2]! ^= 0x20;
  writeFileSync(tampered, bytes);
  server = await startUpdateServer({ root });
  const size = readFileSync(img.v2).length;
  server.faults.set('/trunc/v2.0.0/desk-v2.0.0.img', { kind: 'truncate', after: Math.floor(size / 2) });
  server.faults.set('/stall/v2.0.0/desk-v2.0.0.img', { kind: 'stall', after: Math.floor(size / 3) });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await cleanup();
});

function boot(image: string): Promise<Device> {
  return startDevice({ args: ['--image', image, '--route', `${UPDATE_HOST}:443=127.0.0.1:${server.port}`] });
}

async function otaState(d: Device): Promise<Record<string, string>> {
  const lines = (await d.command('OTA?')).split('\n').filter((l) => l.includes('='));
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

async function bootCount(d: Device): Promise<number> {
  return (await d.board.request<{ bootCount: number }>('status')).bootCount;
}

/** The slot the board booted and the version the firmware reports. */
async function running(d: Device): Promise<{ slot: number; version: string }> {
  const s = await d.board.request<{ runningSlot: number }>('status');
  return { slot: s.runningSlot, version: /fw=(\S+)/.exec(await d.command('STATUS'))![1]! };
}

const feed = (name: string): string => `OTAURL https://${UPDATE_HOST}/${name}`;

describe('an update on the simulator', () => {
  let d: Device;

  it('checks the feed over HTTPS through the token-gated route: v2 is a new version', async () => {
    d = await boot(img.v1);
    expect(await d.command(feed('good'))).toBe(`otaBase=https://${UPDATE_HOST}/good\nOK`);
    const token = (await d.command('WEBTOK?')).split('\n')[0]!;
    expect((await d.fetch('/api/ota/check', { method: 'POST', token })).status).toBe(202);
    let state: Record<string, unknown> = {};
    for (let i = 0; i < 100 && state['otaResult'] !== 'new-version'; i++) {
      state = (await (await d.fetch('/api/state', { token })).json()) as Record<string, unknown>;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(state).toMatchObject({ otaResult: 'new-version', otaLatest: 'v2.0.0', otaNotes: 'Second release.', otaSlot: 'ota_0', ota: 'idle' });
  });

  it('accepts a signature made by the openssl command line', async () => {
    await d.command(feed('openssl'));
    expect(await d.command('OTACHECK')).toBe('otaResult=new-version\notaLatest=v2.0.0\nOK');
  });

  it('refuses a tampered image (sha-fail), a wrong key (sig-fail) and a truncated download (failed), each leaving v1 running', async () => {
    for (const [name, reply] of [
      ['tampered', 'ERR sha-fail'],
      ['wrongkey', 'ERR sig-fail (sig)'],
      ['trunc', 'ERR failed v2.0.0 (download)'],
    ] as const) {
      await d.command(feed(name));
      expect(await d.command('OTAAPPLY', 20_000)).toBe(reply);
      expect((await otaState(d))['lastOta']).toBe(reply.slice(4).replace(/ \(.*\)$/, ''));
      expect(await running(d)).toMatchObject({ slot: 0, version: 'v1.0.0' });
    }
    expect(await bootCount(d)).toBe(1);
  });

  it('installs v2, reboots into it from the other slot, and confirms it after the healthy window', async () => {
    await d.command(feed('good'));
    const boots = await bootCount(d);
    expect(await d.command('OTAAPPLY', 20_000)).toBe('restarting into v2.0.0\nOK');
    await d.board.request('wait', { for: 'ready', after: boots, timeoutMs: 15_000 });
    expect(await running(d)).toMatchObject({ slot: 1, version: 'v2.0.0' });
    expect(await otaState(d)).toMatchObject({ ota: 'confirming', lastOta: 'installing v2.0.0', otaSlot: 'ota_1' });
    await d.board.request('clock.warp', { ms: 601_000 });
    await d.board.request('wait', { for: 'log', match: 'v2.0.0 confirmed after a healthy run', timeoutMs: 10_000 });
    expect(await otaState(d)).toMatchObject({ ota: 'idle', lastOta: 'ok v2.0.0' });
    expect(await d.command('STATUS')).toMatch(/ ota=idle lastOta=ok_v2\.0\.0/);
  });

  it('rolls a v3 that crashes on boot back to v2 after three boots', async () => {
    await d.command(feed('crash'));
    const boots = await bootCount(d);
    expect(await d.command('OTAAPPLY', 20_000)).toBe('restarting into v3.0.0\nOK');
    await d.board.request('wait', { for: 'log', match: 'failed to start: rolled back to v2.0.0', after: boots, timeoutMs: 20_000 });
    await d.board.request('wait', { for: 'ready', timeoutMs: 10_000 });
    // boots: three failed v3 boots, the v3 start that returns to slot 1, then v2.
    expect((await bootCount(d)) - boots).toBe(5);
    expect(await running(d)).toMatchObject({ slot: 1, version: 'v2.0.0' });
    expect(await otaState(d)).toMatchObject({ ota: 'idle', lastOta: 'rollback v3.0.0', otaSlot: 'ota_1' });
    const log = readFileSync(join(d.dir, 'device.log'), 'utf8');
    expect(log.match(/boot attempt \d of 3/g)?.slice(-3)).toEqual(['boot attempt 1 of 3', 'boot attempt 2 of 3', 'boot attempt 3 of 3']);
  });
});

describe('power cuts during an install', () => {
  let d: Device;

  it('refuses on a low battery (need-power, with the force offer)', async () => {
    d = await boot(img.v1);
    await d.board.request('battery.set', { present: true, levelPct: 20, healthPct: 90, external: false });
    await d.command(feed('good'));
    expect(await d.command('OTAAPPLY')).toBe('offer: Install anyway (I am charging) (OTAAPPLY force)\nERR need-power');
    await d.board.request('battery.set', { levelPct: 90 });
  });

  async function cutAt(match: string, until: () => boolean = () => true): Promise<void> {
    const boots = await bootCount(d);
    d.board.proc.stdin!.write('OTAAPPLY\r\n');
    await d.board.request('wait', { for: 'log', match, timeoutMs: 15_000 });
    for (let i = 0; i < 200 && !until(); i++) await new Promise((r) => setTimeout(r, 10));
    await d.board.request('power.cut');
    await d.board.request('wait', { for: 'ready', after: boots, timeoutMs: 15_000 });
  }

  it('during the download: v1 boots, lastOta failed v2.0.0 (interrupted)', async () => {
    await d.command(feed('stall'));
    // cut once the server has sent part of the image (it then stalls)
    await cutAt('downloading v2.0.0', () => server.requests.some((r) => r.path === '/stall/v2.0.0/desk-v2.0.0.img'));
    expect(await running(d)).toMatchObject({ slot: 0, version: 'v1.0.0' });
    expect(await otaState(d)).toMatchObject({ lastOta: 'failed v2.0.0', otaErr: 'interrupted', ota: 'idle' });
  });

  it('after arming, before the flip: v1 boots, lastOta aborted-preflip', async () => {
    await d.command(feed('good'));
    expect(await d.command('OTASIM hold armed')).toBe('hold armed\nOK');
    await cutAt('held at armed');
    expect(await running(d)).toMatchObject({ slot: 0, version: 'v1.0.0' });
    expect(await otaState(d)).toMatchObject({ lastOta: 'aborted-preflip', ota: 'idle' });
  });

  it('after the flip: v2 boots and is confirmed', async () => {
    expect(await d.command('OTASIM hold flipped')).toBe('hold flipped\nOK');
    await cutAt('held at flipped');
    expect(await running(d)).toMatchObject({ slot: 1, version: 'v2.0.0' });
    expect(await otaState(d)).toMatchObject({ lastOta: 'installing v2.0.0', ota: 'confirming' });
    await d.board.request('clock.warp', { ms: 601_000 });
    await d.board.request('wait', { for: 'log', match: 'confirmed after a healthy run', timeoutMs: 10_000 });
    expect((await otaState(d))['lastOta']).toBe('ok v2.0.0');
  });
});
