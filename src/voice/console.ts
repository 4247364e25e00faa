// The voice console commands (test builds): MICREC [ms] (moved here from
// src/audio: the microphone is voice's) and VOICE [text] (the Assistant
// group). VOICE <text> runs a turn as if the owner had said text (no
// microphone, no transcription; origin voice) and speaks the reply while
// ttsOn; bare VOICE listens on the microphone until the end of speech (the
// VAD), transcribes per sttProv, prints what it heard, then runs the same
// turn (docs/decisions.md "Voice in"). There is no console stop: the console
// runs one command at a time, so a stop could only come between commands; the
// screen's tap and the ring board's button stop a voice turn mid-way.

import { CommandError, type Command } from '../core/console.ts';
import { DEFAULT_RECORD_MS, MAX_RECORD_MS, MIN_RECORD_MS } from '../audio/index.ts';
import type { VoiceOutcome, VoiceSession } from './voice.ts';

const DECIMAL = /^[0-9]{1,6}$/;

/** MICREC's clip (src/audio's record()). */
export type RecordLike =
  | { ok: true; pcm: Int16Array; rate: number; complete: boolean; peak: number; saved: string | null; why: string | null }
  | { ok: false; reason: string };

export interface VoiceConsoleNeeds {
  session: VoiceSession;
  record(ms: number): Promise<RecordLike>;
  rmsOf(pcm: Int16Array): number;
  /** The speaker's sample rate (spoken lengths). */
  mixRate: number;
}

function printOutcome(out: (line: string) => void, r: VoiceOutcome, mixRate: number): void {
  if (!r.ok) {
    if (r.reply) for (const line of r.reply.split('\n')) out(line);
    if (r.ask) out(`ASK: ${r.ask}`);
    throw new CommandError(r.reason);
  }
  for (const line of r.reply.split('\n')) out(line);
  if (r.ask) out(`ASK: ${r.ask}`);
  if (r.spoken) return out(`spoken: ${(r.spoken.samples / mixRate).toFixed(2)} s`);
  if (r.notSpoken?.error) throw new CommandError(r.notSpoken.reason);
  out(`not spoken: ${r.notSpoken?.reason ?? 'nothing to say'}`);
}

export function voiceCommands(n: VoiceConsoleNeeds): Command[] {
  return [
    {
      verb: 'MICREC',
      usage: '[ms]',
      help: `record ${DEFAULT_RECORD_MS / 1000} s (or ms, ${MIN_RECORD_MS}-${MAX_RECORD_MS}) from the microphone; saved to the card as /mem/rec/micrec.wav; refused while an update installs`,
      run: async (c) => {
        const arg = c.argv[0];
        if (c.argv.length > 1 || (arg !== undefined && (!DECIMAL.test(arg) || Number(arg) < MIN_RECORD_MS || Number(arg) > MAX_RECORD_MS))) {
          throw new CommandError(`usage: MICREC [ms] (${MIN_RECORD_MS}-${MAX_RECORD_MS})`);
        }
        const r = await n.record(arg === undefined ? DEFAULT_RECORD_MS : Number(arg));
        if (!r.ok) throw new CommandError(r.reason);
        c.out(`recorded ${(r.pcm.length / r.rate).toFixed(2)} s at ${r.rate} Hz: samples=${r.pcm.length} peak=${r.peak} rms=${n.rmsOf(r.pcm)}${r.complete ? '' : ' (the microphone stopped early)'}`);
        c.out(r.saved ? `saved ${r.saved}` : `not saved: ${r.why}`);
      },
    },
    {
      verb: 'VOICE',
      usage: '[text]',
      help: 'with text: a turn as if the owner said it (origin voice); bare: listen until the end of speech and transcribe it (sttProv) first; the reply is spoken while voice replies (ttsOn) are on',
      run: async (c) => {
        const text = c.args.trim();
        if (text) return printOutcome((l) => c.out(l), await n.session.say(text), n.mixRate);
        const r = await n.session.listen({ ptt: false });
        if (r.ok || r.transcript) c.out(`heard: ${r.transcript}`);
        printOutcome((l) => c.out(l), r, n.mixRate);
      },
    },
    {
      verb: 'VOICESTOP',
      maxArgs: 0,
      immediate: true,
      help: 'stop the voice turn at once, as a tap does (listening, the transcription, the turn and its streamed round, the speech): it runs while VOICE still runs',
      run: (c) => {
        if (!n.session.stop()) c.out('nothing to stop: the voice turn is idle');
      },
    },
    {
      verb: 'VOICE?',
      maxArgs: 0,
      help: 'the voice turn: state (idle, listening, thinking, speaking), turns and stops since boot, and the last turn (outcome, ms from the end of speech to the transcript, the whole reply, the first sentence given to speech and the first spoken audio, the XS heap high-water during it and the code part of the heap; with HEAPPROBE on, the live heap high-water too)',
      run: (c) => {
        const s = n.session;
        c.out(`state=${s.state()} turns=${s.turns} stops=${s.stops}`);
        const l = s.last;
        if (!l) return c.out('last: none');
        const since = (t: number | null): string => (t === null || l.times.endOfSpeech === null ? '-' : String(Math.round(t - l.times.endOfSpeech)));
        c.out(`last: ${l.outcome} heard=${Math.round(l.heardMs)}ms transcript=${since(l.times.transcribed)} reply=${since(l.times.replied)} sentence=${since(l.times.sentence)} firstAudio=${since(l.times.firstAudio)} xsPeak=${l.times.xsPeak} xsStatic=${n.session.xsStatic()}${l.times.xsLivePeak ? ` xsLivePeak=${l.times.xsLivePeak}` : ''}`);
      },
    },
  ];
}
