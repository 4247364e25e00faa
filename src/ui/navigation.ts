// The owner's choice of screen and the way back from it. A screen chosen
// from the menu goes back to the menu, any other to the base screen; the
// time since the last activity and since the choice tell a chosen screen
// when it has lapsed, and the saver when it is due.

import type { Clock } from '../hal/index.ts';
import type { Navigator, ScreenName } from './screen-kit.ts';

export interface NavigationHooks {
  /** Counts as activity (choosing a screen wakes it). */
  wake(): void;
  enter(name: ScreenName): void;
  leave(name: ScreenName): void;
}

export class Navigation implements Navigator {
  private current: ScreenName | null = null;
  private returnTo: ScreenName | null = null;
  private chosenAt = 0;
  private lastActivity: number;
  /** SAVER now: the saver shows until the next activity. */
  private saverForced = false;

  constructor(
    private readonly clock: Clock,
    private readonly hooks: NavigationHooks,
  ) {
    this.lastActivity = clock.monoMs();
  }

  chosen(): ScreenName | null {
    return this.current;
  }

  choose(name: ScreenName): void {
    if (this.current !== name) this.returnTo = this.current === 'menu' ? 'menu' : null;
    this.current = name;
    this.chosenAt = this.clock.monoMs();
    this.hooks.enter(name);
    this.hooks.wake();
  }

  back(): void {
    if (this.current) this.hooks.leave(this.current);
    this.current = this.returnTo;
    this.returnTo = null;
    this.chosenAt = this.clock.monoMs();
  }

  renew(): void {
    this.chosenAt = this.clock.monoMs();
  }

  /** A touch or an event the screen shows: the saver ends and the idle time starts again. */
  activity(): void {
    this.lastActivity = this.clock.monoMs();
    this.saverForced = false;
  }

  /** SAVER now: back to the base screen, under the saver, until the next activity. */
  forceSaver(): void {
    this.saverForced = true;
    this.current = null;
    this.returnTo = null;
  }

  idleMs(): number {
    return this.clock.monoMs() - this.lastActivity;
  }

  sinceChosenMs(): number {
    return this.clock.monoMs() - this.chosenAt;
  }

  /** The saver is due: forced, or idle for `minutes` (0 = never). */
  saverDue(minutes: number): boolean {
    return this.saverForced || (minutes > 0 && this.idleMs() >= minutes * 60_000);
  }
}
