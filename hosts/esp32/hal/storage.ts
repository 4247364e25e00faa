// Device HAL: the SD card, the app flash, and the nvs_keep partition NVS's
// "keep" namespace lives in (./nvs.ts has NVS itself).
// - keep: the nvs_keep partition factory reset spares (desk_nvs.c).
// - SD card: FAT over SDSPI or SDMMC (desk_sd.c), mounted on first use and
//   re-probed by probe().
// - Flash: the two app slots over ESP-IDF's OTA API (desk_ota.c).

import {
  keepDelete,
  keepErase,
  keepGet,
  keepKeys,
  keepSet,
  nvsEraseMain,
  otaAbort,
  otaBegin,
  otaBoot,
  otaEnd,
  otaMarkValid,
  otaPartitions,
  otaRead,
  otaRunning,
  otaSetBoot,
  otaState,
  otaWrite,
  sdClose,
  sdInfo,
  sdList,
  sdMkdir,
  sdMount,
  sdOpen,
  sdRead,
  sdRemove,
  sdRename,
  sdStat,
  sdSync,
  sdUnmount,
  sdWrite,
  type SdBusConfig,
} from '../native/desk-native.js';
import { HalError, type Flash, type Partition, type SdCard, type SdFile, type SdInfo, type SlotWriter } from '../../../src/hal/index.ts';
import { hal } from './errors.ts';
import type { KeepStore } from './nvs.ts';

/** NVS's "keep" namespace on the nvs_keep partition, and the erase of the main partition. */
export const deskKeep: KeepStore = {
  get: keepGet,
  set: keepSet,
  delete: keepDelete,
  keys: keepKeys,
  erase: keepErase,
  eraseMain: nvsEraseMain,
};

export function createSd(bus: SdBusConfig): SdCard {
  let mounted = false;
  const live = (): void => {
    if (!mounted) mounted = hal(() => sdMount(bus));
    if (!mounted) throw new HalError('ENOCARD', 'no SD card');
  };
  const call = <T>(fn: () => T): T => {
    live();
    try {
      return hal(fn);
    } catch (e) {
      // a card that stops answering is a pulled card: mount again on next use
      if (e instanceof HalError && (e.code === 'ENOCARD' || e.code === 'EIO')) {
        sdUnmount();
        mounted = false;
      }
      throw e;
    }
  };
  return {
    probe(): SdInfo {
      if (!mounted) mounted = hal(() => sdMount(bus));
      const info = mounted ? hal(() => sdInfo()) : undefined;
      if (!info) {
        mounted = false;
        return { present: false, totalBytes: null, freeBytes: null };
      }
      return { present: true, totalBytes: info[0] > 0 ? info[0] : null, freeBytes: info[1] };
    },
    stat(path) {
      const s = call(() => sdStat(path));
      return s ? { size: s[0], isDir: s[1], mtimeMs: s[2] * 1000 } : null;
    },
    list: (dir) => call(() => sdList(dir)).map(([name, isDir, size]) => ({ name, isDir, size })),
    mkdir: (path) => call(() => sdMkdir(path)),
    read: (path, offset, length) => new Uint8Array(call(() => sdRead(path, offset, length))),
    open(path, mode): SdFile {
      const [fd, initial] = call(() => sdOpen(path, mode));
      let size = initial;
      let open = true;
      const live = (): void => {
        if (!open) throw new HalError('EINVAL', 'file is closed');
      };
      return {
        get size() {
          return size;
        },
        write(bytes) {
          live();
          size = call(() => sdWrite(fd, bytes));
        },
        sync() {
          live();
          call(() => sdSync(fd));
        },
        close() {
          if (!open) return;
          open = false;
          sdClose(fd);
        },
      };
    },
    rename: (from, to) => call(() => sdRename(from, to)),
    remove: (path) => call(() => sdRemove(path)),
  };
}

const SUBTYPES: Record<number, string> = { 0x00: 'factory', 0x01: 'phy', 0x02: 'nvs', 0x03: 'coredump', 0x10: 'ota_0', 0x11: 'ota_1', 0x81: 'fat' };

function slotIndex(n: number): 0 | 1 {
  return n === 1 ? 1 : 0;
}

export function createFlash(): Flash {
  const partitions: Partition[] = otaPartitions().map(([name, isApp, subtype, offset, size]) => ({
    name,
    type: isApp ? 'app' : 'data',
    subtype: name === 'otadata' ? 'ota' : (SUBTYPES[subtype] ?? String(subtype)),
    offset,
    size,
  }));
  const slot0 = partitions.find((p) => p.name === 'ota_0');
  const running = slotIndex(otaRunning());
  let writing = false;
  return {
    partitions: () => partitions.map((p) => ({ ...p })),
    slotSize: () => slot0?.size ?? 0,
    runningSlot: () => running,
    bootSlot: () => slotIndex(otaBoot()),
    slotState: (slot) => hal(() => otaState(slot)),
    beginWrite(slot): SlotWriter {
      if (slot === running) throw new HalError('EBUSY', 'the running slot');
      hal(() => otaBegin(slot));
      writing = true;
      let written = 0;
      let done = false;
      const size = slot0?.size ?? 0;
      return {
        get written() {
          return written;
        },
        write(bytes) {
          if (done) throw new HalError('EINVAL', 'write after end');
          if (written + bytes.length > size) throw new HalError('EINVAL', 'past the end of the slot');
          hal(() => otaWrite(bytes));
          written += bytes.length;
        },
        end() {
          done = true;
          writing = false;
          hal(() => otaEnd(), 'EINVAL');
        },
        abort() {
          done = true;
          if (writing) otaAbort();
          writing = false;
        },
      };
    },
    read: (slot, offset, length) => new Uint8Array(hal(() => otaRead(slot, offset, length))),
    setBootSlot: (slot) => hal(() => otaSetBoot(slot), 'EINVAL'),
    markValid: () => hal(() => otaMarkValid()),
  };
}
