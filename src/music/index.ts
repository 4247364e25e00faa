// The music subsystem's face (ctx.music, a MusicPlayer) and its wiring: the
// media.play, media.pause and media.stop tools, the web page's Add music
// (GET /api/music lists the folder and the player; POST /api/music takes one
// .wav or .mp3 file as multipart field 'file' into /music), and the console's
// PLAY [name or stop or pause] and MEDIATEST.
//
// For the chat subsystem: ctx.music.command(text) is /play [track or stop or
// pause] (a bare /play queues the folder in name order, or resumes a pause);
// ctx.music.play(name, {queue}), pause(), stop(), status(), tracks().

import { CommandError } from '../core/console.ts';
import type { Context } from '../core/context.ts';
import { HalError } from '../hal/index.ts';
import { fail, ok, type ToolSpec } from '../core/tools/types.ts';
import { parseForm } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import { recognise } from './formats.ts';
import { MUSIC_DIR, type MusicPlayer } from './player.ts';
import { replaceEvery } from '../util/replace.ts';

/** Largest upload: the request body is held in RAM (PSRAM on the device) until it is written. */
export const UPLOAD_MAX = 8 * 1024 * 1024;
const MUSIC_NAME = /^[A-Za-z0-9][A-Za-z0-9 ()'&,._-]{0,58}\.(wav|mp3)$/i;
const UNSAFE_CHARS = /[^A-Za-z0-9 ()'&,._-]/;

/** A card-safe file name for an uploaded track, or null. */
export function musicName(raw: string): string | null {
  const base = replaceEvery(raw.split('/').pop()!.split('\\').pop()!.trim(), UNSAFE_CHARS, '_');
  return MUSIC_NAME.test(base) && !base.includes('..') ? base : null;
}

function mediaTools(music: MusicPlayer): ToolSpec[] {
  return [
    {
      name: 'media.play',
      description: 'Play music from the SD card\'s /music folder. name: a track (or part of its name); without it the whole folder in name order. queue true appends instead of replacing the queue.',
      schema: { type: 'object', properties: { name: { type: 'string' }, queue: { type: 'boolean', default: false } }, additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: (a) => {
        const name = typeof a['name'] === 'string' && a['name'].trim() ? a['name'].trim() : null;
        const r = music.play(name, { queue: a['queue'] === true });
        return r.ok ? ok(r.message) : fail('refused', r.message);
      },
    },
    {
      name: 'media.pause',
      description: 'Pause the music, keeping its position (media.play without a name resumes).',
      schema: { type: 'object', properties: {}, additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: () => {
        const r = music.pause();
        return r.ok ? ok(r.message) : fail('refused', r.message);
      },
    },
    {
      name: 'media.stop',
      description: 'Stop the music and clear the queue.',
      schema: { type: 'object', properties: {}, additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: () => ok(music.stop().message),
    },
  ];
}

export function installMusic(ctx: Context): void {
  const music = ctx.music;
  for (const spec of mediaTools(music)) ctx.tools.register(spec);

  ctx.router.add({
    method: 'GET',
    path: '/api/music',
    handler: () => {
      if (!ctx.card.live()) return jsonResponse({ present: false, tracks: [], player: music.status(), mp3: music.canMp3() });
      try {
        return jsonResponse({ present: true, tracks: music.tracks(), player: music.status(), mp3: music.canMp3() });
      } catch (e) {
        return errorResponse(409, 'card', `The music folder cannot be read: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  });

  ctx.router.add({
    method: 'POST',
    path: '/api/music',
    bodyLimit: UPLOAD_MAX,
    handler: (req) => {
      const f = parseForm(req);
      if (!f.ok) return errorResponse(400, 'bad-request', f.error);
      const part = f.form.files.find((p) => p.name === 'file') ?? f.form.files[0];
      if (!part) return errorResponse(400, 'no-file', 'Send the track as the multipart field "file".');
      const name = musicName(part.filename);
      const lower = part.filename.toLowerCase();
      if (!lower.endsWith('.wav') && !lower.endsWith('.mp3')) return errorResponse(415, 'not-music', `${part.filename}: only .wav and .mp3 files can be added.`);
      if (!name) return errorResponse(400, 'bad-name', `${part.filename}: the name may have at most 64 letters, digits, spaces and ( ) ' & , . - _ characters.`);
      const tier = ctx.card.probe().tier;
      if (tier === 'none') return errorResponse(409, 'no-card', 'No SD card: music is kept on the card. Insert one and try again.');
      if (tier === 'unsupported') return errorResponse(409, 'unsupported', 'The SD card is under 1 GB, which is not supported: music cannot be added to it.');
      const data = part.data;
      const r = recognise(name, (o, l) => data.subarray(o, o + l), data.length);
      if (!r.ok) return errorResponse(415, 'not-music', `${name} cannot play (${r.reason}): only 16-bit PCM WAV and MP3 files can be added.`);
      const sd = ctx.hal.sd;
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
      ctx.log.info('music', `added ${name} (${data.length} bytes)`);
      return jsonResponse({ name, size: data.length, kind: r.info.kind, playable: r.info.kind === 'wav' || music.canMp3() });
    },
  });

  ctx.console.register({
    verb: 'PLAY',
    usage: '[name or stop or pause]',
    help: 'play music from /music (bare: the folder in name order, or resume), stop, or pause',
    run: (c) => {
      const r = music.command(c.args);
      if (!r.ok) throw new CommandError(r.message);
      c.out(r.message);
    },
  });

  ctx.console.register({
    verb: 'MEDIATEST',
    maxArgs: 0,
    help: 'play a 0.25 s 440 Hz test tone through the speaker (its mixer, at sfxVol) and wait until it has played, decode a test MP3 frame, and check the /music folder',
    run: async (c) => {
      if (music.state() === 'playing') throw new CommandError('music is playing: PLAY stop first');
      if (!ctx.hal.audio.present) c.out('tone=none (this board has no speaker)');
      else {
        const v = ctx.audio.tone(440, 250);
        if (!v) throw new CommandError('busy: too many sounds at once');
        await v.played();
        c.out(`tone=ok frames=${v.taken} rate=${ctx.audio.speaker.streamRate()} peak=${Math.round(v.peak)}`);
      }
      const d = music.decodeCheck();
      c.out(d ? `mp3=yes decoded=${d.samples}${d.silent ? ' silent' : ''}` : 'mp3=no');
      if (!ctx.card.live()) return c.out('music=no-card');
      const tracks = music.tracks();
      const n = (k: string): number => tracks.filter((x) => x.playable && x.kind === k).length;
      c.out(`music=${tracks.length} wav=${n('wav')} mp3=${n('mp3')} skipped=${tracks.filter((x) => !x.playable).length}`);
    },
  });
}
