// The music subsystem's routes, for the web page's Add music: GET /api/music
// lists the card's /music folder and the player's state; POST /api/music takes
// one .wav or .mp3 file as multipart field 'file' into /music, written to the
// card as it arrives and renamed into place only when complete and playable
// (upload.ts); refused when it is not playable music, the name is not
// card-safe, or the card is missing, small or full.

import type { Kernel } from '../core/kernel.ts';
import type { Route } from '../core/router.ts';
import { uploadRoute } from '../core/upload-route.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { MusicOptions } from './options.ts';
import type { MusicPlayer } from './player.ts';
import { musicUploads, UPLOAD_MAX } from './upload.ts';

export { musicName, UPLOAD_MAX } from './upload.ts';

export function musicRoutes(k: Kernel, music: MusicPlayer, card: MusicOptions['card']): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/music',
      handler: () => {
        if (!card.live()) return jsonResponse({ present: false, tracks: [], player: music.status(), mp3: music.canMp3() });
        try {
          return jsonResponse({ present: true, tracks: music.tracks(), player: music.status(), mp3: music.canMp3() });
        } catch (e) {
          return errorResponse(409, 'card', `The music folder cannot be read: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
    },
    uploadRoute({ path: '/api/music', bodyLimit: UPLOAD_MAX, field: 'file', anyFile: true, fieldsMax: 0, begin: musicUploads(k, music, card) }),
  ];
}
