// A write-through cache over the NVS HAL. The firmware is the only writer of
// its NVS, so reads can be served from RAM: on the device NVS reads cost a
// flash lookup, in the simulator a round trip to the board, and hot paths
// (the gate, the setup handout, tlsVerify) read settings on every request.

import type { Nvs, NvsValue } from '../hal/index.ts';

const MISSING = Symbol('missing');

function copy(v: NvsValue): NvsValue {
  return v instanceof Uint8Array ? v.slice() : v;
}

export class CachedNvs implements Nvs {
  private cache = new Map<string, NvsValue | typeof MISSING>();

  constructor(private readonly nvs: Nvs) {}

  private k(ns: string, key: string): string {
    return `${ns}\u0000${key}`;
  }

  get(ns: string, key: string): NvsValue | undefined {
    const k = this.k(ns, key);
    let v = this.cache.get(k);
    if (v === undefined) {
      const read = this.nvs.get(ns, key);
      v = read === undefined ? MISSING : read;
      this.cache.set(k, v);
    }
    return v === MISSING ? undefined : copy(v);
  }
  set(ns: string, key: string, value: NvsValue): void {
    this.setMany(ns, [[key, value]]);
  }
  setMany(ns: string, entries: ReadonlyArray<readonly [string, NvsValue | undefined]>): void {
    // Written first: a refused write (limits, full partition) leaves the cache as it was.
    this.nvs.setMany(ns, entries);
    for (const [key, value] of entries) this.cache.set(this.k(ns, key), value === undefined ? MISSING : copy(value));
  }
  delete(ns: string, key: string): void {
    this.nvs.delete(ns, key);
    this.cache.set(this.k(ns, key), MISSING);
  }
  keys(ns: string): string[] {
    return this.nvs.keys(ns);
  }
  erase(ns?: string): void {
    this.nvs.erase(ns);
    if (ns === undefined) this.cache.clear();
    else for (const k of [...this.cache.keys()]) if (k.startsWith(`${ns}\u0000`)) this.cache.delete(k);
  }
}
