// A device booted on the in-memory HAL, paired with the local relay
// (tools/cloud-relay.mjs) on the in-memory network, and its owner's requests
// through the real tunnel, all on the virtual clock. Shared by the relay's
// own tests and the tunnel's secret screen tests.

import { expect } from 'vitest';
import { boot, type Device } from '../../src/main.ts';
import { DEFAULT_ACCOUNT, type RelayResponse } from '../../tools/cloud-relay.mjs';
import { fakeRelay, type ServedRelay } from './cloud-net.ts';
import { createMemHal, type MemHal } from './memhal.ts';

export interface Rig {
  mem: MemHal;
  device: Device;
  relay: ServedRelay;
}

export function setup(options: { wifi?: boolean; trusted?: boolean; tlsVerify?: boolean; pairMs?: number; before?: (mem: MemHal) => void } = {}): Rig {
  const mem = createMemHal();
  if (options.wifi !== false) mem.nvs.setMany('wifi', [['ssid', 'Home'], ['pass', 'home-pass-1']]);
  if (options.tlsVerify === false) mem.nvs.set('net', 'tlsVerify', 0);
  options.before?.(mem);
  const rig = { mem } as Rig;
  rig.relay = fakeRelay(mem.net, () => rig.mem.clock, { trusted: options.trusted ?? true, ...(options.pairMs ? { pairMs: options.pairMs } : {}) });
  rig.device = boot(mem.hal);
  return rig;
}

export async function until(rig: Rig, pred: () => boolean, ms = 30_000): Promise<void> {
  if (!(await rig.mem.clock.until(pred, ms, 50))) throw new Error(`not within ${ms} ms`);
}

export async function cmd(rig: Rig, line: string): Promise<string> {
  const serial = rig.mem.serial;
  serial.take();
  serial.type(`${line}\r\n`);
  await until(rig, () => /(^|\n)(OK|ERR[^\n]*)\r?\n$/.test(serial.output), 30_000);
  return serial.take().replace(/\r/g, '');
}

export function cloudState(rig: Rig): string {
  return (rig.device.ctx.status.snapshot()['cloud'] as { state: string }).state;
}

/** Pairs the device with the relay as the default account; returns the device id. */
export async function pair(rig: Rig): Promise<string> {
  const out = await cmd(rig, 'CLOUDPAIR');
  const code = /code=(\S+)/.exec(out)?.[1];
  expect(code, out).toBeTruthy();
  const claimed = rig.relay.claim(DEFAULT_ACCOUNT, code!.toLowerCase());
  if (!claimed.ok) throw new Error(claimed.error);
  await until(rig, () => cloudState(rig) === 'online');
  return claimed.deviceId;
}

/** An owner's request through the relay, answered on the virtual clock. */
export async function owner(
  rig: Rig,
  id: string,
  method: string,
  target: string,
  options: { headers?: Array<[string, string]>; body?: string | Uint8Array; account?: string } = {},
): Promise<RelayResponse & { text: string }> {
  let got: RelayResponse | null = null;
  const body = typeof options.body === 'string' ? new TextEncoder().encode(options.body) : options.body;
  void rig.relay.request(options.account ?? DEFAULT_ACCOUNT, id, { method, target, headers: options.headers ?? [], ...(body !== undefined ? { body } : {}) }).then((r) => (got = r));
  await until(rig, () => got !== null);
  const r = got as unknown as RelayResponse;
  return { ...r, text: r.body.toString('utf8') };
}

export function header(r: RelayResponse, name: string): string | undefined {
  return r.headers.find(([k]) => k.toLowerCase() === name)?.[1];
}
