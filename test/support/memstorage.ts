// In-memory NVS, SD card and flash for unit tests, with the device's limits
// and with faults a test can inject (card pulled, write failure, full card).

import {
  HalError,
  NVS_BLOB_MAX,
  NVS_KEY_MAX,
  NVS_STR_MAX,
  type Flash,
  type Nvs,
  type NvsValue,
  type Partition,
  type SdCard,
  type SdEntry,
  type SdFile,
  type SdInfo,
  type SdStat,
  type SlotState,
  type SlotWriter,
} from '../../src/hal/index.ts';

function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

function checkName(what: string, name: string): void {
  if (!name || byteLength(name) > NVS_KEY_MAX) throw new HalError('EINVAL', `NVS ${what} '${name}' must be 1-${NVS_KEY_MAX} bytes`);
}

function copyValue(v: NvsValue): NvsValue {
  return v instanceof Uint8Array ? v.slice() : v;
}

export class MemNvs implements Nvs {
  readonly data = new Map<string, Map<string, NvsValue>>();
  /** Total entries allowed (a small partition fills up). */
  capacity = 2000;
  /** Number of successful writes, for tests that count persistence traffic. */
  writes = 0;

  private check(ns: string, key: string, value: NvsValue): void {
    checkName('namespace', ns);
    checkName('key', key);
    if (typeof value === 'string' && byteLength(value) > NVS_STR_MAX) throw new HalError('EINVAL', `NVS string over ${NVS_STR_MAX} bytes`);
    if (typeof value === 'number' && (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff))
      throw new HalError('EINVAL', 'NVS numbers are 32-bit integers');
    if (value instanceof Uint8Array && value.length > NVS_BLOB_MAX) throw new HalError('EINVAL', `NVS blob over ${NVS_BLOB_MAX} bytes`);
  }

  private count(): number {
    let n = 0;
    for (const m of this.data.values()) n += m.size;
    return n;
  }

  get(ns: string, key: string): NvsValue | undefined {
    const v = this.data.get(ns)?.get(key);
    return v === undefined ? undefined : copyValue(v);
  }
  set(ns: string, key: string, value: NvsValue): void {
    this.setMany(ns, [[key, value]]);
  }
  setMany(ns: string, entries: ReadonlyArray<readonly [string, NvsValue | undefined]>): void {
    for (const [key, value] of entries) {
      if (value === undefined) checkName('key', key);
      else this.check(ns, key, value);
    }
    const table = this.data.get(ns) ?? new Map<string, NvsValue>();
    const adding = entries.filter(([k, v]) => v !== undefined && !table.has(k)).length;
    if (this.count() + adding > this.capacity) throw new HalError('ENOSPC', 'NVS partition full');
    for (const [key, value] of entries) {
      if (value === undefined) table.delete(key);
      else table.set(key, copyValue(value));
    }
    this.data.set(ns, table);
    this.writes++;
  }
  delete(ns: string, key: string): void {
    this.data.get(ns)?.delete(key);
  }
  keys(ns: string): string[] {
    return [...(this.data.get(ns)?.keys() ?? [])].sort();
  }
  erase(ns?: string): void {
    if (ns === undefined) this.data.clear();
    else this.data.delete(ns);
  }
}

interface MemNode {
  dir: boolean;
  bytes: Uint8Array;
  mtimeMs: number;
}

