// NVS: namespaced keys with ESP-IDF's limits (names 1-15 bytes, strings up to
// 4000 bytes, blobs up to 64 KB, i32 integers) and ESP-IDF's space accounting
// against the nvs partition, kept in <device>/nvs.json, which is replaced
// atomically on every change (each key keeps its old or its new value
// whatever is killed when).

import { existsSync, readFileSync } from 'node:fs';
import { NVS_BLOB_MAX, NVS_KEY_MAX, NVS_STR_MAX } from '../../../src/hal/index.ts';
import { writeFileAtomic } from './atomic.ts';
import { fail } from './errors.ts';
import type { Json, Service } from './service.ts';
import { str } from './service.ts';

type Stored = { t: 's'; v: string } | { t: 'i'; v: number } | { t: 'b'; v: string };
type Wire = { t: 's'; v: string } | { t: 'i'; v: number } | { t: 'b'; n: number } | { t: 'x' };
type Value = string | number | Buffer;

const ENTRY = 32;
const ENTRIES_PER_PAGE = 126;
const PAGE = 4096;

function checkName(what: string, name: unknown): string {
  if (typeof name !== 'string') fail('EINVAL', `NVS ${what} must be a string`);
  const n = Buffer.byteLength(name);
  if (n < 1 || n > NVS_KEY_MAX) fail('EINVAL', `NVS ${what} '${name}' must be 1-${NVS_KEY_MAX} bytes (is ${n})`);
  return name;
}

/** Entries an item takes in ESP-IDF's NVS (32-byte entries; blobs in chunks of one page at most). */
function entriesOf(v: Value): number {
  if (typeof v === 'number') return 1;
  if (typeof v === 'string') return 1 + Math.ceil((Buffer.byteLength(v) + 1) / ENTRY);
  const chunkBytes = (ENTRIES_PER_PAGE - 1) * ENTRY;
  let n = 1; // the blob index
  let left = v.length;
  do {
    const c = Math.min(left, chunkBytes);
    n += 1 + Math.ceil(c / ENTRY);
    left -= c;
  } while (left > 0);
  return n;
}

function decode(s: Stored): Value {
  return s.t === 'b' ? Buffer.from(s.v, 'base64') : s.v;
}

function encode(v: Value): Stored {
  if (typeof v === 'string') return { t: 's', v };
  if (typeof v === 'number') return { t: 'i', v };
  return { t: 'b', v: v.toString('base64') };
}

export class NvsStore implements Service {
  private data = new Map<string, Map<string, Value>>();
  /** Entries available: all pages of the partition but one (ESP-IDF keeps one free for compaction). */
  readonly capacityEntries: number;

  constructor(
    private readonly file: string,
    partitionBytes: number,
  ) {
    this.capacityEntries = Math.max(1, Math.floor(partitionBytes / PAGE) - 1) * ENTRIES_PER_PAGE;
    if (existsSync(file)) {
      let raw: Record<string, Record<string, Stored>>;
      try {
        raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, Stored>>;
      } catch (e) {
        throw new Error(`${file} is not valid JSON (${(e as Error).message}); fix or delete it`);
      }
      for (const [ns, keys] of Object.entries(raw)) {
        this.data.set(ns, new Map(Object.entries(keys).map(([k, s]) => [k, decode(s)])));
      }
    }
  }

  get(ns: string, key: string): Value | undefined {
    return this.data.get(ns)?.get(key);
  }

  usedEntries(data = this.data): number {
    let n = 0;
    for (const table of data.values()) {
      if (!table.size) continue;
      n += 1; // the namespace's own entry
      for (const v of table.values()) n += entriesOf(v);
    }
    return n;
  }

