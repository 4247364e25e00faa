// Voice: the voice settings (speech to text provider, speech provider, voice
// replies on or off, the voice), each with its current value and, per
// provider, whether it is ready or what is missing (GET/POST /api/voice; a
// provider without its key is refused with the reason), and the turn running
// now with its reply growing as it streams (GET /api/turn/live, polled while
// this section is open).

import { get, missing, post } from '../api.ts';
import type { Section } from '../app.ts';
import { busy, card, check, field, h, message, replace, text } from '../dom.ts';
import { notBuilt } from './generic.ts';

interface VoiceSettings {
  sttProv: string;
  ttsProv: string;
  ttsOn: boolean;
  ttsVoice: string;
  choices: { sttProv: string[]; ttsProv: string[] };
  ready: { stt: Record<string, string | null>; tts: Record<string, string | null> };
}

interface Live {
  busy: boolean;
  origin: string | null;
  chat: string | null;
  reply: string;
  phase: 'idle' | 'thinking' | 'growing' | 'done';
  status: string | null;
  seq: number;
}

const NAMES: Record<string, string> = { off: 'Off', openai: 'OpenAI', mistral: 'Mistral', custom: 'Custom endpoint' };
/** How often the live view asks while the section is open. */
const LIVE_MS = 500;

/** A select of providers, each labelled with what it lacks. */
function providerSelect(name: string, choices: string[], ready: Record<string, string | null>, value: string): HTMLSelectElement {
  const select = h(
    'select',
    { name },
    ...choices.map((p) => {
      const why = ready[p];
      return h('option', { value: p }, why ? `${NAMES[p] ?? p} (not ready: ${why.replace(/^[a-z-]+: /, '')})` : (NAMES[p] ?? p));
    }),
  );
  select.value = value;
  return select;
}

export const voice: Section = {
  id: 'voice',
  title: 'Voice',
  async render(host, scope) {
    const r = await get<VoiceSettings>('/api/voice');
    if (missing(r)) return void host.append(notBuilt('Voice settings'));
    if (!r.ok) return void host.append(h('p', { class: 'msg bad' }, r.message));
    const form = h('div');
    const msg = message();
    const draw = (v: VoiceSettings): void => {
      const stt = providerSelect('sttProv', v.choices.sttProv, v.ready.stt, v.sttProv);
      const tts = providerSelect('ttsProv', v.choices.ttsProv, v.ready.tts, v.ttsProv);
      const on = h('input', { name: 'ttsOn', checked: v.ttsOn });
      const voiceId = h('input', { type: 'text', name: 'ttsVoice', value: v.ttsVoice, spellcheck: 'false' });
      const saveBtn = h('button', { type: 'button' }, 'Save voice settings');
      saveBtn.addEventListener('click', () =>
        void busy(saveBtn, async () => {
          const res = await post<VoiceSettings>('/api/voice', { sttProv: stt.value, ttsProv: tts.value, ttsOn: on.checked ? '1' : '0', ttsVoice: voiceId.value.trim() });
          if (!res.ok) return msg.say(res.message, 'bad');
          draw(res.data);
          msg.say('Voice settings saved.', 'ok');
        }),
      );
      replace(
        form,
        field('Speech to text (what you say)', stt, `Now: ${NAMES[v.sttProv] ?? v.sttProv}. Push to talk, or a voice note in the chat.`),
        field('Speech (what the device says)', tts, `Now: ${NAMES[v.ttsProv] ?? v.ttsProv}.`),
        check('Voice replies: speak the reply aloud', on, v.ttsOn ? 'Now on.' : 'Now off.'),
        field('Voice', voiceId, 'The speech provider\'s voice id (OpenAI: alloy, ash, coral, ...).'),
        saveBtn,
      );
    };
    draw(r.data);

    // The turn now: its reply as it grows.
    const liveHost = h('div', { 'aria-live': 'polite' });
    let seen = -1;
    const drawLive = async (): Promise<void> => {
      const l = await get<Live>('/api/turn/live');
      if (!l.ok || l.data.seq === seen) return;
      seen = l.data.seq;
      const v = l.data;
      const state = v.phase === 'idle' ? 'No turn since the device started.' : v.phase === 'thinking' ? `Thinking (${text(v.origin)})...` : v.phase === 'growing' ? `Answering (${text(v.origin)})...` : `Answered (${text(v.origin)}${v.status && v.status !== 'ok' ? `, ${v.status}` : ''}).`;
      replace(liveHost, h('p', { class: 'muted' }, state), v.reply ? h('p', { class: 'reply' }, v.reply) : '');
    };
    await drawLive();
    scope.every(LIVE_MS, () => void drawLive());

    host.append(
      card('Voice settings', h('p', { class: 'muted' }, 'Speaking needs a speech provider with its key (Assistant > Provider keys) or the custom endpoint\'s speech role.'), form, msg),
      card('Now', h('p', { class: 'muted' }, 'The turn running now; a streamed reply shows as it is written.'), liveHost),
    );
  },
};
