// The file tools (spec "Tool server": files.list, files.stat, files.read,
// files.search, artifact.save, files.share, files.send, files.fetch), one
// ToolSpec each. Every call runs as ToolCaller.person (null: the device
// owner): another person's file answers as not found, in the same words as a
// name nobody has, and a save or a download lands among the caller's own
// files whatever anyone else holds (src/files/store.ts). They stay registered
// without a card and answer with the legible reason (spec, Other failure
// rules 7), rather than vanishing from the model's view.

import { fail, ok, type ToolCaller, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import { utf8Length, encode } from '../util/utf8.ts';
import { errorMessage, stringify } from '../util/json.ts';
import type { Files } from './files.ts';
import { civilFromDays } from '../util/civil.ts';
import { NAME_MAX, PROJECT_MAX, SAVE_EXTENSIONS, extensionOf } from './names.ts';
import { FilesError, type FileMeta } from './store.ts';

/** artifact.save takes about 24 KB of text per call (spec Limits). */
export const SAVE_MAX_BYTES = 24 * 1024;

/**
 * artifact.save's rules for a text file from anywhere (the tool, the web
 * page's upload): a name ending .md, .txt, .csv or .json and at most
 * SAVE_MAX_BYTES. null when fine, else why not (the store judges the rest:
 * project and name, ownership, quota, the card).
 */
export function checkSave(name: string, size: number): FilesError | null {
  if (!(SAVE_EXTENSIONS as readonly string[]).includes(extensionOf(name))) return new FilesError('bad-input', 'name must end .md, .txt, .csv or .json');
  if (size > SAVE_MAX_BYTES) return new FilesError('too-large', `${name} is ${size} bytes; a saved file is at most ${SAVE_MAX_BYTES} bytes. Split it into several files.`);
  return null;
}

const str = (a: Record<string, unknown>, k: string): string | undefined => (typeof a[k] === 'string' ? (a[k] as string) : undefined);

async function guard(body: () => ToolResult | Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await body();
  } catch (e) {
    if (e instanceof FilesError) return fail(e.code, e.message);
    return fail('internal', errorMessage(e));
  }
}

function when(ms: number): string {
  // ISO without Date (firmware rule): days since the epoch to a calendar date.
  if (!(ms > 0)) return 'unknown';
  const [y, m, d] = civilFromDays(Math.floor(ms / 86_400_000));
  const t = ms % 86_400_000;
  const pad = (n: number): string => (n < 10 ? `0${n}` : String(n));
  return `${y}-${pad(m)}-${pad(d)} ${pad(Math.floor(t / 3_600_000))}:${pad(Math.floor(t / 60_000) % 60)}`;
}

export function fileLine(m: FileMeta): string {
  return `- ${m.project}/${m.name} (${m.kind}, ${m.size} bytes, ${when(m.created)}${m.share ? ', shared' : ''}${m.owner ? `, owner ${m.owner}` : ''})`;
}

const PROJECT = { type: 'string', description: `project folder, 1-${PROJECT_MAX} letters, digits, - or _` };
const NAME = { type: 'string', description: `file name with extension, at most ${NAME_MAX} bytes` };
const OWNER = { type: 'string', minLength: 1, description: "the chat id of the file's owner, as files.list shows it (default: your own file of that name first, then a shared one)" };

/** The owner argument: a chat id picks that person's file; absent, the caller's own comes first. */
const ownerArg = (a: Record<string, unknown>): string | undefined => str(a, 'owner');

