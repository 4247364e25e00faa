// The music subsystem's face: the player (player.ts: tracks from the card's
// /music folder, 16-bit PCM WAV and MP3, through the speaker's music port),
// the media.play, media.pause and media.stop tools (tools.ts), the web page's
// Add music (GET and POST /api/music, routes.ts), and the console's PLAY and
// MEDIATEST (console.ts).
//
// For the chat subsystem: the face's command(text) is /play [track or stop or
// pause] (a bare /play queues the folder in name order, or resumes a pause);
// play(name, {queue}), pause(), stop(), status(), tracks().

import { whole, type Subsystem } from '../core/subsystem.ts';
import { musicCommands } from './console.ts';
import type { MusicOptions } from './options.ts';
import { MusicPlayer } from './player.ts';
import { musicRoutes } from './routes.ts';
import { clearUploadLeftovers } from './upload.ts';
import { mediaTools } from './tools.ts';

export type { MusicOptions } from './options.ts';

export const music: Subsystem<MusicOptions, MusicPlayer> = {
  name: 'music',
  needs: ['card', 'audio'],
  provides: { music: whole },
  start(k, o) {
    // Music goes through the speaker's mixer (src/audio/speaker.ts), with speech and effects.
    const player = new MusicPlayer({ sd: k.hal.sd, audio: o.audio.speaker.music, clock: k.hal.clock, log: k.log });
    // What an upload cut by a power cut or a pulled card left: gone before anyone lists the folder.
    const clear = (): void => {
      if (o.card.live()) clearUploadLeftovers(k.hal.sd);
    };
    clear();
    o.card.onChange(clear);
    return {
      provides: player,
      tools: mediaTools(player),
      routes: musicRoutes(k, player, o.card),
      commands: musicCommands(k, player, o.card, o.audio),
    };
  },
};
