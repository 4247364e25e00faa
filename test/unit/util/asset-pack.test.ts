// The image's assets region: tools/assets.mjs packs, src/util/asset-pack.ts
// reads the same bytes back in place, every asset 16-byte aligned; a damaged
// region reads as no assets with the reason.
import { describe, expect, it } from 'vitest';
import { packAssets } from '../../../tools/assets.mjs';
import { readAssetPack } from '../../../src/util/asset-pack.ts';

describe('the assets pack', () => {
  it('round-trips named data, aligned for typed arrays, without copying', () => {
    const entries: Array<[string, Uint8Array]> = [
      ['a.bin', Uint8Array.of(1, 2, 3)],
      ['b.f32', new Uint8Array(new Float32Array([1.5, -2]).buffer)],
      ['empty', new Uint8Array(0)],
    ];
    const region = new Uint8Array(packAssets(entries));
    const pack = readAssetPack(region);
    expect(pack.problem).toBeNull();
    expect(pack.names()).toEqual(['a.bin', 'b.f32', 'empty']);
    expect([...pack.get('a.bin')!]).toEqual([1, 2, 3]);
    const f = pack.get('b.f32')!;
    expect(f.byteOffset % 16).toBe(0);
    expect([...new Float32Array(f.buffer, f.byteOffset, 2)]).toEqual([1.5, -2]);
    expect(f.buffer).toBe(region.buffer);
    expect(pack.get('empty')!.length).toBe(0);
    expect(pack.get('missing')).toBeNull();
  });

  it('reads a damaged region as none, saying why', () => {
    const good = new Uint8Array(packAssets([['x', Uint8Array.of(7)]]));
    expect(readAssetPack(null).names()).toEqual([]);
    expect(readAssetPack(good.subarray(0, 10)).problem).toMatch(/too short/);
    const magic = good.slice();
    magic[0] = 0;
    expect(readAssetPack(magic).problem).toMatch(/magic/);
    expect(readAssetPack(good.subarray(0, good.length - 16)).problem).toMatch(/out of bounds/);
    const json = good.slice();
    json[12] = 0x7b; // '{': not a list
    expect(readAssetPack(json).problem).toMatch(/JSON|list/);
  });
});
