// The modes and the Notifier link on the simulator, with the board's test
// central over the loopback BLE link (control ops ble.*): in Notifier mode
// STATUS is readable unbonded and writes are refused with the ATT error a
// phone would see; after pairing, frames change the ring (ring.state) and
// the screen (RENDER?); a bad frame changes nothing; bonds survive a reboot
// and FORGETBONDS removes them. Then MODE 1 and MODE 0 with the right
// services up and down each way: HTTP, Wi-Fi, the setup network, mDNS (as a
// host on the home network resolves it), BLE advertising.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame, RECORD } from '../../src/notifier/frame.ts';
import { CONFIG_UUID, FRAME_UUID, NOTIFIER_SERVICE_UUID, STATUS_UUID } from '../../src/notifier/gatt.ts';
import { RESULT } from '../../src/notifier/protocol.ts';
import { decodeStatus } from '../../src/notifier/status.ts';
import { cleanup, startDevice, type Device } from './harness.ts';

afterAll(cleanup);

const PHONE = 'c0:ff:ee:00:00:01';

interface BoardStatus {
  [key: string]: unknown;
  bootCount: number;
  wifi: { enabled: boolean; station: { state: string; ip: string | null }; ap: { ssid: string } | null };
  mdns: { hostname: string } | null;
  ble: { advertising: { name: string; services: string[] } | null; bonds: string[] };
  ring: { count: number };
}

let device: Device;
let httpPort = 0;
const status = () => device.board.request<BoardStatus>('status');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const readStatus = async () => decodeStatus(Buffer.from((await device.board.request<{ hex: string }>('ble.read', { uuid: STATUS_UUID })).hex, 'hex'))!;
const refused = (p: Promise<unknown>) => p.then(
  () => 'no refusal',
  (e: { code: string; message: string }) => `${e.code}: ${e.message}`,
);
const ring = async () => (await device.board.request<{ rgb: number[] }>('ring.state')).rgb;

function notice(holdS: number, title: string, body: string): Uint8Array {
  const t = Buffer.from(title);
  const b = Buffer.from(body);
  const out = new Uint8Array(3 + t.length + b.length);
  new DataView(out.buffer).setUint16(0, holdS, true);
  out[2] = t.length;
  out.set(t, 3);
  out.set(b, 3 + t.length);
  return out;
}

/** Reboots through the control socket and waits until the firmware is up again. */
async function reboot(): Promise<void> {
  const { bootCount } = await status();
  await device.board.request('reboot');
  await device.board.request('wait', { for: 'ready', after: bootCount, timeoutMs: 30_000 });
}

beforeAll(async () => {
  device = await startDevice({ mode: 0, board: 'ring-tft' });
});

