// HAL: the system. Reboot and reset reason, heap figures, watchdog, the log
// sink, hardware randomness and the build's identity.

export type ResetReason =
  | 'power-on'
  | 'software' // our own reboot()
  | 'panic' // an unhandled exception or abort
  | 'watchdog'
  | 'brownout'
  | 'deep-sleep'
  | 'external' // reset pin, or the console port opened (DTR/RTS)
  | 'unknown';

export interface HeapFigures {
  /** Free internal RAM in bytes (the spec's heap floors refer to this). */
  freeInternal: number;
  /** Largest block that can be allocated from internal RAM. */
  largestBlock: number;
  /** Lowest freeInternal since boot. */
  minFreeInternal: number;
  /** Free PSRAM in bytes (0 when the board has none). */
  freePsram: number;
  /** XS heap in use now (chunks plus slots), and its high-water since boot. */
  xsNow: number;
  xsPeak: number;
  /**
   * The part of xsNow that is the firmware's code and module-level objects,
   * measured once the modules have run. On the device these are preloaded
   * into flash; RAM holds xsNow - xsStatic.
   */
  xsStatic: number;
  /** What the XS machine has taken from the system so far (heap and its stack); it never shrinks. */
  xsReserved: number;
  /**
   * Property names (keys) created since the firmware's modules ran: on a
   * device these come out of creation.keys.available, beyond the preloaded
   * ones. Absent where the host cannot tell.
   */
  xsKeys?: number;
  /** The XS stack's high-water since boot, in slots (creation.stack). Absent where the host cannot tell. */
  xsStackPeak?: number;
}

export interface System {
  /** Restarts the device; does not return. */
  reboot(reason: string): void;
  resetReason(): ResetReason;
  heap(): HeapFigures;
  /** Resets the high-water mark of xsPeak (for measuring one piece of work). */
  resetHeapPeak(): void;
  /** A full garbage collection, so heap() shows live sizes (diagnostics only). */
  gc(): void;
  /** Feed the task watchdog; a loop that stops feeding it gets the device reset. */
  feedWatchdog(): void;
  /** Writes one line to the host's log output (the log ring is the firmware's). */
  log(line: string): void;
  /** Fills bytes from the hardware random number generator. */
  random(bytes: Uint8Array): void;
  /**
   * Deep sleep for ms (wakes as a fresh boot with reason deep-sleep); ms 0
   * sets no timer: only another wake source (the button, touch; the
   * simulator's control op wake) wakes the device.
   */
  deepSleep(ms: number): void;
  /**
   * Tells the host the firmware is up (again, when the sign-in link changes).
   * The simulator prints the local URL and sign-in link; a device does nothing.
   */
  announce(info: { http: boolean; signInPath: string | null }): void;
}
