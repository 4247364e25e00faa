// One running turn's side of its TurnCancel (contracts/turn.ts): the cancel
// closes the provider round in flight (through the HTTP client's cancel hook,
// streamed or not) and settles every wait of the turn at once.

import type { RoundCancel, TurnCancel } from '../contracts/index.ts';

export const CANCELLED = Symbol('cancelled');

export class TurnGate {
  cancelled = false;
  /** The provider round in flight: the wire hands it to its HTTP request. */
  readonly round: RoundCancel & { cancelled: boolean } = { onCancel: null, cancelled: false };
  private readonly fired: Promise<typeof CANCELLED> | null;

  constructor(private readonly handle: TurnCancel | undefined) {
    if (!handle) {
      this.fired = null;
      return;
    }
    let fire: () => void = () => undefined;
    this.fired = new Promise((resolve) => (fire = () => resolve(CANCELLED)));
    handle.onCancel = () => {
      this.cancelled = true;
      this.round.cancelled = true;
      const close = this.round.onCancel;
      this.round.onCancel = null;
      close?.();
      fire();
    };
  }

  /** p, or CANCELLED as soon as the turn is cancelled. */
  race<T>(p: Promise<T>): Promise<T | typeof CANCELLED> {
    return this.fired ? Promise.race([p, this.fired]) : p;
  }

  /** The reply goes out: from here the turn can no longer be cancelled. */
  commit(): void {
    if (this.handle) this.handle.onCancel = null;
  }
}
