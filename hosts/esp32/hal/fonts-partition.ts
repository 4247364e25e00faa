// Device HAL: the flash's fonts partition (partitions.csv), where the
// screen's CJK glyphs live (docs/decisions.md "Screen fonts"), mapped read
// only with the SDK's flash module (a host buffer over the mapped pages: the
// glyphs cost no RAM). Written when the device is flashed (npm run flash);
// an erased or missing partition reads as no assets: the screen draws CJK
// characters as counted boxes.

import Flash from 'flash';
import type { Assets } from '../../../src/hal/index.ts';
import { NO_ASSETS, readAssetPack } from '../../../src/util/asset-pack.ts';

export const FONTS_PARTITION = 'fonts';

export function fontsPartition(log: (line: string) => void = () => undefined): Assets {
  try {
    const pack = readAssetPack(new Flash(FONTS_PARTITION).map() as unknown as ArrayBuffer);
    if (pack.problem) log(`fonts partition: ${pack.problem}; no CJK glyphs`);
    return pack;
  } catch (e) {
    log(`fonts partition: ${e instanceof Error ? e.message : String(e)}; no CJK glyphs`);
    return NO_ASSETS;
  }
}
