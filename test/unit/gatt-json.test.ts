// The device's GATT table from the firmware's one definition: the SDK's
// "bleservices" JSON written at build time (tools/gatt-json.mjs), and the
// device HAL's refusal of services that are not the compiled table.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GATT_MODULE, loadGattServices, serviceJson, writeBleServices } from '../../tools/gatt-json.mjs';
import { gattMismatch } from '../../hosts/esp32/hal/gatt-table.ts';
import type { GattService } from '../../src/hal/index.ts';
import { CONFIG_UUID, FRAME_UUID, NOTIFIER_GATT, NOTIFIER_SERVICE_UUID, STATUS_UUID } from '../../src/notifier/gatt.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = mkdtempSync(join(tmpdir(), 'gatt-json-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

// Test data for the mechanism; the Notifier's real service is checked at the end.
const SAMPLE: GattService[] = [
  {
    uuid: '0000aa00-1111-2222-3333-444455556666',
    characteristics: [
      { uuid: '0000aa01-1111-2222-3333-444455556666', read: true, write: false, notify: true, bondedOnly: false },
      { uuid: '0000aa02-1111-2222-3333-444455556666', read: true, write: true, notify: false, bondedOnly: true },
      { uuid: '0000aa03-1111-2222-3333-444455556666', read: false, write: false, notify: true, bondedOnly: true },
    ],
  },
];

describe('the SDK bleservices JSON', () => {
  it('keys each characteristic by its UUID, with encrypted permissions for bonded-only ones', () => {
    const { service } = serviceJson(SAMPLE[0]);
    expect(service.uuid).toBe(SAMPLE[0]!.uuid);
    expect(Object.keys(service.characteristics)).toEqual(SAMPLE[0]!.characteristics.map((c) => c.uuid));
    const [plain, bonded, notifyOnly] = Object.values(service.characteristics) as Array<Record<string, unknown>>;
    expect(plain).toMatchObject({ permissions: 'read', properties: 'read,notify', maxBytes: 512, type: 'Uint8Array' });
    expect(bonded).toMatchObject({ permissions: 'readEncrypted,writeEncrypted', properties: 'read,write' });
    expect(notifyOnly).toMatchObject({ permissions: 'readEncrypted', properties: 'notify' });
  });

  it('refuses what bles2gatt or the HAL could not match', () => {
    expect(() => serviceJson({ ...SAMPLE[0]!, uuid: '0000AA00-1111-2222-3333-444455556666' })).toThrow(/lowercase/);
    expect(() => serviceJson({ uuid: 'abcd', characteristics: [] })).toThrow(/no characteristics/);
    const c = SAMPLE[0]!.characteristics[0]!;
    expect(() => serviceJson({ uuid: 'abcd', characteristics: [c, c] })).toThrow(/twice/);
    expect(() => serviceJson({ uuid: 'abcd', characteristics: [{ ...c, read: false, notify: false }] })).toThrow(/neither/);
  });

  it('writes one file per service into the folder manifest.json lists, and the table the HAL checks', () => {
    const dir = join(out, 'bleservices');
    const table = writeBleServices(dir, SAMPLE);
    expect(readdirSync(dir)).toEqual(['service0.json']);
    expect(JSON.parse(readFileSync(join(dir, 'service0.json'), 'utf8'))).toEqual(serviceJson(SAMPLE[0]));
    expect(gattMismatch(SAMPLE, table)).toBeNull();
    expect(writeBleServices(dir, [])).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
    const top = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as { platforms: { esp32: { ble: Record<string, string[]> } } };
    expect(top.platforms.esp32.ble['*']).toEqual(['$(DESK_FIRMWARE)/bleservices/*']);
  });

  it('has the device HAL refuse services that are not the compiled table', () => {
    const table = writeBleServices(join(out, 'b2'), SAMPLE);
    const extra: GattService[] = [{ ...SAMPLE[0]!, characteristics: [...SAMPLE[0]!.characteristics, { ...SAMPLE[0]!.characteristics[0]!, uuid: '0000aa09-1111-2222-3333-444455556666' }] }];
    expect(gattMismatch(extra, table)).toMatch(/GATT table is 0000aa00/);
    expect(gattMismatch(SAMPLE, [])).toMatch(/table is empty/);
  });

  it("takes the definition from the firmware's module: the Notifier service, STATUS open, FRAME and CONFIG encrypted", async () => {
    expect(existsSync(join(ROOT, GATT_MODULE))).toBe(true);
    const services = (await loadGattServices(ROOT)) as GattService[];
    expect(services).toEqual(NOTIFIER_GATT);
    const table = writeBleServices(join(out, 'notifier'), services);
    expect(gattMismatch(NOTIFIER_GATT, table)).toBeNull();
    const { service } = serviceJson(services[0]);
    expect(service.uuid).toBe(NOTIFIER_SERVICE_UUID);
    expect(service.characteristics).toEqual({
      [STATUS_UUID]: { uuid: STATUS_UUID, maxBytes: 512, type: 'Uint8Array', permissions: 'read', properties: 'read,notify' },
      [FRAME_UUID]: { uuid: FRAME_UUID, maxBytes: 512, type: 'Uint8Array', permissions: 'writeEncrypted', properties: 'write' },
      [CONFIG_UUID]: { uuid: CONFIG_UUID, maxBytes: 512, type: 'Uint8Array', permissions: 'readEncrypted,writeEncrypted', properties: 'read,write' },
    });
  });
});
