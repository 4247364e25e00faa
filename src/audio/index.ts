// The audio subsystem's face: device sound (the Audio, audio.ts: sound
// effects, speech and the microphone), the settings they follow, the
// reply.speak tool (tools.ts), the console's SPKSAY, TTSTG, SFX and SFXVOL
// (console.ts), the audio section of the state snapshot, and the tts action's
// speaker. What each setting means (decision):
//
//   sfxVol    0-100 (default 50): the speaker's volume for everything the
//             device says or sounds by itself (effects, speech, the
//             self-test tone). 0 is silent: effects play nothing and speech
//             is refused. Music keeps its own level.
//   sfxLvlO,  0-100 (default 100): the effects' level in Orchestrator (O)
//   sfxLvlN   and Notifier (N) mode, on top of sfxVol (gain = sfxVol/100 x
//             level/100), so effects can be quieter, or off, in one mode
//             without touching speech.
//   sfxTheme  classic (default), soft, retro (src/audio/synth.ts); an
//             unknown name plays classic.
//   ttsOn     spoken replies (default off): VOICE's reply, reply.speak and
//             tts actions speak only while it is on. SPKSAY and TTSTG are
//             the engineer's explicit requests and do not ask it.
//   ttsProv,  the speech provider (openai, the default, or custom) and its
//   ttsVoice  voice (default alloy), src/audio/tts.ts.
//
// Speech is asked for as WAV and streamed into the speaker's mixer as it
// arrives (resampled to MIX_RATE when the provider answers at another
// rate), at most MAX_SPEECH_S seconds per utterance and SPEECH_CAP_BYTES of
// text (cut at a character). How sounds and music share the speaker (one
// mixer; music ducked under speech, never paused or dropped):
// src/audio/speaker.ts.

import { whole, type Subsystem } from '../core/subsystem.ts';
import { Audio } from './audio.ts';
import { audioCommands } from './console.ts';
import type { AudioNeeds } from './options.ts';
import { themeOf } from './synth.ts';
import { audioTools } from './tools.ts';

export { DEFAULT_SFX_LEVEL } from './audio.ts';
export type { AudioNeeds } from './options.ts';
export { DEFAULT_TTS_PROVIDER, DEFAULT_TTS_VOICE, TTS_PROVIDERS, ttsEndpoint, type TtsKeys } from './tts.ts';

// What the voice subsystem (src/voice/) uses of audio.
export { wavHeader } from './wav.ts';
export { DEFAULT_RECORD_MS, MAX_RECORD_MS, MIN_RECORD_MS } from './mic.ts';
export { MIX_RATE, rmsOf } from './synth.ts';

/** What the audio subsystem needs (options.ts); it makes the Audio and provides it as the part audio. */
export type AudioOptions = AudioNeeds;

export const audio: Subsystem<AudioOptions, Audio> = {
  name: 'audio',
  needs: ['providers', 'actions', 'updates', 'client', 'ring', 'card'],
  later: ['chat'],
  provides: { audio: whole },
  start(k, o) {
    const { actions } = o;
    // The speaker's mixer (speech, effects, music) and the microphone.
    const a = new Audio(k.hal, k.log);
    a.attach({ mode: k.mode, providers: o.providers, actions, updates: o.updates, client: o.client, chat: o.chat, ring: o.ring, card: o.card });
    o.updates.addBusyProbe(() => a.speaker.speaking() || a.recorder.busy());
    return {
      provides: a,
      tools: audioTools(a),
      commands: audioCommands(a, actions),
      status: {
        sections: [
          () => ({
            audio: {
              volume: a.volume(),
              effectLevel: a.effectLevel().level,
              theme: themeOf(actions.config('sfxTheme')),
              voiceReplies: a.voiceReplies(),
              speaking: a.speaker.speaking(),
              recording: a.recorder.busy(),
            },
          }),
        ],
      },
    };
  },
};
