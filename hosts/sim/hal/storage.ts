// Simulator HAL: NVS, the SD card and the app flash, each a synchronous call
// to the board, which keeps them in the device folder.

import type {
  Flash,
  Nvs,
  NvsValue,
  Partition,
  SdCard,
  SdEntry,
  SdFile,
  SdInfo,
  SdStat,
  SlotState,
  SlotWriter,
} from '../../../src/hal/index.ts';
import { HalError } from '../../../src/hal/index.ts';
import { call } from './bridge.ts';

type Wire = { t: 's'; v: string } | { t: 'i'; v: number } | { t: 'b'; n: number } | { t: 'x' };

/** Encodes values for the wire: blobs travel concatenated in the binary part. */
function pack(values: ReadonlyArray<NvsValue | undefined>): { wire: Wire[]; bin: Uint8Array | undefined } {
  const wire: Wire[] = [];
  const blobs: Uint8Array[] = [];
  for (const v of values) {
    if (v === undefined) wire.push({ t: 'x' });
    else if (typeof v === 'string') wire.push({ t: 's', v });
    else if (typeof v === 'number') wire.push({ t: 'i', v });
    else {
      wire.push({ t: 'b', n: v.length });
      blobs.push(v);
    }
  }
  if (!blobs.length) return { wire, bin: undefined };
  const total = blobs.reduce((n, b) => n + b.length, 0);
  const bin = new Uint8Array(total);
  let o = 0;
  for (const b of blobs) {
    bin.set(b, o);
    o += b.length;
  }
  return { wire, bin };
}

export function createNvs(): Nvs {
  return {
    get(ns: string, key: string): NvsValue | undefined {
      const { reply, bin } = call('nvs.get', { ns, key });
      const w = reply['value'] as Wire | undefined;
      if (!w || w.t === 'x') return undefined;
      if (w.t === 'b') return bin ?? new Uint8Array(0);
      return w.v;
    },
    set(ns: string, key: string, value: NvsValue): void {
      this.setMany(ns, [[key, value]]);
    },
    setMany(ns: string, entries: ReadonlyArray<readonly [string, NvsValue | undefined]>): void {
      const { wire, bin } = pack(entries.map((e) => e[1]));
      call('nvs.set', { ns, keys: entries.map((e) => e[0]), values: wire }, bin);
    },
    delete(ns: string, key: string): void {
      call('nvs.set', { ns, keys: [key], values: [{ t: 'x' }] });
    },
    keys(ns: string): string[] {
      return call('nvs.keys', { ns }).reply['keys'] as string[];
    },
    erase(ns?: string): void {
      call('nvs.erase', ns === undefined ? {} : { ns });
    },
  };
}

export function createSd(): SdCard {
  return {
    probe(): SdInfo {
      return call('sd.probe').reply['info'] as SdInfo;
    },
    stat(path: string): SdStat | null {
      return (call('sd.stat', { path }).reply['stat'] as SdStat | null) ?? null;
    },
    list(dir: string): SdEntry[] {
      return call('sd.list', { path: dir }).reply['entries'] as SdEntry[];
    },
    mkdir(path: string): void {
      call('sd.mkdir', { path });
    },
    read(path: string, offset: number, length: number): Uint8Array {
      return call('sd.read', { path, offset, length }).bin ?? new Uint8Array(0);
    },
    open(path: string, mode: 'w' | 'a'): SdFile {
      const { reply } = call('sd.open', { path, mode });
      const fd = reply['fd'] as number;
      let size = reply['size'] as number;
      let open = true;
      const live = (): void => {
        if (!open) throw new HalError('EINVAL', 'file is closed');
      };
      return {
        get size() {
          return size;
        },
        write(bytes: Uint8Array) {
          live();
          size = call('sd.write', { fd }, bytes).reply['size'] as number;
        },
        sync() {
          live();
          call('sd.sync', { fd });
        },
        close() {
          if (!open) return;
          open = false;
          call('sd.close', { fd });
        },
      };
    },
    rename(from: string, to: string): void {
      call('sd.rename', { from, to });
    },
    remove(path: string): void {
      call('sd.remove', { path });
    },
  };
}

interface FlashInfo {
  partitions: Partition[];
  slotSize: number;
  running: 0 | 1;
  boot: 0 | 1;
  states: [SlotState, SlotState];
}

export function createFlash(): Flash {
  const info = (): FlashInfo => call('flash.info').reply['info'] as FlashInfo;
  const fixed = info();
  return {
    partitions: () => fixed.partitions.map((p) => ({ ...p })),
    slotSize: () => fixed.slotSize,
    runningSlot: () => fixed.running,
    bootSlot: () => info().boot,
    slotState: (slot) => info().states[slot],
    beginWrite(slot: 0 | 1): SlotWriter {
      call('flash.begin', { slot });
      let written = 0;
      let done = false;
      return {
        get written() {
          return written;
        },
        write(bytes: Uint8Array) {
          if (done) throw new HalError('EINVAL', 'write after end');
          call('flash.write', { slot, offset: written }, bytes);
          written += bytes.length;
        },
        end() {
          done = true;
          call('flash.end', { slot, length: written });
        },
        abort() {
          done = true;
          call('flash.abort', { slot });
        },
      };
    },
    read: (slot, offset, length) => call('flash.read', { slot, offset, length }).bin ?? new Uint8Array(0),
    setBootSlot(slot) {
      call('flash.setBoot', { slot });
    },
    markValid() {
      call('flash.markValid');
    },
  };
}
