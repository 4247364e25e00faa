// The Notifier link in Notifier mode: the GATT server (gatt.ts) on the
// HAL's BLE, bonds kept by the HAL across restarts (LE Secure Connections,
// Just Works), and what a central's writes do. STATUS answers anyone; FRAME
// and CONFIG need a bonded, encrypted link: the stack refuses them on an
// unbonded one (the characteristics are bondedOnly), and this code checks
// again before it applies anything. A frame changes the ring (the led layer
// through the device actions, so LEDSTATE and the screen's indicator agree;
// attention animations through the ring engine) and the screen (the Ui's notices).
// A bad write is refused whole: nothing changes, STATUS carries the reason's
// code, and the write itself is answered with an error where the stack lets
// the firmware refuse it (the simulator does; docs/notifier-protocol.md).

import type { ConfigKey, DeviceAction } from '../contracts/index.ts';
import type { AnimId } from '../device/index.ts';
import type { BleCentral, Hal } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Notice } from '../ui/index.ts';
import { capBytes } from '../util/cap.ts';
import { configInForce, encodeConfig, parseConfigWrite } from './config.ts';
import { parseFrame, type Frame } from './frame.ts';
import { CONFIG_UUID, FRAME_UUID, NOTIFIER_GATT, STATUS_UUID } from './gatt.ts';
import { refuse, RESULT, resultName, type Refusal } from './protocol.ts';
import { encodeStatus } from './status.ts';
import { replaceEvery } from '../util/replace.ts';

/** The advertised name's cap: what fits an advertising packet beside its flags. */
export const ADV_NAME_MAX_BYTES = 20;
/** The source the screen shows under a notice from the link. */
export const NOTICE_SOURCE = 'Phone';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const COLONS = /:/;

export type WriteResult = { ok: true; summary: string; seq: number } | Refusal;

/** What the notifier needs from others (src/notifier/index.ts), each by the calls it makes. */
export interface NotifierOptions {
  /** The device actions (src/device/): the led layer a frame sets, the config keys CONFIG reads and writes. */
  actions: {
    config(key: ConfigKey): unknown;
    apply(action: DeviceAction): { ok: boolean; note: string };
  };
  /** The ring's attention animations (src/device/'s RingEngine). */
  ring: { attention(anim: AnimId, holdMs?: number): void };
  /** The screen (src/ui/'s Ui): notices a frame shows or clears, wake, and how many phones are linked. */
  ui: {
    showNotice(n: Notice): void;
    clearNotice(): void;
    hasNotice(): boolean;
    wake(): void;
    setPhones(n: number): void;
  };
}

export class NotifierLink {
  private running = false;
  private centrals = new Map<number, BleCentral>();
  private seq = 0;
  private frames = 0;
  private last: number = RESULT.ok;
  private name = '';

  private readonly actions: NotifierOptions['actions'];
  private readonly ring: NotifierOptions['ring'];
  private readonly ui: NotifierOptions['ui'];

  constructor(
    private readonly hal: Pick<Hal, 'ble' | 'wifi' | 'ring' | 'build'>,
    private readonly log: Log,
    o: NotifierOptions,
  ) {
    this.actions = o.actions;
    this.ring = o.ring;
    this.ui = o.ui;
  }

  /** The name the link advertises: the device name, or "Desk" and the last two bytes of the address. */
  advertisedName(): string {
    const dev = this.actions.config('devName');
    if (typeof dev === 'string' && dev) return capBytes(dev, ADV_NAME_MAX_BYTES);
    const addr = this.hal.ble.address() || this.hal.wifi.mac();
    return `Desk ${replaceEvery(addr, COLONS, '').slice(-4).toUpperCase()}`;
  }

  start(): void {
    const { ble } = this.hal;
    if (!ble.present) {
      this.log.warn('notifier', 'this board has no Bluetooth LE: the Notifier link cannot run');
      return;
    }
    this.name = this.advertisedName();
    ble.start(this.name, NOTIFIER_GATT, {
      onConnect: (c) => {
        this.centrals.set(c.id, c);
        this.ui.setPhones(this.centrals.size);
        this.log.info('notifier', `central ${c.address} connected${c.bonded ? ' (bonded)' : ''}`);
      },
      onDisconnect: (c) => {
        this.centrals.delete(c.id);
        this.ui.setPhones(this.centrals.size);
        this.log.info('notifier', `central ${c.address} disconnected`);
      },
      onBond: (c, ok) => {
        this.centrals.set(c.id, c);
        this.log.info('notifier', ok ? `bonded with ${c.address}` : `bonding with ${c.address} failed`);
      },
      onRead: (c, uuid) => this.read(c, uuid),
      onWrite: (c, uuid, value) => this.write(c, uuid, value).ok,
    });
    this.running = true;
    this.log.info('notifier', `advertising as "${this.name}"`);
  }

