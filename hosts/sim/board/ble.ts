// Bluetooth LE: the firmware's GATT server (ble.start/stop/notify, bonds) and
// a simulated central driven from the control socket (connect, pair with Just
// Works (always succeeds), read, write, disconnect). The stack's own checks
// are applied before the firmware is asked: unknown characteristics, missing
// read/write properties, and bondedOnly characteristics on an unbonded link.
// Refusals name the ATT error a real central would get: 0x05 Insufficient
// Authentication (bondedOnly, unbonded), 0x02 Read Not Permitted and 0x03
// Write Not Permitted (missing property, or the firmware refused).
// Bonds persist in device.json.

import type { BleCentral, GattCharacteristic, GattService } from '../../../src/hal/index.ts';
import type { DeviceFolder } from './device.ts';
import { BoardError, fail } from './errors.ts';
import type { Json, Service, Session } from './service.ts';
import { int, str } from './service.ts';

const REPLY_TIMEOUT_MS = 5000;

interface Pending {
  resolve(r: { ok: boolean; bin: Buffer }): void;
  timer: NodeJS.Timeout;
}

function normalAddress(a: unknown): string {
  if (typeof a !== 'string' || !/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(a)) fail('EINVAL', "address must look like 'aa:bb:cc:dd:ee:ff'");
  return a.toLowerCase();
}

export class BleRadio implements Service {
  private advertising: { name: string; services: GattService[] } | null = null;
  private central: BleCentral | null = null;
  private session: Session | null = null;
  private nextCentral = 1;
  private nextReq = 1;
  private pending = new Map<number, Pending>();
  /** Notifications the firmware sent to the simulated central, oldest first. */
  private notes: Array<{ uuid: string; hex: string }> = [];

  constructor(private readonly device: DeviceFolder) {}

  status(): Json {
    return {
      advertising: this.advertising ? { name: this.advertising.name, services: this.advertising.services.map((s) => s.uuid) } : null,
      central: this.central,
      bonds: [...this.device.config.ble.bonds],
      address: this.device.config.ble.address,
    };
  }

  start(session: Session): void {
    this.session = session;
    this.advertising = null;
    this.central = null;
    this.notes = [];
  }

