// The music subsystem's tools: media.play, media.pause and media.stop, over
// the player (src/music/player.ts).

import { fail, ok, type ToolSpec } from '../core/tools/types.ts';
import type { MusicPlayer } from './player.ts';

export function mediaTools(music: MusicPlayer): ToolSpec[] {
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
