// The device's GATT table, generated at build time. The Moddable SDK's
// BLEServer cannot add services at run time: mcconfig compiles the JSON files
// of a folder named "bleservices" (a manifest's "ble" section) into the
// NimBLE table (its tools/bles2gatt.js). The firmware defines its services
// once, in TypeScript, as the GattService[] it passes to hal.ble.start()
// (GATT_MODULE below, export GATT_EXPORT); this turns that same definition
// into the SDK's JSON under build/device/<type>/bleservices/, and into the
// list the device HAL checks ble.start() against (hosts/esp32/hal/ble.ts).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

/** Where the Notifier's GATT service definition lives (issue #15 writes it). */
export const GATT_MODULE = 'src/notifier/gatt.ts';
export const GATT_EXPORT = 'NOTIFIER_GATT';
/** ATT's largest attribute value: the SDK wants a size for every value it holds for us. */
export const DEFAULT_MAX_BYTES = 512;
const UUID128 = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID16 = /^[0-9a-f]{4}$/;

function checkUuid(uuid, what) {
  if (typeof uuid !== 'string' || !(UUID128.test(uuid) || UUID16.test(uuid))) {
    throw new Error(`${what}: UUID ${JSON.stringify(uuid)} must be lowercase, 4 hex digits or 8-4-4-4-12 (the form bles2gatt reads and the HAL matches)`);
  }
}

/**
 * One service in the SDK's "bleservices" JSON form. Each characteristic is
 * keyed by its UUID, so the SDK hands the HAL the UUID as the characteristic's
 * name; bondedOnly becomes the encrypted permissions (the link must be
 * encrypted, which Just Works pairing with bonding gives).
 */
export function serviceJson(service) {
  checkUuid(service.uuid, 'service');
  if (!Array.isArray(service.characteristics) || service.characteristics.length === 0) throw new Error(`service ${service.uuid}: no characteristics`);
  const characteristics = {};
  for (const c of service.characteristics) {
    checkUuid(c.uuid, `service ${service.uuid}`);
    if (c.uuid in characteristics) throw new Error(`service ${service.uuid}: characteristic ${c.uuid} twice`);
    const properties = [c.read && 'read', c.write && 'write', c.notify && 'notify'].filter(Boolean);
    if (!properties.length) throw new Error(`characteristic ${c.uuid}: neither read, write nor notify`);
    // bles2gatt wants at least one permission; a notify-only value is read-guarded like a readable one.
    const permissions = [(c.read || !c.write) && (c.bondedOnly ? 'readEncrypted' : 'read'), c.write && (c.bondedOnly ? 'writeEncrypted' : 'write')].filter(Boolean);
    characteristics[c.uuid] = { uuid: c.uuid, maxBytes: c.maxBytes ?? DEFAULT_MAX_BYTES, type: 'Uint8Array', permissions: permissions.join(','), properties: properties.join(',') };
  }
  return { service: { uuid: service.uuid, characteristics } };
}

/** The firmware's GattService[] from GATT_MODULE, or [] while that module does not exist. */
export async function loadGattServices(root) {
  const entry = join(root, GATT_MODULE);
  if (!existsSync(entry)) return [];
  const out = await esbuild.build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', write: false, logLevel: 'error' });
  const mod = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`);
  const services = mod[GATT_EXPORT];
  if (!Array.isArray(services)) throw new Error(`${GATT_MODULE} must export ${GATT_EXPORT}: GattService[]`);
  return services;
}

/**
 * Writes dir/<n>.json per service (replacing the folder; an empty folder when
 * there are none, which mcconfig compiles into an empty table) and returns the
 * table the HAL checks: service UUID to its characteristic UUIDs.
 */
export function writeBleServices(dir, services) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const seen = new Set();
  services.forEach((s, i) => {
    const json = serviceJson(s);
    if (seen.has(s.uuid)) throw new Error(`service ${s.uuid} twice`);
    seen.add(s.uuid);
    writeFileSync(join(dir, `service${i}.json`), `${JSON.stringify(json, null, 2)}\n`);
  });
  return services.map((s) => ({ uuid: s.uuid, characteristics: s.characteristics.map((c) => c.uuid) }));
}
