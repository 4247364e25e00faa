// Errors the board answers with (ok:false, code, message), using the HAL's
// error codes, and the mapping from Node's fs/net errors to them.

import type { HalErrorCode } from '../../../src/hal/index.ts';

export class BoardError extends Error {
  constructor(
    readonly code: HalErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function fail(code: HalErrorCode, message: string): never {
  throw new BoardError(code, message);
}

const FS_CODES: ReadonlySet<string> = new Set(['ENOENT', 'EEXIST', 'ENOTDIR', 'EISDIR', 'ENOTEMPTY', 'ENOSPC', 'EINVAL', 'EBUSY']);

/** Turns a Node fs error into a BoardError with the nearest HAL code. */
export function fromFsError(e: unknown, what: string): BoardError {
  if (e instanceof BoardError) return e;
  const code = (e as NodeJS.ErrnoException | null)?.code ?? '';
  const mapped = (FS_CODES.has(code) ? code : 'EIO') as HalErrorCode;
  return new BoardError(mapped, `${what}: ${(e as Error)?.message ?? String(e)}`);
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
