// Memory & Files: memory statistics, browsing and searching the vector
// store, flush and dedupe, retrieval settings, the episodic log (hot window,
// then older rows from the card), clearing a conversation, the artifact
// files (downloaded as Blobs with the header token, uploaded as text files
// under artifact.save's rules) and adding music.

import { call, download, get, missing, post } from '../api.ts';
import type { Section } from '../app.ts';
import { busy, bytes, card, check, field, h, kv, message, replace, text, when } from '../dom.ts';
import { itemList, listIn, notBuilt } from './generic.ts';

const PAGE = 20;
const KINDS = ['', 'message', 'tool_output', 'llm_response', 'file', 'image', 'audio', 'transcript', 'log'];
const MUSIC_EXT = /\.(wav|mp3)$/i;
const TEXT_EXT = /\.(md|txt|csv|json)$/i;
/** artifact.save's size per file (the device says so too; checked here to spare the upload). */
const SAVE_MAX = 24 * 1024;
type CardState = 'none' | 'unsupported' | 'present' | null;
/** Why nothing can be added to the card in this state ('' when it can, or before the listing came). */
function cardRefusal(state: CardState, what: string): string {
  if (state === 'none') return `No SD card: ${what} needs a card (1 GB or more).`;
  if (state === 'unsupported') return `The SD card is under 1 GB, which is not supported: ${what} cannot be added to it.`;
  return '';
}

interface Mem {
  id: string;
  content: string;
  importance_score: number;
  ttl_hours: number;
  created_at: number;
  source: string;
  permanent_flag: boolean;
  pinned: boolean;
  score?: number;
}

function memItem(m: Mem): HTMLElement {
  return h(
    'li',
    null,
    h('div', null, m.content),
    h(
      'div',
      { class: 'muted' },
      m.score !== undefined ? h('span', { class: 'tag' }, `match ${Math.round(m.score * 100)}%`) : null,
      h('span', { class: 'tag' }, `importance ${m.importance_score}`),
      h('span', { class: 'tag' }, m.permanent_flag ? 'permanent' : m.ttl_hours < 0 ? 'no expiry' : `expires after ${m.ttl_hours} h`),
      m.pinned ? h('span', { class: 'tag' }, 'pinned') : null,
      h('span', { class: 'tag' }, `from ${m.source}`),
      h('span', { class: 'tag' }, when(m.created_at)),
    ),
  );
}

interface EmbeddingView {
  current: { provider: string; model: string; dims: number };
  choices: Array<{ provider: string; model: string; dims: number; label: string; available: boolean; why: string | null }>;
  memories: number;
  reembed: { done: number; total: number; error: string | null } | null;
}

const embId = (c: { provider: string; model: string; dims: number }): string => `${c.provider}/${c.model}/${c.dims}`;

/**
 * How memories are embedded: the choices, each available or not (and why),
 * re-embedding's progress; a change is confirmed first, since every memory
 * is embedded again.
 */
