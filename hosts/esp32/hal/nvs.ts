// Device HAL: NVS on Moddable's Preference, with ESP-IDF's limits checked
// before anything is written (bad input changes nothing), and the namespace
// "keep" (what factory reset spares) on a separate store the host provides:
// the nvs_keep partition on the device (desk_nvs.c), a file of its own in the
// SDK's desktop runtime (hosts/lin). setMany writes its keys in order, so "all
// or nothing" holds per key at best, not across keys (see docs/decisions.md,
// "Device build"); and on the device not even per key: the SDK's Preference
// erases a key before it writes the new value (modules/files/preference/
// esp32/modPreference.c, ERASE_KEY), so a power cut between the two loses the
// key (docs/decisions.md, "The device path against the SDK").

import Preference from 'preference';
import { HalError, NVS_BLOB_MAX, NVS_KEY_MAX, NVS_STR_MAX, type Nvs, type NvsValue } from '../../../src/hal/index.ts';
import { utf8Length } from '../../../src/util/utf8.ts';
import { hal } from './errors.ts';

/** Where the "keep" namespace lives, and how the whole of NVS is erased. */
export interface KeepStore {
  get(key: string): number | string | ArrayBuffer | undefined;
  set(key: string, value: number | string | Uint8Array): void;
  delete(key: string): void;
  keys(): string[];
  erase(): void;
  /** Erases every namespace of the main store. */
  eraseMain(): void;
}

const KEEP = 'keep';
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function checkKey(ns: string, key: string): void {
  if (!ns || !key || utf8Length(ns) > NVS_KEY_MAX || utf8Length(key) > NVS_KEY_MAX) throw new HalError('EINVAL', 'NVS names are 1-15 bytes');
}

function checkValue(value: NvsValue): void {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) throw new HalError('EINVAL', 'NVS numbers are 32-bit integers');
  } else if (typeof value === 'string') {
    if (utf8Length(value) > NVS_STR_MAX) throw new HalError('EINVAL', `NVS strings are at most ${NVS_STR_MAX} bytes`);
  } else if (value.length > NVS_BLOB_MAX) {
    throw new HalError('EINVAL', `NVS blobs are at most ${NVS_BLOB_MAX} bytes`);
  }
}

/** A copy that owns its bytes (Preference and the glue store whole ArrayBuffers). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer as ArrayBuffer;
}

function fromStored(v: boolean | number | string | ArrayBuffer | undefined): NvsValue | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  return v;
}

export function createNvs(keep: KeepStore): Nvs {
  const nvs: Nvs = {
    get(ns, key) {
      checkKey(ns, key);
      return hal(() => fromStored(ns === KEEP ? keep.get(key) : Preference.get(ns, key)));
    },
    set(ns, key, value) {
      nvs.setMany(ns, [[key, value]]);
    },
    setMany(ns, entries) {
      // check everything first: bad input changes nothing
      for (const [key, value] of entries) {
        checkKey(ns, key);
        if (value !== undefined) checkValue(value);
      }
      hal(() => {
        for (const [key, value] of entries) {
          if (ns === KEEP) {
            if (value === undefined) keep.delete(key);
            else keep.set(key, value);
          } else if (value === undefined) Preference.delete(ns, key);
          else Preference.set(ns, key, typeof value === 'object' ? ownBuffer(value) : value);
        }
      });
    },
    delete(ns, key) {
      nvs.setMany(ns, [[key, undefined]]);
    },
    keys(ns) {
      return hal(() => (ns === KEEP ? keep.keys() : Preference.keys(ns)));
    },
    erase(ns) {
      hal(() => {
        if (ns === undefined) {
          // everything: the main partition and the keep partition
          keep.eraseMain();
          keep.erase();
        } else if (ns === KEEP) keep.erase();
        else for (const key of Preference.keys(ns)) Preference.delete(ns, key);
      });
    },
  };
  return nvs;
}
