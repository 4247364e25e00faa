// Add music (POST /api/music) as it arrives: the file part is written to a
// temporary file in /music as its bytes come, the card's free space judged
// before (from Content-Length) and during, and the track renamed into place
// only when the whole body has come and the player recognises it. A refused,
// cut-off or unplayable upload leaves nothing: the temporary file is removed
// (and a power cut's leftover when the card is next used), and the folder's
// listing never shows one (names starting with '.' or ending '.part' are not
// tracks).

import type { Kernel } from '../core/kernel.ts';
import type { FileHead, Upload, UploadedFile } from '../core/upload-route.ts';
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
  return () => new MusicUpload(k, music, card, `${MUSIC_DIR}/${TEMP_PREFIX}${++serial}.part`);
}

class MusicUpload implements Upload {
  private readonly sd: SdCard;
  private out: SdFile | null = null;
  private created = false;
  private name = '';
  private free: number | null = null;
  private expected: number | null = null;
  private written = 0;

  constructor(
    private readonly k: Kernel,
    private readonly music: MusicPlayer,
    private readonly card: MusicOptions['card'],
    private readonly temp: string,
  ) {
    this.sd = k.hal.sd;
  }

  private drop(): void {
    if (this.out) {
      try {
        this.out.close();
      } catch {
        // the card is gone: nothing to close
      }
      this.out = null;
    }
    if (!this.created) return;
    this.created = false;
    try {
      this.sd.remove(this.temp);
    } catch {
      // a pulled card: removed when the card is next used
    }
  }

  private full(size: number): HttpResponse {
    return errorResponse(409, 'card-full', `The SD card is full: ${this.name} (${size} bytes) did not fit.`);
  }

  private failed(e: unknown, size: number): HttpResponse {
    this.drop();
    if (e instanceof HalError && e.code === 'ENOSPC') return this.full(size);
    if (e instanceof HalError && e.code === 'ENOCARD') return errorResponse(409, 'no-card', 'The SD card was removed during the upload; nothing was added.');
    throw e;
  }

  file(part: FileHead, size: number | null): HttpResponse | null {
    this.drop();
    this.written = 0;
    this.expected = size;
    const lower = part.filename.toLowerCase();
    const safe = musicName(part.filename);
    if (!lower.endsWith('.wav') && !lower.endsWith('.mp3')) return errorResponse(415, 'not-music', `${part.filename}: only .wav and .mp3 files can be added.`);
    if (!safe) return errorResponse(400, 'bad-name', `${part.filename}: the name may have at most 64 letters, digits, spaces and ( ) ' & , . - _ characters.`);
    this.name = safe;
    const state = this.card.probe();
    if (state.tier === 'none') return errorResponse(409, 'no-card', 'No SD card: music is kept on the card. Insert one and try again.');
    if (state.tier === 'unsupported') return errorResponse(409, 'unsupported', 'The SD card is under 1 GB, which is not supported: music cannot be added to it.');
    this.free = state.freeBytes;
    if (size !== null && this.free !== null && size > this.free) return this.full(size);
    try {
      this.sd.mkdir(MUSIC_DIR);
      this.out = this.sd.open(this.temp, 'w');
      this.created = true;
    } catch (e) {
      return this.failed(e, size ?? 0);
    }
    return null;
  }

  data(bytes: Uint8Array): HttpResponse | null {
    const out = this.out;
    if (!out) return null;
    this.written += bytes.length;
    if (this.free !== null && this.written > this.free) {
      this.drop();
      return this.full(Math.max(this.written, this.expected ?? 0));
    }
    try {
      for (let at = 0; at < bytes.length; at += WRITE_CHUNK) out.write(bytes.subarray(at, Math.min(bytes.length, at + WRITE_CHUNK)));
    } catch (e) {
      return this.failed(e, Math.max(this.written, this.expected ?? 0));
    }
    return null;
  }

  end(_fields: Map<string, string>, file: UploadedFile | null): HttpResponse {
    const { sd, name, temp } = this;
    if (!file || !this.out) {
      this.drop();
      return errorResponse(400, 'no-file', 'Send the track as the multipart field "file".');
    }
    const path = `${MUSIC_DIR}/${name}`;
    try {
      this.out.sync();
      this.out.close();
      this.out = null;
      const r = recognise(name, (o, l) => sd.read(temp, o, l), this.written);
      if (!r.ok) {
        this.drop();
        return errorResponse(415, 'not-music', `${name} cannot play (${r.reason}): only 16-bit PCM WAV and MP3 files can be added.`);
      }
      sd.rename(temp, path);
      this.created = false;
      this.k.log.info('music', `added ${name} (${this.written} bytes)`);
      return jsonResponse({ name, size: this.written, kind: r.info.kind, playable: r.info.kind === 'wav' || this.music.canMp3() });
    } catch (e) {
      return this.failed(e, this.written);
    }
  }

  abort(): void {
    this.drop();
  }
}