export function fileTools(files: Files): ToolSpec[] {
  const store = files.store;
  return [
    {
      name: 'files.list',
      description: 'List saved files (yours and shared ones), optionally in one project.',
      schema: { type: 'object', properties: { project: PROJECT }, additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: (a, c) =>
        guard(() => {
          const project = str(a, 'project') || undefined;
          const list = store.list(c.person, project);
          if (!list.length) return ok(project ? `No files in ${project}.` : 'No files yet.');
          return ok([`${list.length} file${list.length === 1 ? '' : 's'}:`, ...list.map(fileLine)].join('\n'));
        }),
    },
    {
      name: 'files.stat',
      description: 'Metadata of one file: project, name, kind, size, created, provider file id, owner, share flag.',
      schema: { type: 'object', properties: { project: PROJECT, name: NAME, owner: OWNER }, required: ['project', 'name'], additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: (a, c) => guard(() => ok(stringify(store.stat(c.person, a['project'], a['name'], ownerArg(a))))),
    },
    {
      name: 'files.read',
      description: 'Read a text file (.md .txt .csv .json .log) in windows of 8 KB from a byte offset.',
      schema: { type: 'object', properties: { project: PROJECT, name: NAME, offset: { type: 'integer', minimum: 0, description: 'byte offset (default 0)' }, owner: OWNER }, required: ['project', 'name'], additionalProperties: false },
      access: 'open',
      where: 'both',
      // Allowed in scheduled turns (spec): routines read their notes.
      scheduled: true,
      handler: (a, c) =>
        guard(() => {
          const offset = typeof a['offset'] === 'number' ? a['offset'] : 0;
          const r = store.readText(c.person, a['project'], a['name'], offset, ownerArg(a));
          // A downloaded file's text is fetched content: the injection screen (owner opt-in) sees it first.
          if (r.meta.source) r.text = files.screenFetched(r.text, c);
          const trailer = r.next === null ? `[end of ${r.meta.project}/${r.meta.name}, ${r.meta.size} bytes]` : `[more: call files.read with offset ${r.next} of ${r.meta.size} bytes]`;
          return ok(`${r.text}\n${trailer}`);
        }),
    },
    {
      name: 'files.search',
      description: 'Search the text of saved files; best matches first (ranked by how often the words occur).',
      schema: { type: 'object', properties: { query: { type: 'string', minLength: 1 }, project: PROJECT }, required: ['query'], additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: (a, c) =>
        guard(() => {
          const hits = store.search(c.person, String(a['query']), str(a, 'project') || undefined);
          if (!hits.length) return ok('No file matches.');
          return ok(hits.map((h) => `- ${h.meta.project}/${h.meta.name} (${h.score} hits): ${h.snippet}`).join('\n'));
        }),
    },
    {
      name: 'artifact.save',
      description: `Save text as a file (.md .txt .csv .json), at most ${SAVE_MAX_BYTES} bytes per call; the same project and name overwrites your earlier save (never anyone else's file).`,
      schema: {
        type: 'object',
        properties: { project: PROJECT, name: { ...NAME, description: 'file name ending .md, .txt, .csv or .json' }, text: { type: 'string' } },
        required: ['project', 'name', 'text'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (a, c) =>
        guard(() => {
          const name = str(a, 'name') ?? '';
          const text = String(a['text']);
          const size = utf8Length(text);
          const bad = checkSave(name, size);
          if (bad?.code === 'too-large') return fail('too-large', `text is ${size} bytes; artifact.save takes at most ${SAVE_MAX_BYTES} bytes per call. Split it into several files.`);
          if (bad) return fail(bad.code, bad.message);
          const meta = store.save(c.person, a['project'], name, encode(text));
          return ok(`Saved ${meta.project}/${meta.name} (${meta.size} bytes).`);
        }),
    },
    {
      name: 'files.share',
      description: 'Share a file you own with everyone on this device (share false stops sharing). Guests cannot share.',
      schema: { type: 'object', properties: { project: PROJECT, name: NAME, share: { type: 'boolean', default: true }, owner: OWNER }, required: ['project', 'name'], additionalProperties: false },
      access: 'open',
      where: 'both',
      handler: (a, c) =>
        guard(() => {
          const m = store.share(c.person, a['project'], a['name'], a['share'] !== false, ownerArg(a));
          return ok(`${m.project}/${m.name} is ${m.share ? 'shared' : 'no longer shared'}.`);
        }),
    },
    {
      name: 'files.send',
      description: 'Send a saved file to a chat (default: the chat of the person asking).',
      schema: { type: 'object', properties: { project: PROJECT, name: NAME, chat_id: { type: 'string' }, owner: OWNER }, required: ['project', 'name'], additionalProperties: false },
      access: 'open',
      // Turn-only: refused from /mcp (spec).
      where: 'turn',
      handler: (a, c: ToolCaller) =>
        guard(async () => {
          const meta = store.stat(c.person, a['project'], a['name'], ownerArg(a));
          const sender = files.sender();
          if (!sender) return fail('unavailable', 'No chat messenger is set up on this device, so files cannot be sent.');
          const chat = str(a, 'chat_id') || c.person;
          const r = await sender.send(chat, meta, (offset, length) => store.readBytes(meta, offset, length));
          return r.ok ? ok(r.message) : fail('send-failed', r.message);
        }),
    },
    {
      name: 'files.fetch',
      description: 'Download a file from a URL into the file store in the background, under the owner\'s download policy (it may wait for approval or a safety scan).',
      schema: {
        type: 'object',
        properties: { url: { type: 'string', minLength: 1 }, project: { ...PROJECT, description: 'project folder (default downloads)' }, name: { ...NAME, description: 'file name (default: from the URL)' } },
        required: ['url'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (a, c) => {
        const r = files.downloads.request(c.person, a['url'], a['project'], a['name']);
        return r.ok ? ok(r.message) : fail(r.code, r.message);
      },
    },
  ];
}
