// Today's boot (src/main.ts with its Context) handing voice its options:
// the one place that knows where each of voice's needs lives. When the
// kernel of issue 25 lands, main builds VoiceStartOptions from the
// subsystems' faces and this file goes.

import { MIX_RATE, rmsOf, type Audio } from '../audio/index.ts';
import type { Context } from '../core/context.ts';
import type { Assistant } from '../turn/index.ts';
import type { SttKeys } from '../stt/index.ts';
import { startVoice, type VoiceFace } from './index.ts';

/** The button that talks (board.json buttons). */
export const PTT_BUTTON = 'main';

export function installVoice(ctx: Context, audio: Audio, assistant: Assistant, keys: SttKeys): VoiceFace {
  const face = startVoice({
    mic: ctx.hal.mic,
    sd: ctx.hal.sd,
    clock: ctx.hal.clock,
    random: ctx.random,
    log: ctx.log,
    client: ctx.client,
    keys,
    config: (key) => ctx.actions.config(key),
    installing: () => ctx.ota.installing(),
    mode: () => ctx.mode,
    cardLive: () => ctx.card.live(),
    openMic: (onSamples) => audio.recorder.open(onSamples),
    ring: ctx.ring,
    episodic: ctx.memory.episodic,
    turns: assistant.engine,
    speak: (text) => audio.speak(text, { voiceReply: true }),
    heap: () => ctx.hal.system.heap(),
    record: (ms) => audio.record(ms),
    rmsOf,
    mixRate: MIX_RATE,
  });
  for (const c of face.commands) ctx.console.register(c);
  ctx.status.section(face.status);
  ctx.ota.addBusyProbe(face.busy);
  ctx.chat.setVoiceNotes(face.notes);
  // Push to talk on a board button named main (ring-tft's; the panels' boot button is left alone).
  const buttons = ctx.hal.buttons;
  if (buttons?.names.includes(PTT_BUTTON)) buttons.onButton = (name, down) => name === PTT_BUTTON && face.ptt.button(down);
  return face;
}
