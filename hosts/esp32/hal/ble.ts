// Device HAL: the Notifier's Bluetooth LE GATT server on Moddable's BLEServer.
// Security (spec, Authentication 16): LE Secure Connections with Just Works
// (encryption and bonding on, no MITM, no input or output), bonds kept by the
// stack in NVS. A characteristic marked bondedOnly answers only on a link
// that authenticated with a bond.
//
// The SDK's BLEServer takes its GATT table from JSON service files compiled
// into the build (manifest.json's "ble" section). tools/gatt-json.mjs writes
// them at build time from the firmware's own GattService[] definition, each
// characteristic named by its UUID so the handlers see UUIDs as on the
// simulator, and bondedOnly as the encrypted permissions; start() refuses
// services that are not that compiled table (gatt-table.ts). The definition
// is the Notifier link's (src/notifier/gatt.ts; docs/device.md, "Bluetooth").
// The SDK's write callback cannot answer an error: a write the firmware
// refuses is acknowledged, and STATUS carries the refusal.
//
// As modules/network/ble/bleserver.js has it: the server deploys the
// compiled table itself once the stack is ready (deploy is private: it runs
// after onReady); characteristics of type Uint8Array (the JSON's "type") are
// read and written as Uint8Array; onAuthenticated({bonded}) follows pairing;
// the security parameters' ioCapability defaults to NoInputNoOutput (Just
// Works), so it is left out (sm's IOCapability is a const enum in the SDK's
// typings, which isolated modules cannot read). SM.deleteAllBondings is the
// named export of modules/network/ble/sm.js.

import BLEServer from 'bleserver';
import type { Characteristic, Client } from 'gatt';
import { SM } from 'sm';
import GAP from 'gap';
import type { Ble, BleCentral, BleHandlers, GattService } from '../../../src/hal/index.ts';
import { HalError } from '../../../src/hal/index.ts';
import { gattMismatch, type CompiledService } from './gatt-table.ts';

declare const __DESK_GATT__: CompiledService[];

/** What bleserver.js passes to onAuthenticated (its callback's "onAuthenticated" case). */
interface Authenticated {
  bonded: boolean;
}

/** 'aa:bb:..' from the stack's little-endian address bytes. */
function address(bytes: ArrayBuffer): string {
  const parts: string[] = [];
  const a = new Uint8Array(bytes);
  for (let i = a.length - 1; i >= 0; i--) parts.push((a[i]! < 16 ? '0' : '') + a[i]!.toString(16));
  return parts.join(':');
}

export function createBle(bondStore: { list(): string[]; add(a: string): void; clear(): void }): Ble {
  let server: (BLEServer & { onAuthenticated?: (a: Authenticated) => void }) | null = null;
  const centrals = new Map<number, { id: number; address: string; bonded: boolean }>();
  let bondedOnly = new Set<string>();
  const subscribed = new Map<string, Characteristic>();
  return {
    present: true,
    start(deviceName: string, services: GattService[], handlers: BleHandlers): void {
      if (server) throw new HalError('EBUSY', 'BLE already started');
      const mismatch = gattMismatch(services, __DESK_GATT__);
      if (mismatch) throw new HalError('ENOTSUP', mismatch);
      bondedOnly = new Set(services.flatMap((s) => s.characteristics.filter((c) => c.bondedOnly).map((c) => c.uuid)));
      const s: BLEServer & { onAuthenticated?: (a: Authenticated) => void } = new BLEServer();
      const central = (c: Client) => centrals.get(c.connection) ?? { id: c.connection, address: address(c.address), bonded: false };
      s.onReady = () => {
        s.deviceName = deviceName;
        s.securityParameters = { encryption: true, bonding: true, mitm: false };
        s.startAdvertising({ advertisingData: { flags: GAP.ADFlag.LE_GENERAL_DISCOVERABLE_MODE | GAP.ADFlag.NO_BR_EDR, completeName: deviceName } });
      };
      s.onConnected = (c) => {
        const entry = { id: c.connection, address: address(c.address), bonded: false };
        centrals.set(c.connection, entry);
        handlers.onConnect(entry);
      };
      s.onDisconnected = (c) => {
        const entry = central(c);
        centrals.delete(c.connection);
        handlers.onDisconnect(entry);
        s.startAdvertising({ advertisingData: { flags: GAP.ADFlag.LE_GENERAL_DISCOVERABLE_MODE | GAP.ADFlag.NO_BR_EDR, completeName: deviceName } });
      };
      s.onAuthenticated = ({ bonded }) => {
        for (const entry of centrals.values()) {
          entry.bonded = bonded;
          if (bonded) bondStore.add(entry.address);
          handlers.onBond(entry, bonded);
        }
      };
      s.onCharacteristicRead = (c) => {
        const entry = [...centrals.values()][0] as BleCentral | undefined;
        if (!entry || (bondedOnly.has(c.name) && !entry.bonded)) return undefined;
        return handlers.onRead(entry, c.name)?.slice() ?? undefined;
      };
      s.onCharacteristicNotifyEnabled = (c) => {
        subscribed.set(c.name, c);
      };
      s.onCharacteristicWritten = (c, value: Uint8Array) => {
        const entry = [...centrals.values()][0] as BleCentral | undefined;
        if (!entry || (bondedOnly.has(c.name) && !entry.bonded)) return;
        handlers.onWrite(entry, c.name, value);
      };
      server = s;
    },
    stop(): void {
      server?.close();
      server = null;
      centrals.clear();
      subscribed.clear();
    },
    notify(c: BleCentral, uuid: string, value: Uint8Array): void {
      const characteristic = subscribed.get(uuid);
      if (!server || !centrals.has(c.id) || !characteristic) return;
      server.notifyValue(characteristic, value.slice());
    },
    bonds: () => bondStore.list(),
    forgetBonds(): void {
      SM.deleteAllBondings();
      bondStore.clear();
    },
    address: () => (server ? address(server.localAddress) : ''),
  };
}
