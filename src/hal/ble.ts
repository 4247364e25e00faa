// HAL: the Bluetooth LE GATT server used by Notifier mode. Security is LE
// Secure Connections with Just Works pairing; bonds persist across reboot.
// Each characteristic says whether it needs an encrypted, bonded link.

export interface GattCharacteristic {
  uuid: string;
  read: boolean;
  write: boolean;
  notify: boolean;
  /** Reads and writes need a bonded, encrypted link. */
  bondedOnly: boolean;
}

export interface GattService {
  uuid: string;
  characteristics: GattCharacteristic[];
}

export interface BleCentral {
  /** Connection handle, unique while connected. */
  readonly id: number;
  /** Peer address, 'aa:bb:cc:dd:ee:ff'. */
  readonly address: string;
  /** The link is encrypted with a stored bond. */
  readonly bonded: boolean;
}

export interface BleHandlers {
  onConnect(central: BleCentral): void;
  onDisconnect(central: BleCentral): void;
  /** A bond was created (or refused) with this central. */
  onBond(central: BleCentral, ok: boolean): void;
  /** Returns the value, or null to answer "read not permitted". */
  onRead(central: BleCentral, uuid: string): Uint8Array | null;
  /** Returns false to answer "write not permitted". */
  onWrite(central: BleCentral, uuid: string, value: Uint8Array): boolean;
}

export interface Ble {
  readonly present: boolean;
  start(deviceName: string, services: GattService[], handlers: BleHandlers): void;
  stop(): void;
  notify(central: BleCentral, uuid: string, value: Uint8Array): void;
  /** Addresses of stored bonds. */
  bonds(): string[];
  forgetBonds(): void;
  /** Our own BLE address. */
  address(): string;
}
