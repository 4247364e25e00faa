// Durable file replacement: write a temporary file, fsync it, rename it over
// the target, fsync the folder. A kill at any moment leaves the old or the
// new content, never a mix.

import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';

let counter = 0;

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${counter++}.tmp`);
  const fd = openSync(tmp, 'w', 0o644);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDir(dirname(path));
}

export function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a folder; the rename is still atomic.
  }
}
