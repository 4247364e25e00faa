// The audio subsystem's tool: reply.speak (turn-only): says text aloud on
// the device's speaker through text-to-speech. It degrades, rather than
// fails, while voice replies are off (ttsOn) or the volume is 0: the result
// says the text was not spoken, so the model keeps it in its reply. Offered
// only while a speech provider is set up (a key, or a custom endpoint).

import { fail, ok, type ToolSpec } from '../core/tools/types.ts';
import type { Audio } from './audio.ts';

export function audioTools(audio: Audio): ToolSpec[] {
  return [
    {
      name: 'reply.speak',
      description:
        'Say text aloud on the device\'s speaker (text-to-speech), as part of answering. Only while voice replies are on and the volume is not 0; ' +
        'otherwise nothing is spoken and the result says so. Keep it short: at most about 1000 characters are spoken.',
      schema: {
        type: 'object',
        properties: { text: { type: 'string', minLength: 1, description: 'what to say' } },
        required: ['text'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'turn',
      available: () => audio.endpoint().ok,
      handler: (args) => {
        const text = typeof args.text === 'string' ? args.text : '';
        const t = audio.speak(text, { voiceReply: true });
        if (!t.ok) {
          if (t.degraded) return ok(`Not spoken: ${t.reason.slice(t.reason.indexOf(':') + 1).trim()}. Give the answer in your reply text instead.`);
          return fail(t.reason.slice(0, t.reason.indexOf(':')) || 'unavailable', t.reason);
        }
        return ok(`Speaking aloud (${t.text.length} characters).`);
      },
    },
  ];
}