describe('Notifier mode on the simulator', () => {
  it('runs the Bluetooth link only: no HTTP, the radio off, no setup network, no mDNS', async () => {
    expect(device.url).toBeNull();
    const s = await status();
    expect(s.wifi).toMatchObject({ enabled: false, ap: null, station: { state: 'off' } });
    expect(s.mdns).toBeNull();
    expect(s.ble.advertising).toEqual({ name: expect.stringMatching(/^Desk [0-9A-F]{4}$/), services: [NOTIFIER_SERVICE_UUID] });
    expect(await device.command('BLE?')).toMatch(new RegExp(`^ble=advertising name="Desk [0-9A-F]{4}" service=${NOTIFIER_SERVICE_UUID} bonds=0\\nframes=0 seq=0 last=ok\\nOK$`));
  });

  it('an unbonded central reads STATUS; its writes and CONFIG reads are refused; nothing changes', async () => {
    await device.board.request('ble.connect', { address: PHONE });
    expect(await readStatus()).toMatchObject({ version: 1, bonded: false, ring: true, seq: 0, frames: 0, firmware: expect.stringMatching(/^v\d+\.\d+\.\d+$/) });
    const before = await ring();
    const frame = encodeFrame(1, [{ type: RECORD.led, body: Uint8Array.from([1, 255, 0, 0, 255]) }]);
    expect(await refused(device.board.request('ble.write', { uuid: FRAME_UUID, hex: hex(frame) }))).toBe(
      `ETLS: ATT error 0x05 (Insufficient Authentication): ${FRAME_UUID} needs an encrypted, bonded link`,
    );
    expect(await refused(device.board.request('ble.read', { uuid: CONFIG_UUID }))).toMatch(/^ETLS: ATT error 0x05/);
    expect(await ring()).toEqual(before);
    expect(await readStatus()).toMatchObject({ seq: 0, frames: 0 });
  });

  it('after pairing, frames change the ring and the screen; a bad frame changes nothing', async () => {
    expect((await device.board.request<{ central: { bonded: boolean } }>('ble.pair')).central.bonded).toBe(true);
    await device.board.request('ble.notifications');
    const frame = encodeFrame(11, [{ type: RECORD.led, body: Uint8Array.from([1, 0, 255, 0, 255]) }, { type: RECORD.notice, body: notice(0, 'Call from Anna', 'Ringing') }]);
    await device.board.request('ble.write', { uuid: FRAME_UUID, hex: hex(frame) });
    await expect.poll(async () => (await ring()).slice(0, 3), { timeout: 5000 }).toEqual([0, 255, 0]);
    await expect.poll(() => device.command('RENDER?'), { timeout: 5000 }).toMatch(/^screen=notice[\s\S]*"Call from Anna"/);
    expect(await readStatus()).toMatchObject({ bonded: true, seq: 11, frames: 1, last: RESULT.ok, notice: true });
    const notes = (await device.board.request<{ notifications: Array<{ uuid: string; hex: string }> }>('ble.notifications')).notifications;
    expect(notes.map((n) => n.uuid)).toContain(STATUS_UUID);

    const bad = encodeFrame(12, [{ type: RECORD.led, body: Uint8Array.from([1, 255, 0, 0]) }, { type: 0x7f, body: new Uint8Array() }]);
    expect(await refused(device.board.request('ble.write', { uuid: FRAME_UUID, hex: hex(bad) }))).toMatch(/^EINVAL: ATT error 0x03 \(Write Not Permitted\)/);
    expect((await ring()).slice(0, 3)).toEqual([0, 255, 0]);
    expect(await readStatus()).toMatchObject({ seq: 11, frames: 1, last: RESULT.unknownRecord });
    // CONFIG over the bonded link: the ring's brightness.
    await device.board.request('ble.write', { uuid: CONFIG_UUID, hex: '01010140' });
    expect((await device.board.request<{ hex: string }>('ble.read', { uuid: CONFIG_UUID })).hex.slice(0, 8)).toBe('01010140');
  });

  it('NSNFEED applies a frame as a bonded central would', async () => {
    const frame = encodeFrame(12, [{ type: RECORD.led, body: Uint8Array.from([1, 0, 0, 255, 255]) }, { type: RECORD.clear, body: new Uint8Array() }]);
    expect(await device.command(`NSNFEED ${hex(frame)}`)).toBe('applied seq=12: led solid, clear\nOK');
    await expect.poll(async () => (await ring()).slice(0, 3), { timeout: 5000 }).toEqual([0, 0, 255]);
    expect(await device.command('RENDER?')).toMatch(/^screen=status/);
  });

  it('keeps the bond across a reboot; FORGETBONDS removes it', async () => {
    await device.board.request('ble.disconnect');
    await reboot();
    expect(await device.command('BONDS?')).toBe(`bond=${PHONE}\nbonds=1\nOK`);
    const { central } = await device.board.request<{ central: { bonded: boolean } }>('ble.connect', { address: PHONE });
    expect(central.bonded).toBe(true);
    await device.board.request('ble.write', { uuid: FRAME_UUID, hex: hex(encodeFrame(20, [{ type: RECORD.wake, body: new Uint8Array() }])) });
    expect(await readStatus()).toMatchObject({ bonded: true, seq: 20, frames: 1 });
    expect(await device.command('FORGETBONDS')).toBe('forgot 1 bond(s)\nOK');
    expect((await status()).ble.bonds).toEqual([]);
    await device.board.request('ble.disconnect');
    const again = await device.board.request<{ central: { bonded: boolean } }>('ble.connect', { address: PHONE });
    expect(again.central.bonded).toBe(false);
    expect(await refused(device.board.request('ble.write', { uuid: FRAME_UUID, hex: hex(encodeFrame(21, [])) }))).toMatch(/^ETLS/);
    await device.board.request('ble.disconnect');
  });
});

