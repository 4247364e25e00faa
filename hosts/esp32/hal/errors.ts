// Device HAL: turns the native glue's errors ("ENOENT: no such file") and the
// SDK's own into HalError, so src/ sees the same codes as on the simulator.

import { HalError, type HalErrorCode } from '../../../src/hal/index.ts';

const CODES: ReadonlySet<string> = new Set<HalErrorCode>([
  'ENOENT', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ENOTEMPTY', 'ENOSPC', 'ENOCARD', 'EIO', 'EINVAL', 'ECONN', 'ETIMEDOUT', 'ETLS', 'EBUSY', 'ENOTSUP',
]);
const CODE_PREFIX = /^([A-Z]+): (.*)$/s;

/** The HalError for anything thrown by the glue or the SDK (EIO when it names no code). */
export function toHalError(e: unknown, fallback: HalErrorCode = 'EIO'): HalError {
  if (e instanceof HalError) return e;
  const message = e instanceof Error ? e.message : String(e);
  const m = CODE_PREFIX.exec(message);
  if (m && CODES.has(m[1]!)) return new HalError(m[1] as HalErrorCode, m[2]!);
  return new HalError(fallback, message);
}

/** Runs fn, rethrowing its failure as a HalError. */
export function hal<T>(fn: () => T, fallback: HalErrorCode = 'EIO'): T {
  try {
    return fn();
  } catch (e) {
    throw toHalError(e, fallback);
  }
}