async function embeddingCard(host: HTMLElement, refresh: () => Promise<void>, said?: { text: string; kind: 'ok' | 'bad' }): Promise<void> {
  const r = await get<EmbeddingView>('/api/mem/embedding');
  if (missing(r)) return replace(host, notBuilt('Choosing the embedding'));
  if (!r.ok) return replace(host, h('p', { class: 'msg bad' }, r.message));
  const v = r.data;
  const emsg = message();
  // the outcome of a change stays in view when the card is drawn again with the new state
  if (said) emsg.say(said.text, said.kind);
  const pick = h(
    'select',
    { name: 'embedding' },
    v.choices.map((c) => h('option', { value: embId(c), disabled: !c.available, selected: embId(c) === embId(v.current) }, `${c.label}${c.available ? '' : ` (${c.why})`}`)),
  );
  const change = confirmButton('Change embedding…', `Every one of the ${v.memories} memories is embedded again in the background, and memory answers "busy" until that is done. Change it?`, async () => {
    const c = v.choices.find((x) => embId(x) === pick.value);
    if (!c) return;
    const res = await post<{ changed: boolean }>('/api/mem/embedding', { provider: c.provider, model: c.model, dims: String(c.dims), confirm: '1' });
    const outcome = { text: res.ok ? (res.data.changed ? 'Changed: the memories are being embedded again.' : 'That is the embedding already.') : res.message, kind: res.ok ? ('ok' as const) : ('bad' as const) };
    emsg.say(outcome.text, outcome.kind);
    await Promise.all([embeddingCard(host, refresh, outcome), refresh()]);
  });
  const progress = v.reembed
    ? h('p', { class: v.reembed.error ? 'msg warn' : 'msg' }, `Re-embedding: ${v.reembed.done} of ${v.reembed.total}${v.reembed.error ? ` (paused: ${v.reembed.error}; it tries again by itself)` : ''}.`)
    : null;
  replace(host, h('p', { class: 'muted' }, `Now: ${embId(v.current)}.`), progress, field('Embed memories with', pick), change, emsg);
  // while the memories are embedded again, the progress moves on the page
  if (v.reembed && !v.reembed.error) setTimeout(() => void (host.isConnected ? embeddingCard(host, refresh, said).then(refresh) : null), 1000);
}

/** A two-step button: the first press asks, the second (within the same view) acts. */
function confirmButton(label: string, ask: string, act: () => Promise<void>): HTMLElement {
  const first = h('button', { type: 'button', class: 'secondary' }, label);
  const host = h('div', { class: 'row' }, first);
  first.addEventListener('click', () => {
    const yes = h('button', { type: 'button', class: 'danger' }, 'Yes, do it');
    const no = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    no.addEventListener('click', () => {
      replace(host, first);
      first.focus();
    });
    yes.addEventListener('click', () =>
      void busy(yes, async () => {
        await act();
        replace(host, first);
      }),
    );
    replace(host, h('span', null, ask), yes, no);
    no.focus();
  });
  return host;
}

/** A part of the section: its elements, and how it fills them from the device. */
interface Block {
  el: HTMLElement[];
  load(): Promise<void>;
}

function statsBlock(): Block {
  const stats = h('div');
  const loadStats = async (): Promise<void> => {
    const r = await get<Record<string, unknown>>('/api/mem/stats');
    if (!r.ok) return replace(stats, h('p', { class: 'msg bad' }, r.message));
    const s = r.data;
    const deg = (s['degraded'] ?? {}) as Record<string, boolean>;
    replace(
      stats,
      kv([
        ['Memories', `${text(s['vectors'])} of ${text(s['cap'])} (${text(s['pinned'])} pinned, ${text(s['permanent'])} permanent)`],
        ['Archived', text(s['archive'])],
        ['Conversation log', `${text(s['blobCount'])} recent rows; ${text(s['blobFiles'])} day files, ${bytes(s['blobBytes'])} on the card`],
        ['Older rows on the card', s['epiTruncated'] ? `yes (recent window starts ${when(s['epiFloor'])})` : 'no'],
        ['Degraded', deg['vectors'] || deg['episodic'] ? 'yes: no SD card, so memory is capped and the log keeps only recent rows' : 'no'],
        ['Embedding', text(s['embedding'])],
        ...(s['reembed'] ? [['Re-embedding', text(s['reembed'])] as [string, string]] : []),
      ]),
    );
  };

  return { el: [stats], load: loadStats };
}

