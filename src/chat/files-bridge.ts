// Where the chat meets the file store and the music player (their APIs,
// src/files/index.ts and src/music/player.ts): the people registry's roles
// for file visibility and sharing, files.send delivered as a chat document,
// inbound photos and documents saved into the store (project 'inbox', in the
// sender's namespace, streamed through a part file and adopted, so a failed
// download leaves nothing), the injection screen for downloaded text that
// files.read hands a non-admin turn, and the owner commands /fetch and /play.

import type { Files, FilesChatView } from '../files/index.ts';
import { FilesError, type FileMeta, type PartWriter } from '../files/index.ts';
import { checkName, nameFromUrl } from '../files/index.ts';
import { errorMessage } from '../util/json.ts';
import { randomId } from '../util/ids.ts';
import type { SdCard } from '../hal/index.ts';
import type { ChatCommand, ChatCommands } from './commands.ts';
import type { PeopleRegistry } from './people.ts';
import type { InboundFiles } from './service.ts';
import type { Upload } from './telegram.ts';

export const INBOX_PROJECT = 'inbox';
const INCOMING = '/mem/incoming';
/** A file sent into the chat is read into RAM first: at most this much. */
export const SEND_MAX = 4 * 1024 * 1024;
const READ_CHUNK = 64 * 1024;

const MIME: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  log: 'text/plain',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  pdf: 'application/pdf',
};

function mimeOf(name: string): string {
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  return MIME[ext] ?? 'application/octet-stream';
}

export interface FilesBridgeDeps {
  files: Files;
  /** The music player (src/music/), for /play. */
  music: { command(text: string): { message: string } };
  random(bytes: Uint8Array): void;
  sd: Pick<SdCard, 'remove'>;
  people: PeopleRegistry;
  commands: ChatCommands;
  setInbound(sink: InboundFiles): void;
  screenFetched(text: string, caller: { admin: boolean }): string;
  sendDocument(chat: string, doc: Upload, caption: string): Promise<{ ok: true } | { ok: false; error: string }>;
}

/** Plugs the chat's side in (inbound files, /fetch, /play) and returns what files takes from the chat when it mounts. */
export function connectFiles(d: FilesBridgeDeps): FilesChatView {
  const { files, music } = d;
  d.setInbound({
    begin: (meta) => {
      try {
        return beginInbound(d, meta);
      } catch (e) {
        return { ok: false, reason: `I could not keep that ${meta.kind}: ${errorMessage(e)}` };
      }
    },
  });
  d.commands.register(fetchCommand(files));
  d.commands.register({
    name: '/play',
    usage: '[track | stop | pause]',
    help: "music from the card's /music folder",
    run: (c) => music.command(c.args).message,
  });
  return {
    people: d.people,
    screen: (text, caller) => d.screenFetched(text, caller),
    sender: { send: (chat, meta, read) => sendFile(d, chat, meta, read) },
  };
}

/** files.send: the file read into RAM (at most SEND_MAX) and sent as a chat document to the chat (null: the owner's). */
async function sendFile(d: FilesBridgeDeps, chat: string | null, meta: FileMeta, read: (offset: number, length: number) => Uint8Array): Promise<{ ok: boolean; message: string }> {
  const target = chat ?? d.people.ownerChat();
  if (!target) return { ok: false, message: 'There is no chat to send it to (the allowlist is empty).' };
  if (meta.size > SEND_MAX) return { ok: false, message: `${meta.project}/${meta.name} is larger than the ${SEND_MAX / 1024 / 1024} MB the device sends in chat; download it from the web page.` };
  const bytes = new Uint8Array(meta.size);
  try {
    for (let at = 0; at < meta.size; ) {
      const chunk = read(at, Math.min(READ_CHUNK, meta.size - at));
      if (!chunk.length) break;
      bytes.set(chunk, at);
      at += chunk.length;
    }
  } catch (e) {
    return { ok: false, message: `Reading ${meta.project}/${meta.name} failed: ${errorMessage(e)}` };
  }
  const r = await d.sendDocument(target, { name: meta.name, bytes, mime: mimeOf(meta.name) }, `${meta.project}/${meta.name}`);
  return r.ok ? { ok: true, message: `Sent ${meta.project}/${meta.name} to chat ${target}.` } : { ok: false, message: `Sending failed: ${r.error}` };
}

/** An inbound photo or document: refused at once (no card, no room), or a part file it streams into. */
function beginInbound(d: FilesBridgeDeps, meta: Parameters<InboundFiles['begin']>[0]): ReturnType<InboundFiles['begin']> {
  const { files } = d;
  const can = files.inbound(meta.kind);
  if (!can.ok) return { ok: false, reason: can.reply };
  let name = meta.name.includes('/') ? '' : nameFromUrl(meta.name);
  if (!name || checkName(name) !== null) name = `${meta.kind}-${randomId(d.random, '', 4)}${meta.kind === 'photo' ? '.jpg' : '.bin'}`;
  if (meta.size !== null && meta.size > files.store.room()) return { ok: false, reason: `I could not keep that ${meta.kind}: there is no room for it in the file store (its quota or the card is full).` };
  const part = `${INCOMING}/tg-${randomId(d.random, '', 6)}`;
  let writer: PartWriter;
  try {
    writer = files.store.beginPart(part);
  } catch (e) {
    return { ok: false, reason: `I could not keep that ${meta.kind}: ${errorMessage(e)}` };
  }
  return {
    ok: true,
    writer: {
      write: (bytes) => {
        try {
          writer.write(bytes);
          return true;
        } catch {
          return false;
        }
      },
      finish: () => adoptInbound(d, writer, part, meta.person, name),
      abort: () => writer.abort(),
    },
  };
}

/** The whole file came: into the sender's inbox project (under a distinct name if someone else's file has this one). */
function adoptInbound(d: FilesBridgeDeps, writer: PartWriter, part: string, person: string | null, name: string): { ok: true; ref: string } | { ok: false; reason: string } {
  const store = d.files.store;
  try {
    writer.commit();
    let saved: FileMeta;
    try {
      saved = store.adopt(person, INBOX_PROJECT, name, part);
    } catch (e) {
      // Someone else's file has that name: keep both under a distinct one.
      if (!(e instanceof FilesError) || e.code !== 'name-taken') throw e;
      saved = store.adopt(person, INBOX_PROJECT, `${randomId(d.random, '', 3)}-${name}`.slice(0, 48), part);
    }
    return { ok: true, ref: `${saved.project}/${saved.name}` };
  } catch (e) {
    try {
      d.sd.remove(part);
    } catch {
      // cleared at the next boot
    }
    return { ok: false, reason: errorMessage(e) };
  }
}

/** /fetch: the downloads waiting for the owner's approval, approved or denied. */
function fetchCommand(files: Files): ChatCommand {
  return {
    name: '/fetch',
    usage: 'approve <id>',
    help: 'approve a pending download (deny <id> drops it; /fetch alone lists them)',
    run: (c) => {
      const [verb, id] = c.argv;
      if (!verb) {
        const pending = files.downloads.pending();
        return pending.length ? ['Downloads waiting for approval:', ...pending.map((p) => `${p.id}: ${p.url} -> ${p.project}/${p.name}`)].join('\n') : 'No download waits for approval.';
      }
      const v = verb.toLowerCase();
      if ((v !== 'approve' && v !== 'deny') || !id || c.argv.length !== 2) return 'Usage: /fetch approve <id> (or /fetch deny <id>)';
      return (v === 'approve' ? files.downloads.approve(id) : files.downloads.deny(id)).message;
    },
  };
}