  stop(): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.resolve({ ok: false, bin: Buffer.alloc(0) });
    }
    this.pending.clear();
    this.session = null;
    this.advertising = null;
    this.central = null;
  }

  shutdown(): void {
    this.stop();
  }

  private characteristic(uuid: string): GattCharacteristic {
    for (const s of this.advertising?.services ?? []) {
      for (const c of s.characteristics) if (c.uuid.toLowerCase() === uuid.toLowerCase()) return c;
    }
    fail('ENOENT', `no characteristic ${uuid}`);
  }

  private connected(): { central: BleCentral; session: Session } {
    if (!this.central || !this.session) fail('ECONN', 'the simulated central is not connected');
    return { central: this.central, session: this.session };
  }

  private ask(type: 'ble.read' | 'ble.write', fields: Json, bin?: Uint8Array): Promise<{ ok: boolean; bin: Buffer }> {
    const { central, session } = this.connected();
    const req = this.nextReq++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(req);
        resolve({ ok: false, bin: Buffer.alloc(0) });
      }, REPLY_TIMEOUT_MS);
      this.pending.set(req, { resolve, timer });
      session.emit(type, { central, req, ...fields }, bin);
    });
  }

  private answer(args: Json, bin: Buffer): void {
    const req = int(args, 'req');
    const p = this.pending.get(req);
    if (!p) return;
    this.pending.delete(req);
    clearTimeout(p.timer);
    p.resolve({ ok: args['ok'] === true, bin: Buffer.from(bin) });
  }

  /** Control ops of the simulated central. */
  async control(op: string, args: Json): Promise<Json> {
    switch (op) {
      case 'ble.connect': {
        if (!this.advertising || !this.session) fail('ECONN', 'the device is not advertising');
        if (this.central) fail('EBUSY', 'a central is already connected');
        const address = normalAddress(args['address'] ?? 'c0:ff:ee:00:00:01');
        this.central = { id: this.nextCentral++, address, bonded: this.device.config.ble.bonds.includes(address) };
        this.notes = [];
        this.session.emit('ble.connect', { central: this.central });
        return { central: this.central };
      }
      case 'ble.pair': {
        const { central, session } = this.connected();
        if (!central.bonded) {
          this.device.update((c) => {
            if (!c.ble.bonds.includes(central.address)) c.ble.bonds.push(central.address);
          });
        }
        this.central = { ...central, bonded: true };
        session.emit('ble.bond', { central: this.central, ok: true });
        return { central: this.central };
      }
      case 'ble.read': {
        const uuid = str(args, 'uuid');
        const { central } = this.connected();
        const c = this.characteristic(uuid);
        if (!c.read) fail('ENOTSUP', `ATT error 0x02 (Read Not Permitted): ${uuid} is not readable`);
        if (c.bondedOnly && !central.bonded) fail('ETLS', `ATT error 0x05 (Insufficient Authentication): ${uuid} needs an encrypted, bonded link`);
        const r = await this.ask('ble.read', { uuid });
        if (!r.ok) fail('EINVAL', `ATT error 0x02 (Read Not Permitted): the device refused to read ${uuid}`);
        return { hex: r.bin.toString('hex') };
      }
      case 'ble.write': {
        const uuid = str(args, 'uuid');
        const hex = str(args, 'hex');
        if (!/^([0-9a-f]{2})*$/i.test(hex)) fail('EINVAL', 'hex must be an even number of hex digits');
        const { central } = this.connected();
        const c = this.characteristic(uuid);
        if (!c.write) fail('ENOTSUP', `ATT error 0x03 (Write Not Permitted): ${uuid} is not writable`);
        if (c.bondedOnly && !central.bonded) fail('ETLS', `ATT error 0x05 (Insufficient Authentication): ${uuid} needs an encrypted, bonded link`);
        const r = await this.ask('ble.write', { uuid }, Buffer.from(hex, 'hex'));
        if (!r.ok) fail('EINVAL', `ATT error 0x03 (Write Not Permitted): the device refused the write to ${uuid}`);
        return {};
      }
      case 'ble.disconnect': {
        const { central, session } = this.connected();
        this.central = null;
        session.emit('ble.disconnect', { central });
        return {};
      }
      case 'ble.notifications': {
        const out = this.notes;
        this.notes = [];
        return { notifications: out };
      }
      default:
        throw new BoardError('ENOTSUP', `unknown op ${op}`);
    }
  }

  readonly ops = {
    'ble.start': (args: Json) => {
      const name = str(args, 'name');
      if (!Array.isArray(args['services'])) throw new TypeError('services must be a list');
      this.advertising = { name, services: args['services'] as GattService[] };
    },
    'ble.stop': () => {
      if (this.central && this.session) this.session.emit('ble.disconnect', { central: this.central });
      this.central = null;
      this.advertising = null;
    },
    'ble.notify': (args: Json, bin: Buffer) => {
      if (!this.central || int(args, 'central') !== this.central.id) return;
      this.notes.push({ uuid: str(args, 'uuid'), hex: bin.toString('hex') });
      if (this.notes.length > 1000) this.notes.shift();
    },
    'ble.bonds': () => ({ json: { bonds: [...this.device.config.ble.bonds], address: this.device.config.ble.address } }),
    'ble.forgetBonds': () => {
      this.device.update((c) => (c.ble.bonds = []));
      if (this.central) this.central = { ...this.central, bonded: false };
    },
    'ble.readReply': (args: Json, bin: Buffer) => this.answer(args, bin),
    'ble.writeReply': (args: Json, bin: Buffer) => this.answer(args, bin),
  };
}