/** The memories: browse, search, flush and remove near-duplicates (each refreshes the statistics). */
function memoriesBlock(reloadStats: () => Promise<void>): Block {
  const q = h('input', { type: 'search', name: 'query', spellcheck: 'false' });
  const results = h('div');
  const vmsg = message();
  let offset = 0;
  const loadVectors = async (): Promise<void> => {
    const query = q.value.trim();
    const r = await get<{ total: number; items: Mem[] }>(`/api/mem/vector?limit=${PAGE}&offset=${offset}${query ? `&query=${encodeURIComponent(query)}` : ''}`);
    if (!r.ok) return replace(results, h('p', { class: 'msg bad' }, r.message));
    const { total, items } = r.data;
    const prev = h('button', { type: 'button', class: 'secondary', disabled: offset === 0 }, 'Previous');
    const next = h('button', { type: 'button', class: 'secondary', disabled: offset + items.length >= total }, 'Next');
    prev.addEventListener('click', () => {
      offset = Math.max(0, offset - PAGE);
      void loadVectors();
    });
    next.addEventListener('click', () => {
      offset += PAGE;
      void loadVectors();
    });
    replace(
      results,
      h('p', { class: 'muted' }, query ? `${total} ${total === 1 ? 'memory matches' : 'memories match'}.` : `${total} memories, most important first${total ? ` (${offset + 1}-${offset + items.length})` : ''}.`),
      items.length ? h('ul', { class: 'items' }, items.map(memItem)) : null,
      total > PAGE ? h('div', { class: 'row' }, prev, next) : null,
    );
  };
  const search = h('form', { role: 'search', class: 'row' }, h('div', { style: 'flex:1 1 12rem' }, field('Search memories', q)), h('button', { type: 'submit' }, 'Search'));
  search.addEventListener('submit', (e) => {
    e.preventDefault();
    offset = 0;
    void loadVectors();
  });
  const keep = h('input', { name: 'keep_permanent', checked: true });
  const flush = confirmButton('Flush memories…', 'Forget every memory' + '?', async () => {
    const r = await post<{ removed: number; kept: number }>('/api/mem/vector/flush', { keep_permanent: keep.checked ? '1' : '0' });
    vmsg.say(r.ok ? `${r.data.removed} memories forgotten, ${r.data.kept} kept.` : r.message, r.ok ? 'ok' : 'bad');
    await Promise.all([loadVectors(), reloadStats()]);
  });
  const dedupe = h('button', { type: 'button', class: 'secondary' }, 'Remove near-duplicates');
  dedupe.addEventListener('click', () =>
    void busy(dedupe, async () => {
      const r = await post<{ removed: number }>('/api/mem/vector/dedupe');
      vmsg.say(r.ok ? `${r.data.removed} near-duplicate${r.data.removed === 1 ? '' : 's'} removed (the more important copy is kept).` : r.message, r.ok ? 'ok' : 'bad');
      await Promise.all([loadVectors(), reloadStats()]);
    }),
  );

  return { el: [search, results, check('Keep permanent memories when flushing', keep), h('div', { class: 'row' }, dedupe), flush, vmsg], load: loadVectors };
}

/** The retrieval settings. */
function recallBlock(): Block {
  const cfgHost = h('form');
  const cfgMsg = message();
  const loadConfig = async (): Promise<void> => {
    const r = await get<Record<string, number>>('/api/mem/config');
    if (!r.ok) return replace(cfgHost, h('p', { class: 'msg bad' }, r.message));
    const c = r.data;
    const inputs = {
      retrieval_count: h('input', { type: 'number', min: '1', max: '100', step: '1', value: String(c['retrieval_count']) }),
      relevance_threshold: h('input', { type: 'number', min: '0', max: '1', step: '0.01', value: String(c['relevance_threshold']) }),
      decay_factor: h('input', { type: 'number', min: '0.5', max: '1', step: '0.01', value: String(c['decay_factor']) }),
      max_context_bytes: h('input', { type: 'number', min: '256', max: '16384', step: '256', value: String(c['max_context_bytes']) }),
    };
    const saveBtn = h('button', { type: 'submit' }, 'Save settings');
    replace(
      cfgHost,
      field('Memories recalled per turn', inputs.retrieval_count, '1 to 100'),
      field('Relevance threshold', inputs.relevance_threshold, '0 to 1: lower recalls more, less related memories'),
      field('Daily decay factor', inputs.decay_factor, '0.5 to 1: importance kept per day'),
      field('Room for memories in the prompt (bytes)', inputs.max_context_bytes, '256 to 16384'),
      saveBtn,
      cfgMsg,
    );
    cfgHost.onsubmit = (e) => {
      e.preventDefault();
      void busy(saveBtn, async () => {
        const form = Object.fromEntries(Object.entries(inputs).map(([k, el]) => [k, el.value]));
        const res = await call<Record<string, number>>('/api/mem/config', { method: 'PUT', form });
        cfgMsg.say(res.ok ? 'Saved (values outside their range were brought inside it).' : res.message, res.ok ? 'ok' : 'bad');
        if (res.ok) for (const [k, el] of Object.entries(inputs)) el.value = String(res.data[k]);
      });
    };
  };

  return { el: [cfgHost], load: loadConfig };
}