function normalize(path: string): string {
  if (!path.startsWith('/')) throw new HalError('EINVAL', `path must be absolute: ${path}`);
  const parts: string[] = [];
  for (const p of path.split('/')) {
    if (!p || p === '.') continue;
    if (p === '..') throw new HalError('EINVAL', `path may not contain '..': ${path}`);
    parts.push(p);
  }
  return '/' + parts.join('/');
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

/** A FAT-like card in memory. Unsynced writes are lost by pull() or cut(). */
export class MemSd implements SdCard {
  private nodes = new Map<string, MemNode>();
  /** Bytes written but not yet synced, per path (what a power cut loses). */
  private unsynced = new Map<string, number>();
  present: boolean;
  totalBytes: number | null;
  /** When set, the next write throws this error code (then clears). */
  failNextWrite: 'EIO' | 'ENOSPC' | null = null;
  now: () => number = () => 0;

  constructor(options: { present?: boolean; totalBytes?: number | null } = {}) {
    this.present = options.present ?? true;
    this.totalBytes = options.totalBytes === undefined ? 32 * 1024 ** 3 : options.totalBytes;
    this.nodes.set('/', { dir: true, bytes: new Uint8Array(0), mtimeMs: 0 });
  }

  /** Pull the card out: open files become invalid, calls throw ENOCARD. */
  pull(): void {
    this.present = false;
    this.cut();
  }
  insert(): void {
    this.present = true;
  }
  /** A power cut: unsynced appended bytes are dropped. */
  cut(): void {
    for (const [path, n] of this.unsynced) {
      const node = this.nodes.get(path);
      if (node) node.bytes = node.bytes.slice(0, Math.max(0, node.bytes.length - n));
    }
    this.unsynced.clear();
  }

  private need(): void {
    if (!this.present) throw new HalError('ENOCARD', 'no SD card');
  }
  used(): number {
    let n = 0;
    for (const node of this.nodes.values()) n += node.bytes.length;
    return n;
  }

  probe(): SdInfo {
    if (!this.present) return { present: false, totalBytes: null, freeBytes: null };
    return {
      present: true,
      totalBytes: this.totalBytes,
      freeBytes: this.totalBytes === null ? null : Math.max(0, this.totalBytes - this.used()),
    };
  }
  stat(path: string): SdStat | null {
    this.need();
    const node = this.nodes.get(normalize(path));
    return node ? { size: node.bytes.length, isDir: node.dir, mtimeMs: node.mtimeMs } : null;
  }
  list(dir: string): SdEntry[] {
    this.need();
    const d = normalize(dir);
    const node = this.nodes.get(d);
    if (!node) throw new HalError('ENOENT', `no folder ${d}`);
    if (!node.dir) throw new HalError('ENOTDIR', `${d} is a file`);
    const prefix = d === '/' ? '/' : d + '/';
    const out: SdEntry[] = [];
    for (const [p, n] of this.nodes) {
      if (p !== d && p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
        out.push({ name: p.slice(prefix.length), isDir: n.dir, size: n.bytes.length });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  mkdir(path: string): void {
    this.need();
    const p = normalize(path);
    if (p === '/') return;
    const existing = this.nodes.get(p);
    if (existing) {
      if (!existing.dir) throw new HalError('EEXIST', `${p} is a file`);
      return;
    }
    this.mkdir(parentOf(p));
    this.nodes.set(p, { dir: true, bytes: new Uint8Array(0), mtimeMs: this.now() });
  }
  read(path: string, offset: number, length: number): Uint8Array {
    this.need();
    const p = normalize(path);
    const node = this.nodes.get(p);
    if (!node) throw new HalError('ENOENT', `no file ${p}`);
    if (node.dir) throw new HalError('EISDIR', `${p} is a folder`);
    if (offset < 0 || length < 0) throw new HalError('EINVAL', 'negative offset or length');
    return node.bytes.slice(offset, offset + length);
  }
  open(path: string, mode: 'w' | 'a'): SdFile {
    this.need();
    const p = normalize(path);
    const parent = this.nodes.get(parentOf(p));
    if (!parent || !parent.dir) throw new HalError('ENOENT', `no folder for ${p}`);
    let node = this.nodes.get(p);
    if (node?.dir) throw new HalError('EISDIR', `${p} is a folder`);
    if (!node || mode === 'w') {
      node = { dir: false, bytes: new Uint8Array(0), mtimeMs: this.now() };
      this.nodes.set(p, node);
      this.unsynced.delete(p);
    }
    const file = node;
    let open = true;
    const generation = this.nodes;
    const sd = this;
    const live = (): void => {
      if (!open) throw new HalError('EINVAL', 'file is closed');
      sd.need();
      if (sd.nodes !== generation || sd.nodes.get(p) !== file) throw new HalError('EIO', 'file vanished');
    };
    return {
      get size() {
        return file.bytes.length;
      },
      write(bytes: Uint8Array) {
        live();
        if (sd.failNextWrite) {
          const code = sd.failNextWrite;
          sd.failNextWrite = null;
          throw new HalError(code, code === 'ENOSPC' ? 'card full' : 'write failed');
        }
        if (sd.totalBytes !== null && sd.used() + bytes.length > sd.totalBytes) throw new HalError('ENOSPC', 'card full');
        const next = new Uint8Array(file.bytes.length + bytes.length);
        next.set(file.bytes);
        next.set(bytes, file.bytes.length);
        file.bytes = next;
        file.mtimeMs = sd.now();
        sd.unsynced.set(p, (sd.unsynced.get(p) ?? 0) + bytes.length);
      },
      sync() {
        live();
        sd.unsynced.delete(p);
      },
      close() {
        if (open) {
          open = false;
        }
      },
    };
  }
  rename(from: string, to: string): void {
    this.need();
    const a = normalize(from);
    const b = normalize(to);
    const node = this.nodes.get(a);
    if (!node) throw new HalError('ENOENT', `no file ${a}`);
    if (!this.nodes.get(parentOf(b))?.dir) throw new HalError('ENOENT', `no folder for ${b}`);
    const moves: Array<[string, MemNode]> = [];
    for (const [p, n] of this.nodes) if (p === a || p.startsWith(a + '/')) moves.push([p, n]);
    for (const [p] of moves) this.nodes.delete(p);
    for (const [p, n] of moves) this.nodes.set(b + p.slice(a.length), n);
    const pending = this.unsynced.get(a);
    this.unsynced.delete(a);
    if (pending) this.unsynced.set(b, pending);
  }
  remove(path: string): void {
    this.need();
    const p = normalize(path);
    const node = this.nodes.get(p);
    if (!node) return;
    if (node.dir && this.list(p).length) throw new HalError('ENOTEMPTY', `${p} is not empty`);
    this.nodes.delete(p);
    this.unsynced.delete(p);
  }
}

/** The default layout of partitions.csv, so unit tests need not read files. */
export const DEFAULT_PARTITIONS: Partition[] = [
  { name: 'nvs', type: 'data', subtype: 'nvs', offset: 0x9000, size: 0x6000 },
  { name: 'otadata', type: 'data', subtype: 'ota', offset: 0xf000, size: 0x2000 },
  { name: 'phy_init', type: 'data', subtype: 'phy', offset: 0x11000, size: 0x1000 },
  { name: 'nvs_keep', type: 'data', subtype: 'nvs', offset: 0x12000, size: 0x4000 },
  { name: 'ota_0', type: 'app', subtype: 'ota_0', offset: 0x20000, size: 0x680000 },
  { name: 'ota_1', type: 'app', subtype: 'ota_1', offset: 0x6a0000, size: 0x680000 },
  { name: 'coredump', type: 'data', subtype: 'coredump', offset: 0xd20000, size: 0x10000 },
  { name: 'fonts', type: 'data', subtype: '0x40', offset: 0xd30000, size: 0x1d0000 },
  { name: 'storage', type: 'data', subtype: 'fat', offset: 0xf00000, size: 0x100000 },
];

/** Two app slots and ESP-IDF's image states, without the bytes of otadata. */
export class MemFlash implements Flash {
  readonly slots: [Uint8Array, Uint8Array];
  readonly states: [SlotState, SlotState] = ['valid', 'undefined'];
  running: 0 | 1 = 0;
  boot: 0 | 1 = 0;
  private size: number;

  constructor(slotBytes = 0x680000) {
    this.size = slotBytes;
    this.slots = [new Uint8Array(0), new Uint8Array(0)];
  }
  partitions(): Partition[] {
    return DEFAULT_PARTITIONS.map((p) => ({ ...p }));
  }
  slotSize(): number {
    return this.size;
  }
  runningSlot(): 0 | 1 {
    return this.running;
  }
  bootSlot(): 0 | 1 {
    return this.boot;
  }
  slotState(slot: 0 | 1): SlotState {
    return this.states[slot];
  }
  beginWrite(slot: 0 | 1): SlotWriter {
    if (slot === this.running) throw new HalError('EBUSY', 'cannot write the running slot');
    const flash = this;
    flash.slots[slot] = new Uint8Array(0);
    flash.states[slot] = 'undefined';
    const chunks: Uint8Array[] = [];
    let written = 0;
    let done = false;
    return {
      get written() {
        return written;
      },
      write(bytes: Uint8Array) {
        if (done) throw new HalError('EINVAL', 'write after end');
        if (written + bytes.length > flash.size) throw new HalError('EINVAL', 'image larger than the slot');
        chunks.push(bytes.slice());
        written += bytes.length;
      },
      end() {
        done = true;
        const all = new Uint8Array(written);
        let o = 0;
        for (const c of chunks) {
          all.set(c, o);
          o += c.length;
        }
        flash.slots[slot] = all;
      },
      abort() {
        done = true;
        flash.slots[slot] = new Uint8Array(0);
      },
    };
  }
  read(slot: 0 | 1, offset: number, length: number): Uint8Array {
    return this.slots[slot].slice(offset, offset + length);
  }
  setBootSlot(slot: 0 | 1): void {
    this.boot = slot;
    if (slot !== this.running) this.states[slot] = 'new';
  }
  markValid(): void {
    this.states[this.running] = 'valid';
  }
}
