// Add music (POST /api/music) as it arrives: the file part is written to a
// temporary file in /music as its bytes come, the card's free space judged
// before (from Content-Length) and during, and the track renamed into place
// only when the whole body has come and the player recognises it. A refused,
// cut-off or unplayable upload leaves nothing: the temporary file is removed
// (and a power cut's leftover when the card is next used), and the folder's
// listing never shows one (names starting with '.' or ending '.part' are not
// tracks).

import type { Kernel } from '../core/kernel.ts';
import type { Upload } from '../core/upload-route.ts';
import { HalError, type SdCard, type SdFile } from '../hal/index.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpResponse } from '../net/http/types.ts';
import { replaceEvery } from '../util/replace.ts';
import { recognise } from './formats.ts';
import type { MusicOptions } from './options.ts';
import { MUSIC_DIR, type MusicPlayer } from './player.ts';

/** Largest upload (the route's body limit): a track of a few minutes, as the web page offers. */
export const UPLOAD_MAX = 8 * 1024 * 1024;
/** Bytes written to the card per call. */
const WRITE_CHUNK = 4096;
const TEMP_PREFIX = '.upload-';
const MUSIC_NAME = /^[A-Za-z0-9][A-Za-z0-9 ()'&,._-]{0,58}\.(wav|mp3)$/i;
const UNSAFE_CHARS = /[^A-Za-z0-9 ()'&,._-]/;

/** A card-safe file name for an uploaded track, or null. */
export function musicName(raw: string): string | null {
  const base = replaceEvery(raw.split('/').pop()!.split('\\').pop()!.trim(), UNSAFE_CHARS, '_');
  return MUSIC_NAME.test(base) && !base.includes('..') ? base : null;
}

/** Removes what uploads cut by a power cut or a pulled card left in /music. */
export function clearUploadLeftovers(sd: SdCard): void {
  try {
    if (!sd.stat(MUSIC_DIR)) return;
    for (const e of sd.list(MUSIC_DIR)) if (!e.isDir && (e.name.startsWith(TEMP_PREFIX) || e.name.endsWith('.part'))) sd.remove(`${MUSIC_DIR}/${e.name}`);
  } catch {
    // no card, or it went: the next use clears them
  }
}

/** Makes one Upload per request; each writes its own temporary file. */
export function musicUploads(k: Kernel, music: MusicPlayer, card: MusicOptions['card']): () => Upload {
  let serial = 0;
  return () => {
    const sd = k.hal.sd;
    const temp = `${MUSIC_DIR}/${TEMP_PREFIX}${++serial}.part`;
    let out: SdFile | null = null;
    let created = false;
    let name = '';
    let free: number | null = null;
    let expected: number | null = null;
    let written = 0;

    const drop = (): void => {
      if (out) {
        try {
          out.close();
        } catch {
          // the card is gone: nothing to close
        }
        out = null;
      }
      if (!created) return;
      created = false;
      try {
        sd.remove(temp);
      } catch {
        // a pulled card: removed when the card is next used
      }
    };
    const full = (size: number): HttpResponse => errorResponse(409, 'card-full', `The SD card is full: ${name} (${size} bytes) did not fit.`);
    const failed = (e: unknown, size: number): HttpResponse => {
      drop();
      if (e instanceof HalError && e.code === 'ENOSPC') return full(size);
      if (e instanceof HalError && e.code === 'ENOCARD') return errorResponse(409, 'no-card', 'The SD card was removed during the upload; nothing was added.');
      throw e;
    };

    return {
      file(part, size) {
        drop();
        written = 0;
        expected = size;
        const lower = part.filename.toLowerCase();
        const safe = musicName(part.filename);
        if (!lower.endsWith('.wav') && !lower.endsWith('.mp3')) return errorResponse(415, 'not-music', `${part.filename}: only .wav and .mp3 files can be added.`);
        if (!safe) return errorResponse(400, 'bad-name', `${part.filename}: the name may have at most 64 letters, digits, spaces and ( ) ' & , . - _ characters.`);
        name = safe;
        const state = card.probe();
        if (state.tier === 'none') return errorResponse(409, 'no-card', 'No SD card: music is kept on the card. Insert one and try again.');
        if (state.tier === 'unsupported') return errorResponse(409, 'unsupported', 'The SD card is under 1 GB, which is not supported: music cannot be added to it.');
        free = state.freeBytes;
        if (size !== null && free !== null && size > free) return full(size);
        try {
          sd.mkdir(MUSIC_DIR);
          out = sd.open(temp, 'w');
          created = true;
        } catch (e) {
          return failed(e, size ?? 0);
        }
        return null;
      },
      data(bytes) {
        if (!out) return null;
        written += bytes.length;
        if (free !== null && written > free) {
          drop();
          return full(Math.max(written, expected ?? 0));
        }
        try {
          for (let at = 0; at < bytes.length; at += WRITE_CHUNK) out.write(bytes.subarray(at, Math.min(bytes.length, at + WRITE_CHUNK)));
        } catch (e) {
          return failed(e, Math.max(written, expected ?? 0));
        }
        return null;
      },
      end(_fields, file) {
        if (!file || !out) {
          drop();
          return errorResponse(400, 'no-file', 'Send the track as the multipart field "file".');
        }
        const path = `${MUSIC_DIR}/${name}`;
        try {
          out.sync();
          out.close();
          out = null;
          const r = recognise(name, (o, l) => sd.read(temp, o, l), written);
          if (!r.ok) {
            drop();
            return errorResponse(415, 'not-music', `${name} cannot play (${r.reason}): only 16-bit PCM WAV and MP3 files can be added.`);
          }
          sd.rename(temp, path);
          created = false;
          k.log.info('music', `added ${name} (${written} bytes)`);
          return jsonResponse({ name, size: written, kind: r.info.kind, playable: r.info.kind === 'wav' || music.canMp3() });
        } catch (e) {
          return failed(e, written);
        }
      },
      abort: drop,
    };
  };
}
