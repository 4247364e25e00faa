// Voice in (its one face): the owner talks to the device and it answers
// aloud. The pieces: vad.ts (the end-of-speech detector), capture.ts (where
// an utterance goes while spoken), voice.ts (the state machine: listening,
// thinking, speaking, stop), ptt.ts (push to talk and the stop from touch
// and a button), console.ts (MICREC, VOICE, VOICE?), and chat voice notes
// (notes.ts). Speech to text itself is src/stt's.
//
// startVoice() takes what voice needs in ONE options object (VoiceOptions
// plus the console's and the notes' needs) and returns the face: the
// session, the gesture hook for the screen, the console commands, a status
// section and a busy probe for updates.

import type { Command } from '../core/console.ts';
import { voiceCommands, type VoiceConsoleNeeds } from './console.ts';
import { VoiceNotes, type NoteNeeds } from './notes.ts';
import { PushToTalk } from './ptt.ts';
import { VoiceSession, type VoiceOptions, type VoiceOutcome } from './voice.ts';

export { VOICE_CHAT, VoiceSession, type VoiceOptions, type VoiceOutcome, type VoiceState } from './voice.ts';
export { END_SILENCE_MS, MAX_UTTERANCE_MS, NO_SPEECH_MS, SPEECH_RMS_MIN, Vad } from './vad.ts';
export type { GestureKind } from './ptt.ts';

export interface VoiceStartOptions extends VoiceOptions, Omit<VoiceConsoleNeeds, 'session'>, Omit<NoteNeeds, 'session'> {}

export interface VoiceFace {
  session: VoiceSession;
  ptt: PushToTalk;
  notes: VoiceNotes;
  commands: Command[];
  status(): Record<string, unknown>;
  /** Updates wait while voice listens, thinks or speaks. */
  busy(): boolean;
  stop(): void;
}

export function startVoice(o: VoiceStartOptions): VoiceFace {
  const session = new VoiceSession(o);
  const ptt = new PushToTalk(session, (out: VoiceOutcome) => {
    if (!out.ok && !out.cancelled) o.log.warn('voice', `push to talk: ${out.reason}`);
  });
  const notes = new VoiceNotes({ ...o, session });
  return {
    session,
    ptt,
    notes,
    commands: voiceCommands({ ...o, session }),
    status: () => ({ voice: { state: session.state(), turns: session.turns, stops: session.stops, last: session.last?.outcome ?? null } }),
    busy: () => session.state() === 'listening',
    stop: () => void session.stop(),
  };
}
