// The device access token: 96 bits from the hardware RNG, persisted in NVS,
// with no setter. Only rotate() replaces it (POST /api/token/regen). The
// value is registered with the log redactor so it never reaches a log line.

import type { Store } from '../core/store.ts';
import type { Redactor } from '../log/redact.ts';
import { ctEqual } from '../util/ct.ts';
import { token96, type RandomFill } from '../util/ids.ts';

const KEY = 'token';

export class AccessToken {
  private value: string;
  private listeners: Array<() => void> = [];

  constructor(
    private readonly store: Store,
    private readonly random: RandomFill,
    private readonly redactor: Redactor,
  ) {
    const saved = store.strOrNull(KEY);
    this.value = saved && saved.length >= 16 ? saved : this.mint();
    redactor.add(this.value);
  }

  private mint(): string {
    const fresh = token96(this.random);
    this.store.set(KEY, fresh);
    return fresh;
  }

  /** The token, for the few places the spec allows it out (exchange, WEBTOK?). */
  reveal(): string {
    return this.value;
  }

  /** Constant-time comparison; anything but a string of the right value fails. */
  matches(candidate: unknown): boolean {
    return typeof candidate === 'string' && candidate.length > 0 && ctEqual(candidate, this.value);
  }

  /** Replaces the token; every listener (sign-in codes, links) is invalidated. */
  rotate(): void {
    const old = this.value;
    this.value = this.mint();
    this.redactor.add(this.value);
    this.redactor.remove(old);
    for (const l of this.listeners) l();
  }

  onRotate(listener: () => void): void {
    this.listeners.push(listener);
  }
}
