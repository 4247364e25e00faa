// lin HAL: the SD card, the app flash and NVS's "keep" namespace, on the
// SDK's lin file module (modules/files/file/lin). NVS itself is the device
// HAL's (hosts/esp32/hal/nvs.ts) over the SDK's lin Preference, which keeps
// every domain in one JSON file in the runner's folder (config.file.root).
// - keep: a JSON file of its own (nvs-keep.json, written new then renamed),
//   so erasing the main store (deleting Preference's file) spares it. The lin
//   Preference also caches its file in memory: a factory reset's erase shows
//   only after the reboot that follows it.
// - SD card: the folder DESK_SD (an absolute path; unset: no card), of
//   DESK_SD_SIZE bytes (default 32 GB). The lin file module has no fsync and no
//   modification times: sync() is what close() flushes, mtime reads 0.
// - Flash: no app slots to write (updates are proven on the simulator and
//   on hardware): the table of partitions.csv, slot 0 running and valid,
//   and every write refused with ENOTSUP.

import { Directory, File, Iterator } from 'file';
import { linEnv } from '../native/lin-native.js';
import { HalError, type Flash, type Partition, type SdCard, type SdEntry, type SdFile, type SdInfo, type SlotState } from '../../../src/hal/index.ts';
import { fromHex, toHex } from '../../../src/util/encoding.ts';
import type { KeepStore } from '../../esp32/hal/nvs.ts';
import { stringify } from '../../../src/util/json.ts';

const KEEP_FILE = 'nvs-keep.json';
const PREFERENCE_FILE = 'modpreferences.json';
const DEFAULT_SD_BYTES = 32 * 1024 * 1024 * 1024;
const TRAILING_SLASH = /\/$/;

type Kept = { n: number } | { s: string } | { b: string };

function readJson(path: string): Record<string, Kept> {
  if (!File.exists(path)) return {};
  const f = new File(path);
  try {
    return f.length ? (JSON.parse(f.read(String)) as Record<string, Kept>) : {};
  } finally {
    f.close();
  }
}

function writeJson(path: string, value: unknown): void {
  const temp = `${path}.new`;
  File.delete(temp);
  const f = new File(temp, true);
  f.write(stringify(value));
  f.close();
  File.rename(temp, path);
}

/** NVS's "keep" namespace in its own file; the main store is Preference's file. */
export const prefKeep: KeepStore = {
  get(key) {
    const v = readJson(KEEP_FILE)[key];
    if (!v) return undefined;
    if ('n' in v) return v.n;
    if ('s' in v) return v.s;
    return (fromHex(v.b) ?? new Uint8Array(0)).slice().buffer as ArrayBuffer;
  },
  set(key, value) {
    const all = readJson(KEEP_FILE);
    all[key] = typeof value === 'number' ? { n: value } : typeof value === 'string' ? { s: value } : { b: toHex(value) };
    writeJson(KEEP_FILE, all);
  },
  delete(key) {
    const all = readJson(KEEP_FILE);
    if (!(key in all)) return;
    delete all[key];
    writeJson(KEEP_FILE, all);
  },
  keys: () => Object.keys(readJson(KEEP_FILE)),
  erase: () => void File.delete(KEEP_FILE),
  eraseMain: () => void File.delete(PREFERENCE_FILE),
};

/** The entry for name in dir, or null. */
function entry(dir: string, name: string): SdEntry | null {
  for (const e of new Iterator(dir.endsWith('/') ? dir : `${dir}/`) as unknown as Iterable<{ name: string; length: number | undefined }>) {
    if (e.name === name) return { name, isDir: e.length === undefined, size: e.length ?? 0 };
  }
  return null;
}

function isDir(path: string): boolean {
  try {
    new Iterator(path.endsWith('/') ? path : `${path}/`);
    return true;
  } catch {
    return false;
  }
}

