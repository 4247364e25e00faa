// A file written the crash-safe way: into '<path>.part' (its folder made
// first), in chunks of a cluster, then synced and renamed over path on
// commit(); abort() or a failed write removes the part file, and a pulled
// card's leftover is removed when the store next opens (card-index.ts).

import type { SdCard } from '../hal/index.ts';
import { PART } from './card-index.ts';
import type { FilesError } from './file-meta.ts';

/** Bytes written to the card per call (one SD sector cluster's worth). */
export const WRITE_CHUNK = 4096;

/** A writer into a '.part' file that becomes the target only on commit(). */
export interface PartWriter {
  readonly written: number;
  write(bytes: Uint8Array): void;
  /** Syncs and renames into place. */
  commit(): void;
  /** Removes the part file (best effort). */
  abort(): void;
}

/** A part-file writer for path; failure turns a card error into the store's (it is thrown). */
export function openPart(sd: SdCard, path: string, failure: (e: unknown) => FilesError): PartWriter {
  const part = `${path}${PART}`;
  const slash = path.lastIndexOf('/');
  let file: ReturnType<SdCard['open']>;
  try {
    sd.mkdir(path.slice(0, slash));
    file = sd.open(part, 'w');
  } catch (e) {
    throw failure(e);
  }
  let written = 0;
  let open = true;
  const cleanup = (): void => {
    if (open) {
      open = false;
      try {
        file.close();
      } catch {
        // the card is gone: nothing to close
      }
    }
    try {
      sd.remove(part);
    } catch {
      // a pulled card: the part file is removed when the store next opens
    }
  };
  return {
    get written() {
      return written;
    },
    write(bytes: Uint8Array) {
      try {
        for (let at = 0; at < bytes.length; at += WRITE_CHUNK) file.write(bytes.subarray(at, Math.min(bytes.length, at + WRITE_CHUNK)));
        written += bytes.length;
      } catch (e) {
        cleanup();
        throw failure(e);
      }
    },
    commit() {
      try {
        file.sync();
        file.close();
        open = false;
        sd.rename(part, path);
      } catch (e) {
        cleanup();
        throw failure(e);
      }
    },
    abort: cleanup,
  };
}
