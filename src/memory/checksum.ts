// The per-record checksum of every memory file: the first 32 bits of the
// record's SHA-256, through the hotspot (C on XS), so checking 6000 records
// at boot costs microseconds each rather than a JavaScript CRC loop.

import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import { sha256 } from '../../modules/sha256/sha256.ts';

export function checksum32(api: Sha256Api, bytes: Uint8Array): number {
  const d = sha256(api, bytes);
  return (d[0]! | (d[1]! << 8) | (d[2]! << 16) | (d[3]! << 24)) >>> 0;
}