/** The episodic log, newest first, with older rows on demand. */
function logBlock(): Block {
  const kind = h('select', { name: 'kind' }, KINDS.map((k) => h('option', { value: k }, k || 'every kind')));
  const since = h('input', { type: 'number', name: 'since_hours', min: '0', step: '1', placeholder: 'any time' });
  const rowsHost = h('div');
  let cursor: string | null = null;
  const loadRows = async (older: boolean): Promise<void> => {
    const p = new URLSearchParams({ limit: '50' });
    if (kind.value) p.set('kind', kind.value);
    if (since.value) p.set('since_hours', since.value);
    if (older && cursor) p.set('before', cursor);
    const r = await get<{ rows: Array<Record<string, unknown>>; olderExists: boolean; nextBefore: string | null }>(`/api/mem/episodic?${p}`);
    if (!r.ok) return replace(rowsHost, h('p', { class: 'msg bad' }, r.message));
    cursor = r.data.nextBefore;
    const more = h('button', { type: 'button', class: 'secondary' }, 'Older rows');
    more.addEventListener('click', () => void busy(more, () => loadRows(true)));
    replace(
      rowsHost,
      r.data.rows.length
        ? h(
            'ul',
            { class: 'items' },
            r.data.rows.map((row) =>
              h('li', null, h('div', { class: 'muted' }, h('span', { class: 'tag' }, when(row['ts'])), h('span', { class: 'tag' }, `${text(row['session'])} · ${text(row['role'])} · ${text(row['kind'])}`)), h('div', row['role'] === 'assistant' ? { class: 'reply' } : null, text(row['text']))),
            ),
          )
        : h('p', { class: 'muted' }, 'No rows.'),
      r.data.olderExists && cursor ? more : null,
    );
  };
  const epiForm = h('form', null, h('div', { class: 'row' }, h('div', { style: 'flex:1 1 10rem' }, field('Kind', kind)), h('div', { style: 'flex:1 1 10rem' }, field('Within the last hours', since))), h('button', { type: 'submit' }, 'Show'));
  epiForm.addEventListener('submit', (e) => {
    e.preventDefault();
    cursor = null;
    void loadRows(false);
  });

  return { el: [epiForm, rowsHost], load: () => loadRows(false) };
}