describe('switching modes', () => {
  it('MODE 1: HTTP, Wi-Fi (joined from the console), the setup network while nothing was saved, mDNS; no BLE', async () => {
    const { bootCount } = await status();
    expect(await device.command('MODE 1')).toBe('mode=1 (Orchestrator) saved; restarting\nOK');
    const ready = await device.board.request<{ http: boolean; httpPort: number }>('wait', { for: 'ready', after: bootCount, timeoutMs: 30_000 });
    expect(ready.http).toBe(true);
    httpPort = ready.httpPort;
    // HTTP is up; with nothing saved yet, the setup network's token handout answers.
    expect((await fetch(`http://127.0.0.1:${httpPort}/`, { redirect: 'manual' })).headers.get('location')).toMatch(/^\/\?t=[0-9a-f]{24}$/);
    let s = await status();
    expect(s.ble.advertising).toBeNull();
    expect(await refused(device.board.request('ble.connect', { address: PHONE }))).toMatch(/^ECONN: the device is not advertising/);
    expect(s.wifi.enabled).toBe(true);
    expect(s.wifi.ap).toMatchObject({ ssid: 'Device-setup' });
    expect(await device.command('BLE?')).toMatch(/^ble=off /);
    expect(await refused(device.board.request('mdns.resolve', { hostname: 'desk-0000' }))).toMatch(/^ENOENT/);

    expect(await device.command('WIFI SimNet|simnet-pass', 30_000)).toMatch(/^saved "SimNet" \(known=1\)\njoined "SimNet" as 192\.168\.1\.50\nOK$/);
    // The responder probes, then announces (RFC 6762 §8; test/e2e/mdns.test.ts): the home network hears it.
    await expect.poll(async () => (await status()).mdns?.hostname, { timeout: 10_000 }).toMatch(/^desk-[0-9a-f]{4}$/);
    s = await status();
    const found = await device.board.request<{ hostname: string; address: string; services: Array<{ type: string; port: number; txt: Record<string, string> }> }>('mdns.resolve', {
      hostname: `${s.mdns!.hostname}.local`,
    });
    expect(found).toMatchObject({ address: '192.168.1.50' });
    const httpService = found.services.find((x) => x.type === '_http');
    expect(httpService).toMatchObject({ protocol: 'tcp', port: 80, txt: { model: 'ring-tft' } });
    expect(Object.keys(httpService!.txt).sort()).toEqual(['fw', 'model', 'path', 'txtvers']);
    const apinfo = await device.command('APINFO?');
    const pass = /pass=(\S+)/.exec(apinfo)![1]!;
    expect(JSON.stringify(found)).not.toContain(pass);
    // The setup network drops within the 20 s overlap (virtual time) now that the station has an address.
    await device.board.request('clock.warp', { ms: 20_000 });
    await expect.poll(async () => (await status()).wifi.ap, { timeout: 5000 }).toBeNull();
    expect(await device.command('WIFIAP')).toBe('setup=off forced=no ssid=Device-setup station=connected\nOK');
    // Link down: the setup network is restored at once.
    await device.board.request('wifi.linkDown');
    await expect.poll(async () => (await status()).wifi.ap, { timeout: 5000 }).toMatchObject({ ssid: 'Device-setup' });
  });

  it('MODE 0 again: HTTP, Wi-Fi, the setup network and mDNS go; BLE advertises; the known networks stay saved', async () => {
    const { bootCount } = await status();
    expect(await device.command('MODE 0')).toBe('mode=0 (Notifier) saved; restarting\nOK');
    expect(await device.board.request('wait', { for: 'ready', after: bootCount, timeoutMs: 30_000 })).toMatchObject({ http: false });
    const s = await status();
    expect(s.wifi).toMatchObject({ enabled: false, ap: null });
    expect(s.mdns).toBeNull();
    expect(s.ble.advertising?.services).toEqual([NOTIFIER_SERVICE_UUID]);
    expect(await refused(device.board.request('mdns.resolve', { hostname: 'desk-0000' }))).toMatch(/^ENOENT/);
    expect(await refused(fetch(`http://127.0.0.1:${httpPort}/`))).toMatch(/fetch failed/);
    expect(await device.command('WIFIKNOWN?')).toBe('1 ssid="SimNet" security=wpa2 current=no\nknown=1 max=8\nOK');
  });
});
