// Voice in (its one face): the owner talks to the device and it answers
// aloud. The pieces: vad.ts (the end-of-speech detector), capture.ts (where
// an utterance goes while spoken), voice.ts (the state machine: listening,
// thinking, speaking, stop), ptt.ts (push to talk and the stop from touch
// and a button), console.ts (MICREC, VOICE, VOICESTOP, VOICE?), and chat voice notes
// (notes.ts). Speech to text itself is src/stt's.
//
// voice declares what it needs of others in VoiceOptions (narrow: only what
// it calls) and takes the microphone, the card, the clock, randomness, the
// heap figures and the board's buttons from the kernel's HAL. It provides the
// session, push to talk (the screen's gesture hook), the voice-note sink the
// chat plugs in, and stop(); it registers its console commands, the voice
// section of the state snapshot, and a busy probe that holds updates while it
// listens. Push to talk also rides a board button named main (ring-tft's).

import type { Kernel } from '../core/kernel.ts';
import { whole, type Subsystem } from '../core/subsystem.ts';
import { MIX_RATE, rmsOf } from '../audio/index.ts';
import type { ClientRequest, ClientResult } from '../net/http/client.ts';
import type { SttKeys } from '../stt/index.ts';
import type { TtsKeys } from '../audio/index.ts';
import { voiceRoutes, type VoiceSettingsPort } from './routes.ts';
import { voiceCommands, type RecordLike } from './console.ts';
import { VoiceNotes } from './notes.ts';
import { PushToTalk } from './ptt.ts';
import { VoiceSession, type SessionNeeds, type SpeakLike, type SpeechStreamResult, type VoiceOutcome } from './voice.ts';

/** The button that talks (board.json buttons). */
const PTT_BUTTON = 'main';

/** What voice needs from other subsystems, in one options object. */
export interface VoiceOptions {
  /** The device's HTTP client: transcription requests (src/net/http/client.ts). */
  client: { request(req: ClientRequest): Promise<ClientResult> };
  /** Provider keys and the custom endpoint's transcription and speech roles (src/providers' settings; human-web-only). */
  providers: SttKeys & TtsKeys;
  /** The device actions: sttProv, and the voice settings the web page sets (src/device's actions). */
  actions: VoiceSettingsPort;
  /** Updates (src/ota): capture is refused while one installs, and one waits while voice listens. */
  updates: { installing(): boolean; addBusyProbe(probe: () => boolean): void };
  /** Whether the card is mounted and writable (recordings go there, else to a bounded RAM buffer). */
  card: { live(): boolean };
  /** The ring's held animations: listening, thinking, speaking (src/device's ring engine). */
  ring: SessionNeeds['ring'];
  /** Memory (src/memory/): its episodic log, for the transcript rows. */
  memory: { episodic: SessionNeeds['episodic'] };
  /** The turn engine (src/turn): the voice turn, cancelled by a stop. */
  engine: SessionNeeds['turns'];
  /** The sound (src/audio): the microphone's lock, MICREC's clip, the spoken reply. */
  audio: {
    recorder: { open: SessionNeeds['openMic'] };
    record(ms: number): Promise<RecordLike>;
    speak(text: string, opts: { voiceReply: boolean }): SpeakLike;
    speakStream(opts: { voiceReply: boolean }): SpeechStreamResult;
  };
}

export interface VoiceFace {
  session: VoiceSession;
  /** The screen's gesture hook and the state line. */
  ptt: PushToTalk;
  /** Chat voice notes (the chat plugs this in as its voice-note sink). */
  notes: VoiceNotes;
  /** Stops a voice turn at once (shutdown). */
  stop(): void;
}

export const voice: Subsystem<VoiceOptions, VoiceFace> = {
  name: 'voice',
  needs: ['client', 'providers', 'actions', 'updates', 'card', 'ring', 'memory', 'engine', 'audio'],
  provides: { voice: whole },
  start(k: Kernel, o: VoiceOptions) {
    const random = (bytes: Uint8Array): void => k.hal.system.random(bytes);
    const session = new VoiceSession({
      mic: k.hal.mic,
      sd: k.hal.sd,
      clock: k.hal.clock,
      random,
      log: k.log,
      client: o.client,
      keys: o.providers,
      config: (key) => o.actions.config(key),
      installing: () => o.updates.installing(),
      mode: () => k.mode,
      cardLive: () => o.card.live(),
      openMic: (onSamples) => o.audio.recorder.open(onSamples),
      ring: o.ring,
      episodic: o.memory.episodic,
      turns: o.engine,
      speak: (text) => o.audio.speak(text, { voiceReply: true }),
      speakStream: () => o.audio.speakStream({ voiceReply: true }),
      heap: () => k.hal.system.heap(),
      gc: () => k.hal.system.gc(),
    });
    const ptt = new PushToTalk(session, (out: VoiceOutcome) => {
      if (!out.ok && !out.cancelled) k.log.warn('voice', `push to talk: ${out.reason}`);
    });
    const notes = new VoiceNotes({ session, keys: o.providers, config: (key) => o.actions.config(key), client: o.client, random });
    // Updates wait while voice listens.
    o.updates.addBusyProbe(() => session.state() === 'listening');
    // Push to talk on a board button named main (ring-tft's; the panels' boot button is left alone).
    const buttons = k.hal.buttons;
    if (buttons?.names.includes(PTT_BUTTON)) buttons.onButton = (name, down) => name === PTT_BUTTON && ptt.button(down);
    const stop = (): void => void session.stop();
    return {
      provides: { session, ptt, notes, stop },
      commands: voiceCommands({ session, record: (ms) => o.audio.record(ms), rmsOf, mixRate: MIX_RATE }),
      routes: voiceRoutes(o.actions, o.providers, k.log),
      status: { sections: [() => ({ voice: { state: session.state(), turns: session.turns, stops: session.stops, last: session.last?.outcome ?? null } })] },
      stop,
    };
  },
};