/** Clearing one conversation. */
function clearBlock(): Block {
  const chat = h('input', { type: 'text', name: 'chat', list: 'chat-ids', spellcheck: 'false' });
  const chatIds = h('datalist', { id: 'chat-ids' });
  const clearMsg = message();
  const clearHost = h('div');
  const loadChats = async (): Promise<void> => {
    const probe = await get('/api/conversation');
    if (missing(probe)) return replace(clearHost, notBuilt('Clearing a conversation from the web'));
    const chats = listIn(probe.data, 'chats').map((c) => text(c['chat'] ?? c['id']));
    replace(chatIds, chats.map((c) => h('option', { value: c })));
    if (!chat.value && chats.length) chat.value = chats[0]!;
    replace(
      clearHost,
      field('Conversation', chat, 'A chat id; the console\'s conversation is "console".'),
      chatIds,
      confirmButton('Clear conversation…', 'Forget this conversation?', async () => {
        const r = await post('/api/conversation/clear', { chat: chat.value.trim() });
        clearMsg.say(r.ok ? 'The conversation is forgotten; long-term memory and files are kept.' : r.message, r.ok ? 'ok' : 'bad');
      }),
      clearMsg,
    );
  };

  return { el: [clearHost], load: loadChats };
}

/** The file store and the music folder, which share what the card allows. */
function filesBlock(): Block & { music: HTMLElement; finish(): Promise<void> } {
  const filesHost = h('div');
  const uploadHost = h('div');
  const musicHost = h('div');
  let cardState: CardState = null;
  const loadFiles = async (): Promise<void> => {
    const r = await get<Record<string, unknown>>('/api/files/list');
    if (missing(r)) return replace(filesHost, notBuilt('The file store'));
    if (!r.ok) return replace(filesHost, h('p', { class: 'msg bad' }, r.message));
    const d = r.data;
    cardState = d['present'] === true ? 'present' : d['unsupported'] ? 'unsupported' : 'none';
    if (cardState === 'unsupported') return replace(filesHost, h('p', { class: 'msg warn' }, 'The SD card is under 1 GB, which is not supported: nothing can be saved on it.'));
    if (cardState === 'none') return replace(filesHost, h('p', { class: 'msg warn' }, 'No SD card: files need a card. Insert one (1 GB or more).'));
    const dmsg = message();
    replace(
      filesHost,
      h('p', { class: 'muted' }, `${text(d['count'])} files, ${bytes(d['bytes'])} of ${bytes(d['quota'])} used; ${bytes(d['cardFree'])} free on the card.`),
      itemList(listIn(d, 'files'), {
        title: (f) => `${text(f['project'])}/${text(f['name'])}`,
        fields: ['kind', 'size', 'owner', 'share'],
        empty: 'No files yet.',
        actions: [
          {
            label: 'Download',
            run: async (f) => {
              const who = typeof f['owner'] === 'string' && f['owner'] ? `&owner=${encodeURIComponent(f['owner'])}` : '';
              const path = `/api/files/dl?project=${encodeURIComponent(text(f['project']))}&name=${encodeURIComponent(text(f['name']))}${who}`;
              const res = await download(path, text(f['name']));
              dmsg.say(res.ok ? `${text(f['name'])} was downloaded.` : res.message, res.ok ? 'ok' : 'bad');
              return res;
            },
          },
        ],
      }),
      dmsg,
    );
  };
  return {
    el: [filesHost, uploadHost],
    music: musicHost,
    load: loadFiles,
    async finish() {
      if (!filesHost.querySelector('[data-unavailable]')) uploadForm(uploadHost, () => cardState, loadFiles);
      await musicForm(musicHost, () => cardState);
    },
  };
}

