// The one format of the firmware image's assets region (written by
// tools/assets.mjs, read by every host): "DSKAST01", u32le index length, the
// index as UTF-8 JSON ([{name, offset, length}], offsets from the start of the
// region), then the data, each asset 16-byte aligned so that typed arrays of
// any element size can view it in place.

import type { Assets } from '../hal/assets.ts';
import { decode } from './utf8.ts';

export const ASSET_MAGIC = 'DSKAST01';
export const ASSET_ALIGN = 16;

export const NO_ASSETS: Assets = { get: () => null, names: () => [] };

/**
 * Reads a region's index; the views share the region's memory (a host buffer
 * on XS, so nothing is copied). A damaged region reads as no assets, with the
 * reason in `problem`.
 */
export function readAssetPack(region: ArrayBufferLike | Uint8Array | null | undefined): Assets & { problem: string | null } {
  if (!region) return { ...NO_ASSETS, problem: null };
  const bytes = region instanceof Uint8Array ? region : new Uint8Array(region);
  const fail = (problem: string): Assets & { problem: string } => ({ ...NO_ASSETS, problem });
  if (bytes.length < 12) return fail('assets region too short');
  for (let i = 0; i < 8; i++) if (bytes[i] !== ASSET_MAGIC.charCodeAt(i)) return fail('assets region has no magic');
  const indexLength = (bytes[8]! | (bytes[9]! << 8) | (bytes[10]! << 16) | (bytes[11]! << 24)) >>> 0;
  if (12 + indexLength > bytes.length) return fail('assets index past the end');
  let index: unknown;
  try {
    index = JSON.parse(decode(bytes, 12, 12 + indexLength));
  } catch {
    return fail('assets index is not JSON');
  }
  if (!Array.isArray(index)) return fail('assets index is not a list');
  const table = new Map<string, Uint8Array>();
  for (const e of index as Array<Record<string, unknown>>) {
    const { name, offset, length } = e ?? {};
    if (typeof name !== 'string' || typeof offset !== 'number' || typeof length !== 'number') return fail('assets index entry malformed');
    if (offset % ASSET_ALIGN !== 0 || offset < 12 + indexLength || length < 0 || offset + length > bytes.length) return fail(`asset ${name} out of bounds`);
    table.set(name, new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length));
  }
  return { get: (name) => table.get(name) ?? null, names: () => [...table.keys()], problem: null };
}

/**
 * Several regions read as one (the image's assets, then the flash's fonts
 * partition): the first that has a name answers.
 */
export function mergeAssets(...packs: Assets[]): Assets {
  return {
    get: (name) => {
      for (const p of packs) {
        const v = p.get(name);
        if (v) return v;
      }
      return null;
    },
    names: () => [...new Set(packs.flatMap((p) => p.names()))],
  };
}
