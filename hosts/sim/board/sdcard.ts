// The SD card: <device>/sd is the card's FAT filesystem, with a capacity
// (device.json, --sd-size; 0 = no card) and presence (sd.remove/sd.insert).
// Paths are absolute inside the card; '..' is refused. Open files remember
// their last synced length: a reset, a power cut or a pulled card truncates
// them to it, as FAT only writes a file's size to the card on sync/close.
// For tests, a pull can be armed to happen in the middle of a write
// (removeAfter: after N writes or N bytes to files whose path matches).

import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { fail, fromFsError } from './errors.ts';
import type { Json, Service } from './service.ts';
import { int } from './service.ts';

const FAT_FILE_MAX = 0xffffffff;
const READ_MAX = 16 * 1024 * 1024;

interface OpenFile {
  fd: number;
  path: string;
  size: number;
  synced: number;
  /** The file was removed or replaced under it: writes fail with EIO. */
  stale: boolean;
}

export function cardPath(path: unknown): string[] {
  if (typeof path !== 'string') fail('EINVAL', 'path must be a string');
  if (!path.startsWith('/')) fail('EINVAL', `path must be absolute: ${path}`);
  const parts: string[] = [];
  for (const p of path.split('/')) {
    if (!p || p === '.') continue;
    if (p === '..') fail('EINVAL', `path may not contain '..': ${path}`);
     
    if (/[\\\x00-\x1f"*:<>?|]/.test(p)) fail('EINVAL', `path has a character FAT does not allow: ${path}`);
    parts.push(p);
  }
  return parts;
}

/** An armed pull: the card goes when a write to a matching file would pass a count. */
export interface RemoveTrigger {
  /** A substring of the card path (e.g. 'notes/big.md.part'). */
  match: string;
  /** Writes that still land; the next matching write meets no card (null: no limit). */
  writes: number | null;
  /** Bytes that still land; a matching write that would pass them meets no card (null: no limit). */
  bytes: number | null;
  seenWrites: number;
  seenBytes: number;
}

export class SdCard implements Service {
  private files = new Map<number, OpenFile>();
  private trigger: RemoveTrigger | null = null;
  /** Handles of files the card lost (pulled while open): EIO rather than "bad handle". */
  private dead = new Set<number>();
  private nextFd = 1;
  private used = 0;

  constructor(
    readonly root: string,
    private capacity: number,
    private inserted: boolean,
    private readonly persist: (sizeBytes: number, inserted: boolean) => void,
  ) {
    mkdirSync(root, { recursive: true });
    this.recount();
  }

  get present(): boolean {
    return this.inserted && this.capacity > 0;
  }

  status(): Json {
    const t = this.trigger;
    return {
      present: this.present,
      inserted: this.inserted,
      sizeBytes: this.capacity,
      usedBytes: this.used,
      openFiles: this.files.size,
      removeAfter: t ? { match: t.match, writes: t.writes, bytes: t.bytes, seenWrites: t.seenWrites, seenBytes: t.seenBytes } : null,
    };
  }

  /**
   * Arms a pull in the middle of a write: writes to files whose card path
   * contains match land until `writes` of them (or `bytes` bytes) have; the
   * next one finds the card removed (sd.remove: cached data lost, ENOCARD).
   * null disarms. One shot: it disarms when it fires.
   */
  removeAfter(trigger: { match: string; writes?: number | null; bytes?: number | null } | null): void {
    if (trigger === null) {
      this.trigger = null;
      return;
    }
    if (!trigger.match) throw new TypeError('match must be a non-empty part of a card path');
    const writes = trigger.writes ?? null;
    const bytes = trigger.bytes ?? null;
    if (writes === null && bytes === null) throw new TypeError('give writes or bytes (or both)');
    for (const n of [writes, bytes]) if (n !== null && (!Number.isInteger(n) || n < 0)) throw new TypeError('writes and bytes must be whole numbers >= 0');
    this.trigger = { match: trigger.match, writes, bytes, seenWrites: 0, seenBytes: 0 };
  }

  /** Counts a write to f against the armed pull; pulls the card (and fails the write) when it fires. */
  private triggerOn(f: OpenFile, length: number): void {
    const t = this.trigger;
    if (!t || !f.path.includes(t.match)) return;
    if ((t.writes !== null && t.seenWrites + 1 > t.writes) || (t.bytes !== null && t.seenBytes + length > t.bytes)) {
      this.trigger = null;
      this.remove();
      fail('ENOCARD', 'no SD card (removed during a write)');
    }
    t.seenWrites++;
    t.seenBytes += length;
  }

  /** Walks the card to count the bytes in use (files added from outside count too). */
  recount(): number {
    let n = 0;
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) n += statSync(p).size;
      }
    };
    if (existsSync(this.root)) walk(this.root);
    this.used = n;
    return n;
  }

  private need(): void {
    if (!this.present) fail('ENOCARD', this.capacity > 0 ? 'no SD card (removed)' : 'no SD card');
  }

  private real(path: unknown): { card: string; real: string } {
    const parts = cardPath(path);
    return { card: '/' + parts.join('/'), real: join(this.root, ...parts) };
  }

  private statOrNull(real: string): Stats | null {
    try {
      return statSync(real);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw fromFsError(e, 'stat');
    }
  }

  /** Closes every open file, truncating each to what was synced (a reset or power cut). */
  loseCache(): void {
    for (const [handle, f] of this.files) {
      try {
        if (!f.stale && f.size > f.synced) {
          ftruncateSync(f.fd, f.synced);
          this.used -= f.size - f.synced;
        }
      } catch {
        // the folder may be gone; nothing to keep
      }
      try {
        closeSync(f.fd);
      } catch {
        // already closed
      }
      this.files.delete(handle);
    }
    this.dead.clear();
  }

  /** The card was pulled: cached writes are lost and open files die. */
  remove(): void {
    const handles = [...this.files.keys()];
    this.loseCache();
    for (const h of handles) this.dead.add(h);
    this.inserted = false;
    this.persist(this.capacity, this.inserted);
  }

  insert(): void {
    this.inserted = true;
    this.recount();
    this.persist(this.capacity, this.inserted);
  }

  setSize(bytes: number): void {
    if (!Number.isInteger(bytes) || bytes < 0) throw new TypeError('bytes must be a whole number >= 0');
    if (bytes === 0 && this.present) this.remove();
    this.capacity = bytes;
    this.recount();
    this.persist(this.capacity, this.inserted);
  }

  stop(): void {
    this.loseCache();
  }

  shutdown(): void {
    this.loseCache();
  }

  private markStale(real: string): void {
    for (const f of this.files.values()) if (this.realOf(f) === real || this.realOf(f).startsWith(real + '/')) f.stale = true;
  }

  private realOf(f: OpenFile): string {
    return join(this.root, f.path);
  }

  private file(args: Json): OpenFile {
    const handle = int(args, 'fd');
    if (this.dead.has(handle)) {
      this.need();
      fail('EIO', 'the file was lost when the card was removed');
    }
    const f = this.files.get(handle);
    if (!f) fail('EINVAL', `file ${handle} is not open`);
    this.need();
    if (f.stale) fail('EIO', `file ${f.path} vanished (removed or replaced while open)`);
    return f;
  }

  readonly ops = {
    'sd.probe': () => {
      if (!this.present) return { json: { info: { present: false, totalBytes: null, freeBytes: null } } };
      this.recount();
      return { json: { info: { present: true, totalBytes: this.capacity, freeBytes: Math.max(0, this.capacity - this.used) } } };
    },
    'sd.stat': (args: Json) => {
      this.need();
      const { real } = this.real(args['path']);
      const st = this.statOrNull(real);
      return { json: { stat: st ? { size: st.isDirectory() ? 0 : st.size, isDir: st.isDirectory(), mtimeMs: Math.floor(st.mtimeMs) } : null } };
    },
    'sd.list': (args: Json) => {
      this.need();
      const { card, real } = this.real(args['path']);
      const st = this.statOrNull(real);
      if (!st) fail('ENOENT', `no folder ${card}`);
      if (!st.isDirectory()) fail('ENOTDIR', `${card} is a file`);
      const entries = readdirSync(real, { withFileTypes: true })
        .filter((e) => e.isDirectory() || e.isFile())
        .map((e) => ({ name: e.name, isDir: e.isDirectory(), size: e.isDirectory() ? 0 : statSync(join(real, e.name)).size }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { json: { entries } };
    },
    'sd.mkdir': (args: Json) => {
      this.need();
      const parts = cardPath(args['path']);
      let real = this.root;
      for (const p of parts) {
        real = join(real, p);
        const st = this.statOrNull(real);
        if (st && !st.isDirectory()) fail('EEXIST', `/${parts.join('/')}: ${p} is a file`);
        if (!st) {
          try {
            mkdirSync(real);
          } catch (e) {
            throw fromFsError(e, 'mkdir');
          }
        }
      }
    },
    'sd.read': (args: Json) => {
      this.need();
      const { card, real } = this.real(args['path']);
      const offset = int(args, 'offset', 0);
      const length = Math.min(int(args, 'length', 0), READ_MAX);
      const st = this.statOrNull(real);
      if (!st) fail('ENOENT', `no file ${card}`);
      if (st.isDirectory()) fail('EISDIR', `${card} is a folder`);
      const n = Math.max(0, Math.min(length, st.size - offset));
      const out = Buffer.allocUnsafe(n);
      if (n) {
        const fd = openSync(real, 'r');
        try {
          let at = 0;
          while (at < n) {
            const k = readSync(fd, out, at, n - at, offset + at);
            if (!k) break;
            at += k;
          }
          return { bin: out.subarray(0, at) };
        } finally {
          closeSync(fd);
        }
      }
      return { bin: out };
    },
    'sd.open': (args: Json) => {
      this.need();
      const { card, real } = this.real(args['path']);
      const mode = args['mode'];
      if (mode !== 'w' && mode !== 'a') fail('EINVAL', "mode must be 'w' or 'a'");
      const parent = this.statOrNull(join(real, '..'));
      if (!parent || !parent.isDirectory()) fail('ENOENT', `no folder for ${card}`);
      const st = this.statOrNull(real);
      if (st?.isDirectory()) fail('EISDIR', `${card} is a folder`);
      if (st && mode === 'w') {
        this.markStale(real);
        this.used -= st.size;
      }
      let fd: number;
      try {
        fd = openSync(real, mode === 'w' ? 'w' : 'a');
      } catch (e) {
        throw fromFsError(e, `open ${card}`);
      }
      const size = fstatSync(fd).size;
      const handle = this.nextFd++;
      this.files.set(handle, { fd, path: card, size, synced: size, stale: false });
      return { json: { fd: handle, size } };
    },
    'sd.write': (args: Json, bin: Buffer) => {
      const f = this.file(args);
      this.triggerOn(f, bin.length);
      if (this.used + bin.length > this.capacity) fail('ENOSPC', `card full (${this.capacity - this.used} bytes free)`);
      if (f.size + bin.length > FAT_FILE_MAX) fail('ENOSPC', 'FAT files stop at 4 GB');
      try {
        let at = 0;
        while (at < bin.length) at += writeSync(f.fd, bin, at, bin.length - at);
      } catch (e) {
        throw fromFsError(e, `write ${f.path}`);
      }
      f.size += bin.length;
      this.used += bin.length;
      return { json: { size: f.size } };
    },
    'sd.sync': (args: Json) => {
      const f = this.file(args);
      try {
        fsyncSync(f.fd);
      } catch (e) {
        throw fromFsError(e, `sync ${f.path}`);
      }
      f.synced = f.size;
    },
    'sd.close': (args: Json) => {
      const handle = int(args, 'fd');
      if (this.dead.delete(handle)) return;
      const f = this.files.get(handle);
      if (!f) return;
      this.files.delete(handle);
      try {
        if (!f.stale) fsyncSync(f.fd);
        closeSync(f.fd);
      } catch (e) {
        throw fromFsError(e, `close ${f.path}`);
      }
    },
    'sd.rename': (args: Json) => {
      this.need();
      const from = this.real(args['from']);
      const to = this.real(args['to']);
      if (!this.statOrNull(from.real)) fail('ENOENT', `no file ${from.card}`);
      const parent = this.statOrNull(join(to.real, '..'));
      if (!parent || !parent.isDirectory()) fail('ENOENT', `no folder for ${to.card}`);
      if (from.real === to.real) return;
      if (to.real.startsWith(from.real + '/')) fail('EINVAL', `cannot move ${from.card} into itself`);
      const replaced = this.statOrNull(to.real);
      try {
        renameSync(from.real, to.real);
      } catch (e) {
        throw fromFsError(e, `rename ${from.card} to ${to.card}`);
      }
      if (replaced && !replaced.isDirectory()) {
        this.used -= replaced.size;
        this.markStale(to.real);
      }
      for (const f of this.files.values()) {
        if (f.stale) continue;
        if (f.path === from.card) f.path = to.card;
        else if (f.path.startsWith(from.card + '/')) f.path = to.card + f.path.slice(from.card.length);
      }
    },
    'sd.remove': (args: Json) => {
      this.need();
      const { card, real } = this.real(args['path']);
      if (card === '/') fail('EINVAL', 'cannot remove the root folder');
      const st = this.statOrNull(real);
      if (!st) return;
      try {
        if (st.isDirectory()) rmdirSync(real);
        else unlinkSync(real);
      } catch (e) {
        throw fromFsError(e, `remove ${card}`);
      }
      if (!st.isDirectory()) this.used -= st.size;
      this.markStale(real);
    },
  };
}