export function createSd(root: string | undefined): SdCard {
  const capacity = Number(linEnv('DESK_SD_SIZE') ?? DEFAULT_SD_BYTES);
  const present = (): boolean => !!root && root.startsWith('/') && isDir(root);
  const real = (path: string): string => {
    if (!present()) throw new HalError('ENOCARD', 'no SD card');
    if (!path.startsWith('/') || path.split('/').includes('..')) throw new HalError('EINVAL', `not an absolute card path: ${path}`);
    return `${root}${path === '/' ? '' : path}`;
  };
  const stat = (path: string): SdEntry | null => {
    const p = real(path);
    if (path === '/') return { name: '', isDir: true, size: 0 };
    const slash = p.lastIndexOf('/');
    return isDir(p.slice(0, slash)) ? entry(p.slice(0, slash), p.slice(slash + 1)) : null;
  };
  return {
    probe(): SdInfo {
      return present() ? { present: true, totalBytes: capacity, freeBytes: capacity } : { present: false, totalBytes: null, freeBytes: null };
    },
    stat(path) {
      const e = stat(path);
      return e ? { size: e.size, isDir: e.isDir, mtimeMs: 0 } : null;
    },
    list(dir) {
      const e = stat(dir);
      if (!e) throw new HalError('ENOENT', `no such folder: ${dir}`);
      if (!e.isDir) throw new HalError('ENOTDIR', `not a folder: ${dir}`);
      const out: SdEntry[] = [];
      for (const f of new Iterator(`${real(dir).replace(TRAILING_SLASH, '')}/`) as unknown as Iterable<{ name: string; length: number | undefined }>) {
        out.push({ name: f.name, isDir: f.length === undefined, size: f.length ?? 0 });
      }
      return out;
    },
    mkdir(path) {
      let at = '';
      for (const part of path.split('/').filter(Boolean)) {
        at += `/${part}`;
        const e = stat(at);
        if (e && !e.isDir) throw new HalError('ENOTDIR', `not a folder: ${at}`);
        if (!e) Directory.create(real(at));
      }
    },
    read(path, offset, length) {
      const e = stat(path);
      if (!e) throw new HalError('ENOENT', `no such file: ${path}`);
      if (e.isDir) throw new HalError('EISDIR', `a folder: ${path}`);
      const n = Math.max(0, Math.min(length, e.size - offset));
      if (!n) return new Uint8Array(0);
      const f = new File(real(path));
      try {
        f.position = offset;
        return new Uint8Array(f.read(ArrayBuffer, n));
      } finally {
        f.close();
      }
    },
    open(path, mode): SdFile {
      const e = stat(path);
      if (e?.isDir) throw new HalError('EISDIR', `a folder: ${path}`);
      const slash = path.lastIndexOf('/');
      const parent = stat(path.slice(0, slash) || '/');
      if (!parent?.isDir) throw new HalError('ENOENT', `no such folder: ${path.slice(0, slash)}`);
      if (mode === 'w') File.delete(real(path));
      const f = new File(real(path), true);
      let size = f.length;
      f.position = size;
      let open = true;
      return {
        get size() {
          return size;
        },
        write(bytes) {
          if (!open) throw new HalError('EINVAL', 'file is closed');
          if (bytes.length) f.write(bytes.slice().buffer as ArrayBuffer);
          size += bytes.length;
        },
        sync() {
          if (!open) throw new HalError('EINVAL', 'file is closed');
        },
        close() {
          if (!open) return;
          open = false;
          f.close();
        },
      };
    },
    rename(from, to) {
      const e = stat(from);
      if (!e) throw new HalError('ENOENT', `no such file: ${from}`);
      if (!File.rename(real(from), real(to))) throw new HalError('EIO', `could not rename ${from} to ${to}`);
    },
    remove(path) {
      const e = stat(path);
      if (!e) return;
      if (e.isDir) {
        if (stat(path) && new Iterator(`${real(path)}/`).next()) throw new HalError('ENOTEMPTY', `not empty: ${path}`);
        Directory.delete(real(path));
      } else File.delete(real(path));
    },
  };
}

/** partitions.csv's table. */
const PARTITIONS: readonly Partition[] = [
  { name: 'nvs', type: 'data', subtype: 'nvs', offset: 0x9000, size: 0x6000 },
  { name: 'otadata', type: 'data', subtype: 'ota', offset: 0xf000, size: 0x2000 },
  { name: 'phy_init', type: 'data', subtype: 'phy', offset: 0x11000, size: 0x1000 },
  { name: 'nvs_keep', type: 'data', subtype: 'nvs', offset: 0x12000, size: 0x4000 },
  { name: 'ota_0', type: 'app', subtype: 'ota_0', offset: 0x20000, size: 0x680000 },
  { name: 'ota_1', type: 'app', subtype: 'ota_1', offset: 0x6a0000, size: 0x680000 },
  { name: 'coredump', type: 'data', subtype: 'coredump', offset: 0xd20000, size: 0x10000 },
  { name: 'storage', type: 'data', subtype: 'fat', offset: 0xd30000, size: 0x2d0000 },
];

export function createFlash(): Flash {
  const refuse = (): never => {
    throw new HalError('ENOTSUP', 'the SDK desktop runtime has no app slots (updates run on the simulator and the device)');
  };
  return {
    partitions: () => PARTITIONS.map((p) => ({ ...p })),
    slotSize: () => 0x680000,
    runningSlot: () => 0,
    bootSlot: () => 0,
    slotState: (slot): SlotState => (slot === 0 ? 'valid' : 'undefined'),
    beginWrite: refuse,
    read: refuse,
    setBootSlot: refuse,
    markValid: () => undefined,
  };
}
