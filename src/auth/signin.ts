// Sign-in codes: short, single-use, time-bound codes redeemed once for the
// token (2 minutes on the scan path, 10 on the hand-entry path). Kept in RAM
// only: a reboot, like a token rotation, invalidates every outstanding code.

import type { Clock } from '../hal/index.ts';
import { normalizeSignInCode, signInCode, type RandomFill } from '../util/ids.ts';

export const SCAN_LIFETIME_MS = 2 * 60_000;
export const HAND_LIFETIME_MS = 10 * 60_000;
/** Codes alive at once; the oldest goes first beyond this. */
const MAX_LIVE = 16;

export interface MintedCode {
  code: string;
  expiresAtMono: number;
  lifetimeMs: number;
}

export type Redeemed = { ok: true } | { ok: false; reason: 'unknown' | 'expired' | 'used' };

interface Entry extends MintedCode {
  used: boolean;
}

export class SignInCodes {
  private codes = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly random: RandomFill,
  ) {}

  mint(lifetimeMs: number): MintedCode {
    this.prune();
    let code = signInCode(this.random);
    while (this.codes.has(code)) code = signInCode(this.random);
    const entry: Entry = { code, expiresAtMono: this.clock.monoMs() + lifetimeMs, lifetimeMs, used: false };
    this.codes.set(code, entry);
    while (this.codes.size > MAX_LIVE) this.codes.delete(this.codes.keys().next().value!);
    return { code, expiresAtMono: entry.expiresAtMono, lifetimeMs };
  }

  /** Milliseconds left on a code (0 when expired, used or unknown). */
  remainingMs(code: string): number {
    const e = this.codes.get(normalizeSignInCode(code));
    if (!e || e.used) return 0;
    return Math.max(0, e.expiresAtMono - this.clock.monoMs());
  }

  /** Marks the code used if it is live; a code is redeemable exactly once. */
  redeem(typed: unknown): Redeemed {
    const e = this.codes.get(normalizeSignInCode(typed));
    if (!e) return { ok: false, reason: 'unknown' };
    if (e.used) return { ok: false, reason: 'used' };
    if (this.clock.monoMs() >= e.expiresAtMono) return { ok: false, reason: 'expired' };
    e.used = true;
    return { ok: true };
  }

  /** The codes that can still be redeemed (the tunnel's screen looks for each). */
  live(): string[] {
    const now = this.clock.monoMs();
    const out: string[] = [];
    for (const e of this.codes.values()) if (!e.used && now < e.expiresAtMono) out.push(e.code);
    return out;
  }

  /** Invalidates every code (token rotation). */
  clear(): void {
    this.codes.clear();
  }

  private prune(): void {
    const now = this.clock.monoMs();
    for (const [k, e] of this.codes) if (e.used || now >= e.expiresAtMono) this.codes.delete(k);
  }
}
