// Device HAL: the image's assets (src/hal/assets.ts), one resource
// (assets.bin, linked by manifest.json's "data") read in place from flash:
// Resource is a host buffer over the mapped partition, so the views the
// firmware makes on it cost no RAM. Also the SDK's desktop runtime's (hosts/lin).

import Resource from 'Resource';
import type { Assets } from '../../../src/hal/index.ts';
import { readAssetPack } from '../../../src/util/asset-pack.ts';

export const ASSETS_RESOURCE = 'assets.bin';

export function imageAssets(log: (line: string) => void = () => undefined): Assets {
  const pack = readAssetPack(Resource.exists(ASSETS_RESOURCE) ? (new Resource(ASSETS_RESOURCE) as unknown as ArrayBuffer) : null);
  if (pack.problem) log(`assets: ${pack.problem}; the image's data tables are not used`);
  return pack;
}
