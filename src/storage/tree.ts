// Folder-level helpers over the SD card HAL.

import type { SdCard } from '../hal/index.ts';

/** Removes a file or a whole folder tree; a missing path is not an error. Returns files removed. */
export function removeTree(sd: SdCard, path: string): number {
  const st = sd.stat(path);
  if (!st) return 0;
  if (!st.isDir) {
    sd.remove(path);
    return 1;
  }
  let n = 0;
  for (const e of sd.list(path)) n += removeTree(sd, `${path === '/' ? '' : path}/${e.name}`);
  if (path !== '/') sd.remove(path);
  return n;
}
