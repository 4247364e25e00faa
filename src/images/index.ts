// The images subsystem's face: the image.generate tool (tools.ts), which
// makes a PNG with the catalog's image model and saves it in the file store.

import type { Kernel } from '../core/kernel.ts';
import type { Subsystem } from '../core/subsystem.ts';
import type { ImageDeps } from './tools.ts';
import { imageTool } from './tools.ts';

/** What the images need from others. */
export interface ImagesOptions {
  /** The file store the images are saved in (src/files/). */
  store: ImageDeps['store'];
  /** Outbound HTTP(S) under the device's TLS policy. */
  client: ImageDeps['client'];
  /** Which image model to use (src/models/). */
  catalog: ImageDeps['catalog'];
  /** The image-capable provider's key (null: none set; the tool is then unavailable). */
  key(): string | null;
}

export const images: Subsystem<ImagesOptions, null> = {
  name: 'images',
  start(k: Kernel, o: ImagesOptions) {
    const deps: ImageDeps = {
      store: o.store,
      remove: (path) => k.hal.sd.remove(path),
      client: o.client,
      random: (bytes) => k.hal.system.random(bytes),
      log: k.log,
      catalog: o.catalog,
      key: () => o.key(),
    };
    return { provides: null, tools: [imageTool(deps)] };
  },
};

export { DEFAULT_PROJECT, IMAGE_MAX, IMAGE_PROVIDER, IMAGE_URL, QUALITIES, SIZES } from './tools.ts';
