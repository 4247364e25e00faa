// The console's Audio group (test builds): SPKSAY <text>, TTSTG <text>,
// SFX <slug>, SFXVOL <0-100>. MICREC and VOICE are voice's (src/voice/
// console.ts), PLAY and MEDIATEST the music player's, TGSEND the chat
// messenger's.

import { CommandError, type Command } from '../core/console.ts';
import { DEFAULT_SFX_VOL, type Audio } from './audio.ts';
import type { AudioActions } from './options.ts';
import { SFX_SLUGS, MIX_RATE } from './synth.ts';

const DECIMAL = /^[0-9]{1,6}$/;

export function audioCommands(audio: Audio, actions: AudioActions): Command[] {
  return [
    {
      verb: 'SPKSAY',
      usage: '<text>',
      help: 'speak text on the speaker through the speech provider (ttsProv, ttsVoice) and wait until it has played',
      run: async (c) => {
        if (!c.args.trim()) throw new CommandError('usage: SPKSAY <text>');
        const t = audio.speak(c.args, { voiceReply: false });
        if (!t.ok) throw new CommandError(t.reason);
        const f = await t.fetched;
        if (!f.ok) throw new CommandError(f.reason);
        c.out(`speech ${(f.samples / MIX_RATE).toFixed(2)} s at ${MIX_RATE} Hz, volume ${audio.volume()}${f.cut ? ' (cut)' : ''}`);
        await t.played;
        c.out(`spoken (peak ${Math.round(t.voice.peak)})`);
      },
    },
    {
      verb: 'TTSTG',
      usage: '<text>',
      help: "send text as speech to the owner's chat as a voice message (Ogg Opus from the speech provider)",
      run: async (c) => {
        if (!c.args.trim()) throw new CommandError('usage: TTSTG <text>');
        const r = await audio.voiceMessage(c.args);
        if (!r.ok) throw new CommandError(r.reason);
        c.out(`voice message of ${r.bytes} bytes sent to chat ${r.chat}`);
      },
    },
    {
      verb: 'SFX',
      usage: '<slug>',
      help: `play a sound effect (${SFX_SLUGS.join(', ')}) at sfxVol and the mode's level, in the sfxTheme`,
      run: (c) => {
        if (c.argv.length !== 1) throw new CommandError(`usage: SFX <slug> (${SFX_SLUGS.join(', ')})`);
        const r = audio.sfx(c.argv[0]!);
        if (!r.ok) throw new CommandError(r.reason);
        const what = `sfx=${r.slug} theme=${r.theme} volume=${r.volume} ${r.levelKey}=${r.level} gain=${r.gain.toFixed(2)} samples=${r.samples} ms=${Math.round((r.samples * 1000) / MIX_RATE)}`;
        c.out(r.played ? `${what} peak=${r.peak}` : `${what} silent (${r.silent}): nothing played`);
      },
    },
    {
      verb: 'SFXVOL',
      usage: '<0-100>',
      help: `the speaker volume for effects and speech (sfxVol, default ${DEFAULT_SFX_VOL}; 0 silent); bare shows it`,
      run: (c) => {
        if (c.argv.length === 0) return c.out(`sfxVol=${audio.volume()}${actions.config('sfxVol') === undefined ? ' (default)' : ''}`);
        const v = c.argv.length === 1 ? c.argv[0]! : '';
        if (!DECIMAL.test(v) || Number(v) > 100) throw new CommandError('usage: SFXVOL <0-100>');
        const r = actions.apply({ kind: 'config', values: { sfxVol: Number(v) } });
        if (!r.ok) throw new CommandError(r.note);
        c.out(`sfxVol=${audio.volume()}${audio.volume() === 0 ? ' (silent)' : ''}`);
      },
    },
  ];
}