  stop(): void {
    if (!this.running) return;
    this.hal.ble.stop();
    this.running = false;
    this.centrals.clear();
    this.ui.setPhones(0);
  }

  get active(): boolean {
    return this.running;
  }

  view(): { running: boolean; name: string; centrals: Array<{ address: string; bonded: boolean }>; seq: number; frames: number; last: string } {
    return {
      running: this.running,
      name: this.name,
      centrals: [...this.centrals.values()].map((c) => ({ address: c.address, bonded: c.bonded })),
      seq: this.seq,
      frames: this.frames,
      last: resultName(this.last),
    };
  }

  private status(bonded: boolean): Uint8Array {
    return encodeStatus({
      bonded,
      notice: this.ui.hasNotice(),
      ring: this.hal.ring.count > 0,
      hasBonds: this.hal.ble.bonds().length > 0,
      seq: this.seq,
      frames: this.frames,
      last: this.last,
      firmware: this.hal.build.version,
    });
  }

  private read(c: BleCentral, uuid: string): Uint8Array | null {
    const id = uuid.toLowerCase();
    if (id === STATUS_UUID) return this.status(c.bonded);
    if (id === CONFIG_UUID && c.bonded) return encodeConfig(configInForce((k) => this.actions.config(k)));
    return null;
  }

  private write(c: BleCentral, uuid: string, value: Uint8Array): WriteResult {
    const id = uuid.toLowerCase();
    if (id !== FRAME_UUID && id !== CONFIG_UUID) return refuse(RESULT.unknownRecord, `${uuid} is not writable`);
    if (!c.bonded) return this.done(refuse(RESULT.notBonded, `${c.address} wrote ${id === FRAME_UUID ? 'FRAME' : 'CONFIG'} on a link that is not bonded`));
    return id === FRAME_UUID ? this.applyFrame(value) : this.applyConfig(value);
  }

  /** Records the outcome for STATUS, logs a refusal, and tells every connected central. */
  private done(r: WriteResult): WriteResult {
    this.last = r.ok ? RESULT.ok : r.code;
    if (!r.ok) this.log.warn('notifier', `write refused, nothing changed: ${resultName(r.code)} (${r.reason})`);
    for (const c of this.centrals.values()) this.hal.ble.notify(c, STATUS_UUID, this.status(c.bonded));
    return r;
  }

  /** A FRAME value from a bonded central (or NSNFEED, which stands in for one). */
  applyFrame(value: Uint8Array): WriteResult {
    const parsed = parseFrame(value);
    if (!parsed.ok) return this.done(parsed);
    const summary = this.apply(parsed.frame);
    this.seq = parsed.frame.seq;
    this.frames++;
    return this.done({ ok: true, summary, seq: parsed.frame.seq });
  }

  private apply(frame: Frame): string {
    const did: string[] = [];
    for (const r of frame.records) {
      switch (r.kind) {
        case 'led':
          if (r.mode === 'off') this.actions.apply({ kind: 'lights', value: 'off' });
          else this.actions.apply({ kind: 'led', mode: r.mode, color: r.color, brightness: r.brightness });
          did.push(`led ${r.mode}`);
          break;
        case 'anim':
          this.ring.attention(r.anim, r.holdMs ?? undefined);
          did.push(`anim ${r.anim}`);
          break;
        case 'notice':
          this.ui.showNotice({ title: r.title, body: r.body, source: NOTICE_SOURCE, holdMs: r.holdS * 1000 });
          did.push('notice');
          break;
        case 'clear':
          this.ui.clearNotice();
          did.push('clear');
          break;
        case 'wake':
          this.ui.wake();
          did.push('wake');
          break;
      }
    }
    return did.length ? did.join(', ') : 'nothing (an empty frame)';
  }

  private applyConfig(value: Uint8Array): WriteResult {
    const parsed = parseConfigWrite(value);
    if (!parsed.ok) return this.done(parsed);
    const r = this.actions.apply({ kind: 'config', values: parsed.change });
    if (!r.ok) return this.done(refuse(RESULT.storage, r.note));
    return this.done({ ok: true, summary: r.note, seq: this.seq });
  }

  /** FORGETBONDS: the stack forgets every bond; a connected central's link no longer counts as bonded. */
  forgetBonds(): number {
    const n = this.hal.ble.bonds().length;
    this.hal.ble.forgetBonds();
    for (const [id, c] of this.centrals) this.centrals.set(id, { id: c.id, address: c.address, bonded: false });
    return n;
  }
}
