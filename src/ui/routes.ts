// GET /api/ui/frame (token-gated): the frame on the screen now, as a PNG
// streamed band by band (src/ui/png.ts: no whole frame in memory), or with
// ?describe=1 as JSON (screen, sizes, orientation, one line per item, the
// frame's sha256). Secret items (the setup passphrase, the Wi-Fi join QR)
// leave as grey boxes: the passphrase never crosses the API.

import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { Route } from '../core/router.ts';
import type { Display } from '../hal/index.ts';
import { queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { frameDigest } from './frame-digest.ts';
import { describeItem } from './list.ts';
import { PngStream } from './png.ts';
import { postureName } from './settings.ts';
import type { Ui } from './ui.ts';

/** The screen's routes: GET /api/ui/frame. */
export function uiRoutes(ui: Ui, display: Pick<Display, 'width' | 'height'>, sha256: Sha256Api): Route[] {
  return [{
    method: 'GET',
    path: '/api/ui/frame',
    handler: (req) => {
      ui.flush();
      const list = ui.renderer.current();
      if (!list) return errorResponse(503, 'no-frame', 'Nothing has been drawn yet.');
      const { width, height } = display;
      if (queryParams(req).get('describe') === '1') {
        const d = frameDigest(sha256, ui);
        return jsonResponse({
          screen: list.screen,
          width,
          height,
          canvas: { width: list.width, height: list.height },
          posture: postureName(ui.renderer.rotation),
          theme: ui.theme().name,
          items: list.items.map(describeItem),
          sha256: d.hex,
          redacted: d.redacted,
        });
      }
      const png = new PngStream(width, height);
      const rows = ui.renderer.bandRows();
      return {
        status: 200,
        headers: { 'Content-Type': 'image/png', 'Cache-Control': 'no-store' },
        stream: {
          length: PngStream.size(width, height, rows),
          start(w) {
            let y = -1;
            // The list captured now: the screen may move on while the PNG is sent.
            const pump = (): void => {
              try {
                if (y < 0) {
                  y = 0;
                  if (!w.write(png.header())) return void (w.onDrain = pump);
                }
                while (y < height) {
                  const h = Math.min(rows, height - y);
                  const band = png.band(ui.renderer.renderDisplayRect({ x: 0, y, w: width, h }, true, list), h);
                  y += h;
                  if (!w.write(band)) return void (w.onDrain = pump);
                }
                w.onDrain = null;
                w.write(png.end());
                w.end();
              } catch (e) {
                w.abort(`frame: ${String(e)}`);
              }
            };
            pump();
          },
        },
      };
    },
  }];
}
