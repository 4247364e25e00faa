// When the screen works, so an idle device costs one check a second: pending
// pixels are drawn by a pump of short chunks that yields to the loop between
// them (a request never waits long behind a frame), and the redraw timer
// runs at TFTHZ only while the screen is active (a finger is on it or was
// lately, or the screen showing moves by itself). Events the screen shows
// get a tick on the next turn of the loop (soon()).

import type { Clock, Timer } from '../hal/index.ts';
import type { Renderer } from './renderer.ts';

/** After a touch the screen redraws at TFTHZ for this long. */
const ACTIVE_MS = 2000;
/** Between drawing chunks while a turn runs. */
const PUMP_BUSY_MS = 40;
/** Between drawing chunks while the panel backs off after a failed tile. */
const PUMP_BACKOFF_MS = 50;

export interface RedrawNeeds {
  /** One screen tick: pick, rebuild if changed, draw a bounded amount. */
  tick(): void;
  /** Runs work so a failure is logged, never thrown into the loop. */
  guard(work: () => void): void;
  /** A finger is down or the screen showing moves by itself. */
  active(): boolean;
  /** The redraw rate (TFTHZ). */
  hz(): number;
  /** A turn runs: the pump steps aside. */
  turnBusy(): boolean;
}

export class Redraw {
  /** start() ran and stop() has not. */
  running = false;
  private fast: Timer | null = null;
  private pumping: Timer | null = null;
  private soonTimer: Timer | null = null;
  private lastTouch = -Infinity;
  private hzNow = 0;

  constructor(
    private readonly clock: Clock,
    private readonly renderer: Renderer,
    private readonly needs: RedrawNeeds,
  ) {}

  touched(): void {
    this.lastTouch = this.clock.monoMs();
  }

  /** Starts the pump for pending pixels, and starts, retimes or stops the redraw timer. */
  schedule(): void {
    const now = this.clock.monoMs();
    if (this.renderer.busy() && !this.pumping) {
      this.pumping = this.clock.setTimeout(() => this.pump(), 0);
    }
    const active = this.needs.active() || now - this.lastTouch < ACTIVE_MS;
    const hz = Math.max(1, Math.min(30, this.needs.hz()));
    if (active && this.fast && hz === this.hzNow) return;
    this.fast?.cancel();
    this.fast = null;
    if (!active) return;
    this.hzNow = hz;
    this.fast = this.clock.setInterval(
      () =>
        this.needs.guard(() => {
          this.needs.tick();
          this.schedule();
        }),
      Math.round(1000 / hz),
    );
  }

  /** A full tick on the next turn of the loop (after the work at hand). */
  soon(): void {
    if (!this.running || this.soonTimer) return;
    this.soonTimer = this.clock.setTimeout(() => {
      this.soonTimer = null;
      this.needs.guard(() => this.needs.tick());
      this.schedule();
    }, 0);
  }

  stop(): void {
    this.running = false;
    this.fast?.cancel();
    this.fast = null;
    this.pumping?.cancel();
    this.pumping = null;
    this.soonTimer?.cancel();
    this.soonTimer = null;
  }

  private pump(): void {
    this.pumping = null;
    this.needs.guard(() => this.renderer.tick());
    if (!this.renderer.busy()) return;
    const wait = this.renderer.backingOff() ? PUMP_BACKOFF_MS : this.needs.turnBusy() ? PUMP_BUSY_MS : 0;
    this.pumping = this.clock.setTimeout(() => this.pump(), wait);
  }
}
