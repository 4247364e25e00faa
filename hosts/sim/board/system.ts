// The system ops: heap figures of a simulated ESP32-S3 (internal RAM around
// 180 KB free, lowered by the control op heap.pressure; PSRAM), hardware
// random bytes, and the one-way notices the firmware sends before it ends or
// when it is up: system.feed (watchdog), system.reboot, system.sleep, sim.ready.

import { randomBytes } from 'node:crypto';
import type { Json, Service, Session } from './service.ts';
import { int } from './service.ts';

export const FREE_INTERNAL_BASELINE = 180 * 1024;
/** What ESP-IDF, Wi-Fi and the drivers keep of the PSRAM before the firmware allocates. */
const PSRAM_RESERVED = 1536 * 1024;

export interface SystemHooks {
  feed(session: Session): void;
  rebooting(session: Session, reason: string): void;
  sleeping(session: Session, ms: number | null): void;
  ready(session: Session, http: boolean, signInPath: string | null): void;
}

export class SystemService implements Service {
  /** Bytes of internal RAM taken away by heap.pressure. */
  pressure = 0;
  private minFree = FREE_INTERNAL_BASELINE;
  private session: Session | null = null;

  constructor(
    private readonly psramBytes: () => number,
    private readonly hooks: SystemHooks,
  ) {}

  start(session: Session): void {
    this.session = session;
    this.minFree = this.freeInternal();
  }

  stop(): void {
    this.session = null;
  }

  freeInternal(): number {
    return Math.max(0, FREE_INTERNAL_BASELINE - this.pressure);
  }

  setPressure(bytes: number): void {
    this.pressure = Math.max(0, Math.min(bytes, FREE_INTERNAL_BASELINE));
    this.minFree = Math.min(this.minFree, this.freeInternal());
    // The figures change only here: the firmware keeps the last ones it was told.
    this.session?.emit('system.heap', { heap: this.heap() });
  }

  heap(): Json {
    const free = this.freeInternal();
    this.minFree = Math.min(this.minFree, free);
    // the internal heap is fragmented: its largest block is well under the free total
    const largest = Math.floor((free * 0.6) / 4) * 4;
    const psram = this.psramBytes();
    return { freeInternal: free, largestBlock: largest, minFreeInternal: this.minFree, freePsram: psram ? psram - PSRAM_RESERVED : 0 };
  }

  readonly ops = {
    'system.heap': () => ({ json: this.heap() }),
    'system.random': (args: Json) => ({ bin: randomBytes(int(args, 'n', 1, 65536)) }),
    'system.feed': (_a: Json, _b: Buffer, session: Session) => this.hooks.feed(session),
    'system.reboot': (args: Json, _b: Buffer, session: Session) => this.hooks.rebooting(session, String(args['reason'] ?? '')),
    'system.sleep': (args: Json, _b: Buffer, session: Session) => {
      // As on the device (esp_sleep_enable_timer_wakeup only for ms > 0): 0 or none sleeps until a wake-up from outside.
      const ms = args['ms'];
      this.hooks.sleeping(session, typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : null);
    },
    'sim.ready': (args: Json, _b: Buffer, session: Session) => {
      const path = args['signInPath'];
      this.hooks.ready(session, args['http'] === true, typeof path === 'string' && path ? path : null);
    },
  };
}
