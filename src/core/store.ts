// Typed access to one NVS namespace with defaults, so each subsystem keeps
// its persisted settings under its own name without repeating NVS plumbing.

import type { Nvs } from '../hal/index.ts';

export class Store {
  constructor(
    private readonly nvs: Nvs,
    readonly ns: string,
  ) {}

  str(key: string, fallback: string): string {
    const v = this.nvs.get(this.ns, key);
    return typeof v === 'string' ? v : fallback;
  }
  strOrNull(key: string): string | null {
    const v = this.nvs.get(this.ns, key);
    return typeof v === 'string' ? v : null;
  }
  int(key: string, fallback: number): number {
    const v = this.nvs.get(this.ns, key);
    return typeof v === 'number' ? v : fallback;
  }
  bool(key: string, fallback: boolean): boolean {
    const v = this.nvs.get(this.ns, key);
    return typeof v === 'number' ? v !== 0 : fallback;
  }
  blob(key: string): Uint8Array | null {
    const v = this.nvs.get(this.ns, key);
    return v instanceof Uint8Array ? v : null;
  }
  set(key: string, value: string | number | boolean | Uint8Array): void {
    this.nvs.set(this.ns, key, typeof value === 'boolean' ? (value ? 1 : 0) : value);
  }
  setMany(entries: ReadonlyArray<readonly [string, string | number | boolean | Uint8Array | undefined]>): void {
    this.nvs.setMany(
      this.ns,
      entries.map(([k, v]) => [k, typeof v === 'boolean' ? (v ? 1 : 0) : v] as const),
    );
  }
  delete(key: string): void {
    this.nvs.delete(this.ns, key);
  }
}
