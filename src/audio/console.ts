// The console's Audio group (test builds) and VOICE: MICREC [ms], SPKSAY
// <text>, TTSTG <text>, SFX <slug>, SFXVOL <0-100>, and VOICE <text> (the
// Assistant group: a turn with origin 'voice', its reply spoken while voice
// replies are on). PLAY and MEDIATEST are the music player's, TGSEND the
// chat messenger's.

import { CommandError } from '../core/console.ts';
import type { Context } from '../core/context.ts';
import type { Assistant } from '../turn/index.ts';
import { DEFAULT_SFX_VOL, type Audio } from './index.ts';
import { DEFAULT_RECORD_MS, MAX_RECORD_MS, MIN_RECORD_MS } from './mic.ts';
import { rmsOf, SFX_SLUGS, MIX_RATE } from './synth.ts';

const DECIMAL = /^[0-9]{1,6}$/;
/** The voice conversation's chat id (the owner's, spoken). */
export const VOICE_CHAT = 'voice';

export function installAudioConsole(ctx: Context, audio: Audio, assistant: Assistant): void {
  ctx.console.register({
    verb: 'MICREC',
    usage: '[ms]',
    help: `record ${DEFAULT_RECORD_MS / 1000} s (or ms, ${MIN_RECORD_MS}-${MAX_RECORD_MS}) from the microphone; saved to the card as /mem/rec/micrec.wav; refused while an update installs`,
    run: async (c) => {
      const arg = c.argv[0];
      if (c.argv.length > 1 || (arg !== undefined && (!DECIMAL.test(arg) || Number(arg) < MIN_RECORD_MS || Number(arg) > MAX_RECORD_MS))) {
        throw new CommandError(`usage: MICREC [ms] (${MIN_RECORD_MS}-${MAX_RECORD_MS})`);
      }
      const r = await audio.record(arg === undefined ? DEFAULT_RECORD_MS : Number(arg));
      if (!r.ok) throw new CommandError(r.reason);
      c.out(`recorded ${(r.pcm.length / r.rate).toFixed(2)} s at ${r.rate} Hz: samples=${r.pcm.length} peak=${r.peak} rms=${rmsOf(r.pcm)}${r.complete ? '' : ' (the microphone stopped early)'}`);
      c.out(r.saved ? `saved ${r.saved}` : `not saved: ${r.why}`);
    },
  });

  ctx.console.register({
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
  });

  ctx.console.register({
    verb: 'TTSTG',
    usage: '<text>',
    help: "send text as speech to the owner's chat as a voice message (Ogg Opus from the speech provider)",
    run: async (c) => {
      if (!c.args.trim()) throw new CommandError('usage: TTSTG <text>');
      const r = await audio.voiceMessage(c.args);
      if (!r.ok) throw new CommandError(r.reason);
      c.out(`voice message of ${r.bytes} bytes sent to chat ${r.chat}`);
    },
  });

  ctx.console.register({
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
  });

  ctx.console.register({
    verb: 'SFXVOL',
    usage: '<0-100>',
    help: `the speaker volume for effects and speech (sfxVol, default ${DEFAULT_SFX_VOL}; 0 silent); bare shows it`,
    run: (c) => {
      if (c.argv.length === 0) return c.out(`sfxVol=${audio.volume()}${ctx.actions.config('sfxVol') === undefined ? ' (default)' : ''}`);
      const v = c.argv.length === 1 ? c.argv[0]! : '';
      if (!DECIMAL.test(v) || Number(v) > 100) throw new CommandError('usage: SFXVOL <0-100>');
      const r = ctx.actions.apply({ kind: 'config', values: { sfxVol: Number(v) } });
      if (!r.ok) throw new CommandError(r.note);
      c.out(`sfxVol=${audio.volume()}${audio.volume() === 0 ? ' (silent)' : ''}`);
    },
  });

  ctx.console.register({
    verb: 'VOICE',
    usage: '<text>',
    help: 'run a turn as if the owner said text (origin voice) and speak the reply while voice replies (ttsOn) are on',
    run: async (c) => {
      if (!c.args.trim()) throw new CommandError('usage: VOICE <text>');
      if (ctx.ota.installing()) throw new CommandError('busy: an update is installing; voice is refused until it is done');
      const release = ctx.ring.hold(1);
      let out;
      try {
        out = await assistant.ownerTurn(VOICE_CHAT, c.args, 'voice');
      } finally {
        release();
      }
      for (const line of out.reply.split('\n')) c.out(line);
      if (out.ask) c.out(`ASK: ${out.ask}`);
      if (out.status !== 'ok') throw new CommandError(out.status === 'deferred' ? 'deferred (heap below the turn floor)' : (out.error ?? 'turn failed'));
      const said = [out.reply, out.ask].filter((s) => s.trim()).join(' ');
      if (!said) return c.out('not spoken: the reply is empty');
      const t = audio.speak(said, { voiceReply: true });
      if (!t.ok) {
        if (t.degraded) return c.out(`not spoken: ${t.reason}`);
        throw new CommandError(t.reason);
      }
      const f = await t.fetched;
      if (!f.ok) throw new CommandError(f.reason);
      c.out(`spoken: ${(f.samples / MIX_RATE).toFixed(2)} s`);
    },
  });
}
