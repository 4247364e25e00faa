// The music subsystem's console commands: PLAY [name or stop or pause] (the
// chat's /play, through the player's command()) and MEDIATEST (a test tone
// through the speaker's mixer, an MP3 frame decoded, the /music folder read).

import { CommandError, type Command } from '../core/console.ts';
import type { Kernel } from '../core/kernel.ts';
import type { MusicOptions } from './options.ts';
import type { MusicPlayer } from './player.ts';

export function musicCommands(k: Kernel, music: MusicPlayer, card: MusicOptions['card'], audio: MusicOptions['audio']): Command[] {
  return [
    {
      verb: 'PLAY',
      usage: '[name or stop or pause]',
      help: 'play music from /music (bare: the folder in name order, or resume), stop, or pause',
      run: (c) => {
        const r = music.command(c.args);
        if (!r.ok) throw new CommandError(r.message);
        c.out(r.message);
      },
    },
    {
      verb: 'MEDIATEST',
      maxArgs: 0,
      help: 'play a 0.25 s 440 Hz test tone through the speaker (its mixer, at sfxVol) and wait until it has played, decode a test MP3 frame, and check the /music folder',
      run: async (c) => {
        if (music.state() === 'playing') throw new CommandError('music is playing: PLAY stop first');
        if (!k.hal.audio.present) c.out('tone=none (this board has no speaker)');
        else {
          const v = audio.tone(440, 250);
          if (!v) throw new CommandError('busy: too many sounds at once');
          await v.played();
          c.out(`tone=ok frames=${v.taken} rate=${audio.speaker.streamRate()} peak=${Math.round(v.peak)}`);
        }
        const d = music.decodeCheck();
        c.out(d ? `mp3=yes decoded=${d.samples}${d.silent ? ' silent' : ''}` : 'mp3=no');
        if (!card.live()) return c.out('music=no-card');
        const tracks = music.tracks();
        const n = (kind: string): number => tracks.filter((x) => x.playable && x.kind === kind).length;
        c.out(`music=${tracks.length} wav=${n('wav')} mp3=${n('mp3')} skipped=${tracks.filter((x) => !x.playable).length}`);
      },
    },
  ];
}
