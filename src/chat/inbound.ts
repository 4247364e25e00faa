// What arrives from the Bot API, before a turn sees it: updates made into the
// inbox's entries (messages from bots and updates without a message
// skipped), voice and audio messages downloaded into a bounded buffer and
// transcribed, photos and documents streamed into the file store. A refusal
// comes back as the reply the sender reads.

import { concatBytes } from '../util/bytes.ts';
import { capBytes } from '../util/cap.ts';
import type { InEntry } from './queue.ts';
import { INBOUND_FILE_MAX, type ServiceDeps } from './service-types.ts';
import type { BotUpdate } from './telegram.ts';

/** The largest voice note downloaded (the transcription takes it from this buffer). */
const VOICE_NOTE_MAX = 1024 * 1024;

export function entriesOf(updates: readonly BotUpdate[]): InEntry[] {
  const out: InEntry[] = [];
  for (const u of updates) {
    const m = u.message;
    // Updates without a message (edits, channel posts), and messages from bots, are confirmed and skipped.
    if (!m || m.from?.isBot) continue;
    const name = m.from ? [m.from.firstName, m.from.username ? `(@${m.from.username})` : ''].filter(Boolean).join(' ') : m.chat.title;
    const e: InEntry = { u: u.updateId, c: String(m.chat.id), n: capBytes(name, 64), k: m.kind, t: m.kind === 'text' ? m.text : m.caption };
    if (m.file) e.f = { id: m.file.fileId, name: m.file.name, size: m.file.size, mime: m.file.mime };
    out.push(e);
  }
  return out;
}

/** A voice or audio message: declined with a reason, or downloaded into a bounded buffer and transcribed. */
export async function hearVoice(d: Pick<ServiceDeps, 'api' | 'voiceNotes'>, e: InEntry): Promise<{ ok: true; text: string } | { ok: false; reply: string }> {
  const notes = d.voiceNotes();
  if (!notes) return { ok: false, reply: "I can't listen to voice or audio messages on this device. Please type your message instead." };
  const mime = e.f?.mime ?? (e.k === 'voice' ? 'audio/ogg' : null);
  const name = e.f?.name ?? null;
  const refused = notes.refusal(mime, name, e.f?.size ?? null);
  if (refused) return { ok: false, reply: refused };
  if (!e.f) return { ok: false, reply: 'That voice message did not come through. Please send it again.' };
  const meta = await d.api.getFile(e.f.id);
  if (!meta.ok || !meta.value.path) return { ok: false, reply: `I could not fetch that voice message from the chat service${meta.ok ? '' : ` (${meta.message})`}. Please send it again.` };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const got = await d.api.download(meta.value.path, (chunk) => {
    size += chunk.length;
    if (size > VOICE_NOTE_MAX) return false;
    chunks.push(chunk.slice());
    return true;
  }, VOICE_NOTE_MAX);
  if (!got.ok || size > VOICE_NOTE_MAX) return { ok: false, reply: size > VOICE_NOTE_MAX ? 'That voice message is longer than I can take. Please send a shorter one.' : `I could not download that voice message (${got.ok ? 'refused' : got.message}). Please send it again.` };
  const heard = await notes.transcribe({ bytes: concatBytes(chunks), mime, name, chat: e.c });
  return heard.ok ? heard : { ok: false, reply: heard.reason };
}

export async function receiveFile(d: Pick<ServiceDeps, 'api' | 'card' | 'files'>, e: InEntry, person: string | null): Promise<{ ok: true; ref: string; bytes: number } | { ok: false; reply: string }> {
  const { card, api } = d;
  const describe = 'Please describe it in words instead.';
  const sink = d.files();
  if (!sink) return { ok: false, reply: card.live() ? `I can't receive files on this device yet. ${describe}` : `I can't take photos or documents without a storage card in the device. ${describe}` };
  if (!e.f) return { ok: false, reply: `That file did not come through. ${describe}` };
  if (e.f.size !== null && e.f.size > INBOUND_FILE_MAX) return { ok: false, reply: 'That file is larger than the 20 MB I can receive.' };
  const kind = e.k === 'photo' ? 'photo' : 'document';
  const name = e.f.name ?? (kind === 'photo' ? `photo-${e.u}.jpg` : `document-${e.u}`);
  const begun = sink.begin({ person, chat: e.c, kind, name, size: e.f.size, mime: e.f.mime });
  if (!begun.ok) return { ok: false, reply: begun.reason };
  const meta = await api.getFile(e.f.id);
  if (!meta.ok || !meta.value.path) {
    begun.writer.abort();
    return { ok: false, reply: `I could not fetch that ${kind} from the chat service${meta.ok ? '' : ` (${meta.message})`}. Please send it again.` };
  }
  let refused = false;
  const got = await api.download(meta.value.path, (chunk) => {
    if (begun.writer.write(chunk)) return true;
    refused = true;
    return false;
  }, INBOUND_FILE_MAX);
  if (!got.ok || refused) {
    begun.writer.abort();
    return { ok: false, reply: refused ? `I could not keep that ${kind} (no room for it).` : `I could not download that ${kind} (${got.ok ? 'refused' : got.message}). Please send it again.` };
  }
  const done = begun.writer.finish();
  if (!done.ok) return { ok: false, reply: `I could not keep that ${kind}: ${done.reason}` };
  return { ok: true, ref: done.ref, bytes: got.value };
}
