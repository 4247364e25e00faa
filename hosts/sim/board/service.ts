// What every simulated peripheral shares: the boot session it serves (events
// go to the runtime of that boot only), the shape of an op handler, and the
// board facilities a service may use (log, device folder).

import type { DeviceFolder } from './device.ts';

export type Json = Record<string, unknown>;

/** What an op handler returns: extra reply fields and an optional binary part. */
export interface Reply {
  json?: Json;
  bin?: Uint8Array;
}

/**
 * One boot of the runtime. Resources a service opens for a boot hold its
 * session and send events through it; once the runtime is gone, emit() does
 * nothing, so late events of a dead boot never reach the next one.
 */
export interface Session {
  readonly boot: number;
  readonly alive: boolean;
  /** The slot this boot runs from. */
  readonly slot: 0 | 1;
  emit(type: string, fields?: Json, bin?: Uint8Array): void;
  /** True while the pipe to the runtime is backed up (pause producers). */
  readonly congested: boolean;
  /** Calls fn once when the pipe drains (immediately if it is not congested). */
  onDrain(fn: () => void): void;
}

export type OpHandler = (args: Json, bin: Buffer, session: Session) => Reply | void | Promise<Reply | void>;

export interface BoardContext {
  readonly device: DeviceFolder;
  /** A board message (not a firmware line): device.log, and stderr unless quiet. */
  log(line: string): void;
}

export interface Service {
  readonly ops: Record<string, OpHandler>;
  /** A new boot starts (before the runtime runs). */
  start?(session: Session): void;
  /**
   * The boot ended (the runtime is gone): close what belonged to it. Every
   * reset loses what the hardware keeps in RAM (unsynced card writes too).
   */
  stop?(session: Session): void;
  /** The board is exiting. */
  shutdown?(): void;
}

export function int(args: Json, name: string, min = -Infinity, max = Infinity): number {
  const v = args[name];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new TypeError(`${name} must be an integer${Number.isFinite(min) ? ` from ${min}` : ''}${Number.isFinite(max) ? ` to ${max}` : ''}`);
  }
  return v;
}

export function str(args: Json, name: string): string {
  const v = args[name];
  if (typeof v !== 'string') throw new TypeError(`${name} must be a string`);
  return v;
}

export function slotArg(args: Json): 0 | 1 {
  const v = args['slot'];
  if (v !== 0 && v !== 1) throw new TypeError('slot must be 0 or 1');
  return v;
}