  /** All or nothing: validates every entry, checks space, then writes once. */
  setMany(ns: string, entries: Array<[string, Value | undefined]>): void {
    checkName('namespace', ns);
    for (const [key, value] of entries) {
      checkName('key', key);
      if (value === undefined) continue;
      if (typeof value === 'string' && Buffer.byteLength(value) > NVS_STR_MAX) fail('EINVAL', `NVS string for '${key}' over ${NVS_STR_MAX} bytes`);
      if (typeof value === 'number' && (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff))
        fail('EINVAL', `NVS value for '${key}' is not a 32-bit integer`);
      if (Buffer.isBuffer(value) && value.length > NVS_BLOB_MAX) fail('EINVAL', `NVS blob for '${key}' over ${NVS_BLOB_MAX} bytes`);
    }
    const next = new Map(this.data);
    const table = new Map(next.get(ns) ?? []);
    for (const [key, value] of entries) {
      if (value === undefined) table.delete(key);
      else table.set(key, Buffer.isBuffer(value) ? Buffer.from(value) : value);
    }
    if (table.size) next.set(ns, table);
    else next.delete(ns);
    const used = this.usedEntries(next);
    if (used > this.capacityEntries && used > this.usedEntries()) {
      fail('ENOSPC', `NVS partition full (${used} of ${this.capacityEntries} entries of 32 bytes needed)`);
    }
    this.commit(next);
  }

  keys(ns: string): string[] {
    return [...(this.data.get(ns)?.keys() ?? [])].sort();
  }

  erase(ns?: string): void {
    const next = new Map(this.data);
    if (ns === undefined) next.clear();
    else next.delete(checkName('namespace', ns));
    this.commit(next);
  }

  private commit(next: Map<string, Map<string, Value>>): void {
    const out: Record<string, Record<string, Stored>> = {};
    for (const [ns, table] of [...next].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      out[ns] = {};
      for (const [k, v] of [...table].sort((a, b) => (a[0] < b[0] ? -1 : 1))) out[ns][k] = encode(v);
    }
    writeFileAtomic(this.file, JSON.stringify(out, null, 1) + '\n');
    this.data = next;
  }

  readonly ops = {
    'nvs.get': (args: Json) => {
      const ns = checkName('namespace', args['ns']);
      const key = checkName('key', args['key']);
      const v = this.get(ns, key);
      if (v === undefined) return { json: { value: { t: 'x' } } };
      if (Buffer.isBuffer(v)) return { json: { value: { t: 'b', n: v.length } }, bin: v };
      return { json: { value: typeof v === 'string' ? { t: 's', v } : { t: 'i', v } } };
    },
    'nvs.set': (args: Json, bin: Buffer) => {
      const ns = str(args, 'ns');
      const keys = args['keys'];
      const values = args['values'];
      if (!Array.isArray(keys) || !Array.isArray(values) || keys.length !== values.length) {
        fail('EINVAL', 'nvs.set needs keys and values of the same length');
      }
      checkName('namespace', ns);
      if (!keys.length) return; // an empty batch writes nothing
      let at = 0;
      const entries: Array<[string, Value | undefined]> = [];
      for (let i = 0; i < keys.length; i++) {
        const w = values[i] as Wire;
        const key = keys[i] as string;
        if (w?.t === 'x') entries.push([key, undefined]);
        else if (w?.t === 's' && typeof w.v === 'string') entries.push([key, w.v]);
        else if (w?.t === 'i' && typeof w.v === 'number') entries.push([key, w.v]);
        else if (w?.t === 'b' && Number.isInteger(w.n) && w.n >= 0 && at + w.n <= bin.length) {
          entries.push([key, bin.subarray(at, at + w.n)]);
          at += w.n;
        } else fail('EINVAL', `nvs.set: bad value for '${String(key)}'`);
      }
      if (at !== bin.length) fail('EINVAL', 'nvs.set: blob lengths do not match the binary part');
      this.setMany(ns, entries);
    },
    'nvs.keys': (args: Json) => ({ json: { keys: this.keys(checkName('namespace', args['ns'])) } }),
    'nvs.erase': (args: Json) => {
      this.erase(args['ns'] === undefined ? undefined : str(args, 'ns'));
    },
  };
}
