// Chat voice notes: a voice or audio message from the messenger (Ogg Opus,
// fetched with the Bot API's getFile by the chat subsystem into a bounded
// buffer of NOTE_MAX_BYTES) goes through the same transcription as a spoken
// turn (src/stt, per sttProv) and its transcript becomes the chat turn's
// text; the transcript is also written to the episodic log (kind
// transcript, the chat's session). A note is declined with a reason the
// sender can act on when speech to text is off or has no key, when the
// chosen provider does not take the note's format (every provider here takes
// Ogg: src/stt/transcribe.ts), or when it is too large.

import { acceptsFormat, bytesSource, sttEndpoint, transcribe, type SttKeys } from '../stt/index.ts';
import type { ClientRequest, ClientResult } from '../net/http/client.ts';
import type { VoiceSession } from './voice.ts';

/** The largest note taken (Opus voice at 32 kbit/s: about four minutes). */
export const NOTE_MAX_BYTES = 1024 * 1024;

export interface NoteNeeds {
  session: VoiceSession;
  keys: SttKeys;
  config(key: 'sttProv'): unknown;
  client: { request(req: ClientRequest): Promise<ClientResult> };
  random: (bytes: Uint8Array) => void;
}

function formatOf(mime: string | null, name: string | null): { format: 'wav' | 'ogg'; ext: string } | null {
  const m = (mime ?? '').toLowerCase();
  const n = (name ?? '').toLowerCase();
  if (m === 'audio/ogg' || m === 'audio/opus' || n.endsWith('.ogg') || n.endsWith('.oga') || n.endsWith('.opus')) return { format: 'ogg', ext: 'ogg' };
  if (m === 'audio/wav' || m === 'audio/x-wav' || n.endsWith('.wav')) return { format: 'wav', ext: 'wav' };
  return null;
}

export class VoiceNotes {
  constructor(private readonly n: NoteNeeds) {}

  /** Why a note of this type and size cannot be heard now (a sentence for the sender), or null. */
  refusal(mime: string | null, name: string | null, size: number | null): string | null {
    const ep = sttEndpoint(this.n.keys, this.n.config('sttProv'));
    if (!ep.ok) {
      if (ep.reason.startsWith('stt-off')) return "I can't listen to voice messages: speech to text is off on this device (the owner can set sttProv to openai, mistral or custom). Please type your message instead.";
      return `I can't listen to voice messages right now (${ep.reason}). Please type your message instead.`;
    }
    const f = formatOf(mime, name);
    if (!f || !acceptsFormat(ep.endpoint.provider, f.format)) return `I can't listen to this kind of audio (${mime ?? 'unknown type'}): ${ep.endpoint.provider}'s transcription takes Ogg voice notes and WAV. Please send a voice note or type your message.`;
    if (size !== null && size > NOTE_MAX_BYTES) return `That voice message is longer than I can take (over ${NOTE_MAX_BYTES / 1024} KB). Please send a shorter one.`;
    return null;
  }

  /** Transcribes a downloaded note; the transcript goes to the episodic log under the chat's session. */
  async transcribe(note: { bytes: Uint8Array; mime: string | null; name: string | null; chat: string }): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
    const refused = this.refusal(note.mime, note.name, note.bytes.length);
    if (refused) return { ok: false, reason: refused };
    const ep = sttEndpoint(this.n.keys, this.n.config('sttProv'));
    if (!ep.ok) return { ok: false, reason: ep.reason };
    const f = formatOf(note.mime, note.name)!;
    const r = await transcribe(this.n.client, ep.endpoint, { filename: `voice.${f.ext}`, mime: f.format === 'ogg' ? 'audio/ogg' : 'audio/wav', source: bytesSource(note.bytes) }, this.n.random);
    if (!r.ok) return { ok: false, reason: `I could not make out that voice message (${r.reason}). Please try again or type it.` };
    if (!r.text) return { ok: false, reason: 'I could not hear any words in that voice message. Please try again or type it.' };
    this.n.session.noteTranscript(note.chat, r.text, r.provider);
    return { ok: true, text: r.text };
  }
}
