// The music subsystem's routes, for the web page's Add music: GET /api/music
// lists the card's /music folder and the player's state; POST /api/music takes
// one .wav or .mp3 file as multipart field 'file' into /music (written to a
// .part file, synced, then renamed), refused whole when it is not playable
// music, the name is not card-safe, or the card is missing, small or full.

import { formRoute } from '../core/form-route.ts';
import type { Kernel } from '../core/kernel.ts';
import type { Route } from '../core/router.ts';
import { HalError } from '../hal/index.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { replaceEvery } from '../util/replace.ts';
import { recognise } from './formats.ts';
import type { MusicOptions } from './options.ts';
import { MUSIC_DIR, type MusicPlayer } from './player.ts';

/** Largest upload: the request body is held in RAM (PSRAM on the device) until it is written. */
export const UPLOAD_MAX = 8 * 1024 * 1024;
const MUSIC_NAME = /^[A-Za-z0-9][A-Za-z0-9 ()'&,._-]{0,58}\.(wav|mp3)$/i;
const UNSAFE_CHARS = /[^A-Za-z0-9 ()'&,._-]/;

/** A card-safe file name for an uploaded track, or null. */
export function musicName(raw: string): string | null {
  const base = replaceEvery(raw.split('/').pop()!.split('\\').pop()!.trim(), UNSAFE_CHARS, '_');
  return MUSIC_NAME.test(base) && !base.includes('..') ? base : null;
}

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
    formRoute({
      path: '/api/music',
      bodyLimit: UPLOAD_MAX,
      apply: (_fields, _req, files) => {
        const part = files.find((p) => p.name === 'file') ?? files[0];
        if (!part) return errorResponse(400, 'no-file', 'Send the track as the multipart field "file".');
        const name = musicName(part.filename);
        const lower = part.filename.toLowerCase();
        if (!lower.endsWith('.wav') && !lower.endsWith('.mp3')) return errorResponse(415, 'not-music', `${part.filename}: only .wav and .mp3 files can be added.`);
        if (!name) return errorResponse(400, 'bad-name', `${part.filename}: the name may have at most 64 letters, digits, spaces and ( ) ' & , . - _ characters.`);
        const tier = card.probe().tier;
        if (tier === 'none') return errorResponse(409, 'no-card', 'No SD card: music is kept on the card. Insert one and try again.');
        if (tier === 'unsupported') return errorResponse(409, 'unsupported', 'The SD card is under 1 GB, which is not supported: music cannot be added to it.');
        const data = part.data;
        const r = recognise(name, (o, l) => data.subarray(o, o + l), data.length);
        if (!r.ok) return errorResponse(415, 'not-music', `${name} cannot play (${r.reason}): only 16-bit PCM WAV and MP3 files can be added.`);
        const sd = k.hal.sd;
        const path = `${MUSIC_DIR}/${name}`;
        try {
          sd.mkdir(MUSIC_DIR);
          const w = sd.open(`${path}.part`, 'w');
          try {
            for (let at = 0; at < data.length; at += 4096) w.write(data.subarray(at, Math.min(data.length, at + 4096)));
            w.sync();
          } finally {
            w.close();
          }
          sd.rename(`${path}.part`, path);
        } catch (e) {
          try {
            sd.remove(`${path}.part`);
          } catch {
            // a pulled card
          }
          if (e instanceof HalError && e.code === 'ENOSPC') return errorResponse(409, 'card-full', `The SD card is full: ${name} (${data.length} bytes) did not fit.`);
          if (e instanceof HalError && e.code === 'ENOCARD') return errorResponse(409, 'no-card', 'The SD card was removed during the upload; nothing was added.');
          throw e;
        }
        k.log.info('music', `added ${name} (${data.length} bytes)`);
        return jsonResponse({ name, size: data.length, kind: r.info.kind, playable: r.info.kind === 'wav' || music.canMp3() });
      },
    }),
  ];
}