/** Saving a text file into the store. */
function uploadForm(uploadHost: HTMLElement, state: () => CardState, reload: () => Promise<void>): void {
  const input = h('input', { type: 'file', name: 'file', accept: '.md,.txt,.csv,.json,text/plain,text/markdown,text/csv,application/json' });
  const project = h('input', { type: 'text', name: 'project', value: 'uploads', spellcheck: 'false', maxlength: '24' });
  const umsg = message();
  const send = h('button', { type: 'submit' }, 'Upload file');
  const form = h(
    'form',
    null,
    field('Text file', input, `.md, .txt, .csv or .json, at most ${SAVE_MAX / 1024} KB. The same project and name replaces your earlier file.`),
    field('Project', project, 'A folder: letters, digits, - and _.'),
    send,
    umsg,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(send, async () => {
      const f = input.files?.[0];
      if (!f) return umsg.say('Choose a file first.', 'warn');
      if (!TEXT_EXT.test(f.name)) return umsg.say(`Only .md, .txt, .csv and .json files can be saved; ${f.name} was not uploaded.`, 'bad');
      if (f.size > SAVE_MAX) return umsg.say(`${f.name} is ${bytes(f.size)}; a saved file is at most ${SAVE_MAX / 1024} KB.`, 'bad');
      const refusal = cardRefusal(state(), 'a file');
      if (refusal) return umsg.say(refusal, 'bad');
      const fd = new FormData();
      fd.append('project', project.value.trim());
      fd.append('file', f, f.name);
      const r = await post<Record<string, unknown>>('/api/files/upload', fd);
      if (!r.ok) return umsg.say(`${f.name}: ${r.message}`, 'bad');
      const saved = (r.data['file'] ?? {}) as Record<string, unknown>;
      input.value = '';
      await reload();
      umsg.say(`Saved ${text(saved['project'])}/${text(saved['name'])}.`, 'ok');
    });
  });
  replace(uploadHost, form);
}

/** Adding music to the card's music folder. */
async function musicForm(musicHost: HTMLElement, state: () => CardState): Promise<void> {
  const probe = await get<unknown>('/api/music');
  if (missing(probe)) return replace(musicHost, notBuilt('Adding music'));
  const input = h('input', { type: 'file', name: 'file', accept: '.wav,.mp3,audio/wav,audio/mpeg', multiple: true });
  const mmsg = message();
  const add = h('button', { type: 'submit' }, 'Add music');
  const form = h('form', null, field('Music files', input, '16-bit PCM WAV or MP3. They go to the card\'s music folder.'), add, mmsg);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(add, async () => {
      const files = Array.from(input.files ?? []);
      if (!files.length) return mmsg.say('Choose a .wav or .mp3 file first.', 'warn');
      const refused = files.filter((f) => !MUSIC_EXT.test(f.name));
      if (refused.length) return mmsg.say(`Only .wav and .mp3 files can be added; not added: ${refused.map((f) => f.name).join(', ')}.`, 'bad');
      const refusal = cardRefusal(state(), 'music');
      if (refusal) return mmsg.say(refusal, 'bad');
      const done: string[] = [];
      for (const f of files) {
        const fd = new FormData();
        fd.append('file', f, f.name);
        const r = await post('/api/music', fd);
        if (!r.ok) return mmsg.say(`${done.length ? `Added ${done.join(', ')}. ` : ''}${f.name}: ${r.message}`, 'bad');
        done.push(f.name);
      }
      mmsg.say(`Added ${done.join(', ')}.`, 'ok');
      input.value = '';
    });
  });
  const tracks = probe.ok ? listIn(probe.data, 'tracks', 'files') : [];
  replace(musicHost, form, tracks.length ? h('ul', { class: 'items' }, tracks.map((t) => h('li', null, text(t['name'] ?? t['file'])))) : null);
}

export const memory: Section = {
  id: 'memory',
  title: 'Memory & Files',
  async render(host) {
    const stats = statsBlock();
    const memories = memoriesBlock(stats.load);
    const recall = recallBlock();
    const log = logBlock();
    const clear = clearBlock();
    const files = filesBlock();
    const embHost = h('div');
    host.append(
      card('Memory', ...stats.el),
      card('How memories are found', embHost),
      card('Memories', ...memories.el),
      card('Recall settings', ...recall.el),
      card('Conversation log', ...log.el),
      card('Clear a conversation', ...clear.el),
      card('Files', ...files.el),
      card('Music', files.music),
    );
    await Promise.all([stats.load(), memories.load(), recall.load(), log.load(), clear.load(), files.load(), embeddingCard(embHost, stats.load)]);
    await files.finish();
  },
};
