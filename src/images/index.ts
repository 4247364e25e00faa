// The images subsystem's face: the image.generate tool (tools.ts), which
// makes a PNG with the catalog's image model and saves it in the file store.

import type { Kernel } from '../core/kernel.ts';
import type { Subsystem } from '../core/subsystem.ts';
import type { ImageDeps } from './tools.ts';
import { imageTool } from './tools.ts';

/** What the images need from others. */
export interface ImagesOptions {
  /** The files (src/files/): the store the images are saved in. */
  files: { store: ImageDeps['store'] };
  /** Outbound HTTP(S) under the device's TLS policy. */
  client: ImageDeps['client'];
  /** Which image model to use (src/models/). */
  catalog: ImageDeps['catalog'];
  /** The provider keys (src/providers/): the image-capable provider's (null: none set; the tool is then unavailable). */
  providers: { key(provider: 'openai'): string | null };
}

export const images: Subsystem<ImagesOptions, null> = {
  name: 'images',
  needs: ['files', 'client', 'catalog', 'providers'],
  provides: {},
  start(k: Kernel, o: ImagesOptions) {
    const deps: ImageDeps = {
      store: o.files.store,
      remove: (path) => k.hal.sd.remove(path),
      client: o.client,
      random: (bytes) => k.hal.system.random(bytes),
      log: k.log,
      catalog: o.catalog,
      key: () => o.providers.key('openai'),
    };
    return { provides: null, tools: [imageTool(deps)] };
  },
};

