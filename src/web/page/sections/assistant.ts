// Assistant: provider keys (write-only: the device says which are set, never
// a value) and their priority, the orchestrator model with the catalog from
// /api/models, fallbacks, the custom endpoint and its conversation style, the
// directive and failover, token usage and monthly budgets, outbound TLS, connectors, skills (read, approve,
// deny, write one's own),
// safety and downloads, and the tool panel.

import { get, missing, post, type ApiResult } from '../api.ts';
import type { Section } from '../app.ts';
import { busy, card, check, field, h, kv, message, replace, text, type Message } from '../dom.ts';
import { itemList, listIn, loadList, notBuilt } from './generic.ts';
import { fallbacksView, loadConnectors, loadWebSearch } from './remote.ts';

const PROVIDERS = ['openai', 'anthropic', 'mistral', 'zai', 'router', 'custom'] as const;
const NAMES: Record<string, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  mistral: 'Mistral',
  zai: 'Z.ai',
  router: 'Model router',
  custom: 'Custom endpoint',
};

interface RoleEndpoint {
  base: string;
  model: string;
  ownBase: boolean;
  ownModel: boolean;
}

interface Orch {
  keys: Record<string, boolean>;
  priority: string[];
  custom: { base: string; style: string; model: string; roles?: Record<'chat' | 'stt' | 'tts' | 'embed', RoleEndpoint> };
  stream?: boolean;
  model: string;
  provider: string | null;
  directive: string;
  midFail: boolean;
  promptBudget: number;
  tlsVerify: boolean;
  budgets?: Record<string, number | null>;
}

interface Tokens {
  input: number;
  output: number;
  reasoning: number;
  cached: number;
}

interface ProviderUsage {
  daily: Tokens;
  monthly: Tokens;
  budget: number | null;
  used: number;
  exhausted: boolean;
  resetsOn: string;
}

/** Thousands separated by a thin space, without Intl (the page shows what the device counted). */
function tokens(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009');
}

function utf8Bytes(s: string): number {
  return new Blob([s]).size;
}

/** Model ids in a catalog answer, whatever its grouping. */
export function modelRows(data: unknown): Array<{ provider: string; id: string; info: string }> {
  const rows: Array<{ provider: string; id: string; info: string }> = [];
  const visit = (provider: string, list: unknown): void => {
    for (const m of listIn(list, 'models')) {
      const id = text(m['id'] ?? m['model'] ?? m['name']);
      const info = ['size', 'sizeClass', 'roles', 'flags']
        .filter((k) => m[k] !== undefined && m[k] !== null)
        .map((k) => `${k} ${Array.isArray(m[k]) ? (m[k] as unknown[]).join(', ') : text(m[k])}`)
        .join('; ');
      rows.push({ provider: text(m['provider'] ?? provider), id, info });
    }
  };
  const obj = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  const groups = obj['providers'] && typeof obj['providers'] === 'object' && !Array.isArray(obj['providers']) ? (obj['providers'] as Record<string, unknown>) : null;
  if (groups) for (const [p, list] of Object.entries(groups)) visit(p, list);
  else visit('', data);
  return rows;
}

/** What the cards share: the settings as the device last answered them, and the one way to save them. */
interface OrchCtx {
  orch(): Orch;
  save(fields: Record<string, string> | FormData, msg: Message, done?: string): Promise<boolean>;
}

function keysCard(c: OrchCtx): HTMLElement {
  const keysHost = h('div');
  const keysMsg = message();
  const drawKeys = (): void => {
    replace(
      keysHost,
      PROVIDERS.map((p) => {
        const input = h('input', { type: 'password', name: `key_${p}`, autocomplete: 'off', spellcheck: 'false' });
        const set = c.orch().keys[p] === true;
        const saveBtn = h('button', { type: 'submit' }, set ? 'Replace key' : 'Save key');
        const clearBtn = h('button', { type: 'button', class: 'secondary' }, 'Remove key');
        const onSave = (e: Event): void => {
          e.preventDefault();
          void busy(saveBtn, async () => {
            if (!input.value.trim()) return keysMsg.say(`Paste the ${NAMES[p]} key first.`, 'warn');
            if (await c.save({ [`key_${p}`]: input.value.trim() }, keysMsg, `The ${NAMES[p]} key was saved.`)) drawKeys();
          });
        };
        clearBtn.addEventListener('click', () =>
          void busy(clearBtn, async () => {
            if (await c.save({ [`key_${p}`]: '' }, keysMsg, `The ${NAMES[p]} key was removed.`)) drawKeys();
          }),
        );
        return h(
          'form',
          { class: 'field', 'data-provider': p, onsubmit: onSave },
          field(`${NAMES[p]} key`, input, set ? 'A key is set (it is never shown). Paste a new one to replace it.' : 'No key set.'),
          h('div', { class: 'row' }, saveBtn, set ? clearBtn : null),
        );
      }),
    );
  };
  drawKeys();

  return card('Provider keys', h('p', { class: 'muted' }, 'Keys go to the device only; it never sends them back, never over plain http, and no tool or chat command can change them.'), keysHost, keysMsg);
}

function priorityCard(c: OrchCtx): HTMLElement {
  const prioHost = h('ol');
  const prioMsg = message();
  let order = [...c.orch().priority, ...PROVIDERS.filter((p) => !c.orch().priority.includes(p))];
  const drawPrio = (focus?: string): void => {
    replace(
      prioHost,
      order.map((p, i) => {
        const up = h('button', { type: 'button', class: 'secondary', 'aria-label': `Move ${NAMES[p] ?? p} up`, disabled: i === 0 }, '↑');
        const down = h('button', { type: 'button', class: 'secondary', 'aria-label': `Move ${NAMES[p] ?? p} down`, disabled: i === order.length - 1 }, '↓');
        const move = (d: number, label: string): void => {
          const next = [...order];
          [next[i], next[i + d]] = [next[i + d]!, next[i]!];
          order = next;
          drawPrio(`${p}:${label}`);
        };
        up.addEventListener('click', () => move(-1, 'up'));
        down.addEventListener('click', () => move(1, 'down'));
        up.dataset['focus'] = `${p}:up`;
        down.dataset['focus'] = `${p}:down`;
        return h('li', null, h('div', { class: 'row' }, h('span', { style: 'min-width:9rem' }, NAMES[p] ?? p), up, down));
      }),
    );
    if (focus) {
      const b = prioHost.querySelector<HTMLButtonElement>(`[data-focus="${focus}"]`);
      (b && !b.disabled ? b : prioHost.querySelector<HTMLButtonElement>('button:not([disabled])'))?.focus();
    }
  };
  drawPrio();
  const prioSave = h('button', { type: 'button' }, 'Save priority');
  prioSave.addEventListener('click', () => void busy(prioSave, async () => void (await c.save({ priority: order.join(',') }, prioMsg, 'Priority saved.'))));

  return card('Provider priority', h('p', { class: 'muted' }, 'Keyed providers are tried in this order; the next ones take over when one fails.'), prioHost, prioSave, prioMsg);
}

/** The orchestrator model, the catalog and the fallbacks. */
function modelsCard(c: OrchCtx): { el: HTMLElement; load(): Promise<unknown> } {
  const model = h('input', { type: 'text', name: 'model', value: c.orch().model, list: 'model-ids', spellcheck: 'false' });
  const ids = h('datalist', { id: 'model-ids' });
  const modelMsg = message();
  const modelSave = h('button', { type: 'button' }, 'Save model');
  modelSave.addEventListener('click', () => void busy(modelSave, async () => void (await c.save({ model: model.value.trim() }, modelMsg, model.value.trim() ? 'Model saved.' : 'The provider\'s default model will be used.'))));
  const catalog = h('div');
  const allModels = h('input', { name: 'all' });
  const loadModels = async (): Promise<void> => {
    const m = await get<unknown>(`/api/models${allModels.checked ? '?all=1' : ''}`);
    if (missing(m)) return replace(catalog, notBuilt('The model catalog'));
    if (!m.ok) return replace(catalog, h('p', { class: 'msg bad' }, m.message));
    const rows = modelRows(m.data);
    replace(ids, rows.map((x) => h('option', { value: x.id })));
    replace(
      catalog,
      rows.length
        ? [...new Set(rows.map((x) => x.provider))].map((p) =>
            h(
              'div',
              { class: 'scroll', 'data-provider-models': p },
              h('table', { class: 'table' }, h('caption', null, NAMES[p] ?? p), h('thead', null, h('tr', null, h('th', null, 'Model'), h('th', null, 'Details'))), h('tbody', null, rows.filter((x) => x.provider === p).map((x) => h('tr', null, h('td', null, x.id), h('td', null, x.info))))),
            ),
          )
        : h('p', { class: 'muted' }, 'The catalog is empty.'),
    );
  };
  allModels.addEventListener('change', () => void loadModels());
  const fallbacks = h('div');

  return {
    el: card('Models', field('Orchestrator model', model, 'Empty: the provider\'s default model.'), ids, modelSave, modelMsg, check('Include models hidden by the last probe', allModels), catalog, h('h3', null, 'Fallbacks'), fallbacks),
    load: () => Promise.all([loadModels(), loadList(fallbacks, '/api/fallbacks', 'The fallback rule set', fallbacksView)]),
  };
}

/** The custom endpoint: its base URL, style and model, and a server of its own per role. */
function customCard(c: OrchCtx): HTMLElement {
  const base = h('input', { type: 'url', name: 'custom_base', value: c.orch().custom.base, placeholder: 'http://192.168.1.20:8080', spellcheck: 'false' });
  const style = h('select', { name: 'custom_style' }, h('option', { value: 'chat' }, 'Chat completions (OpenAI-compatible)'), h('option', { value: 'messages' }, 'Messages (Anthropic-compatible)'));
  style.value = c.orch().custom.style;
  const cmodel = h('input', { type: 'text', name: 'custom_model', value: c.orch().custom.model, spellcheck: 'false' });
  const customMsg = message();
  // Per role (transcription, speech, embeddings): a base URL and model of its own, empty for the defaults.
  const roles = c.orch().custom.roles;
  const roleInput = (name: string, value: string, placeholder: string, type = 'url'): HTMLInputElement => h('input', { type, name, value, placeholder, spellcheck: 'false' });
  const sttBase = roleInput('custom_stt_base', roles?.stt.ownBase ? roles.stt.base : '', 'the base URL above');
  const sttModel = roleInput('custom_stt_model', roles?.stt.ownModel ? roles.stt.model : '', 'whisper-1', 'text');
  const ttsBase = roleInput('custom_tts_base', roles?.tts.ownBase ? roles.tts.base : '', 'the base URL above');
  const ttsModel = roleInput('custom_tts_model', roles?.tts.ownModel ? roles.tts.model : '', 'tts-1', 'text');
  const embedBase = roleInput('custom_embed_base', roles?.embed.ownBase ? roles.embed.base : '', 'the base URL above');
  const rolesNow = h('div');
  const drawRoles = (): void => {
    const r = c.orch().custom.roles;
    if (!r) return replace(rolesNow);
    const said = (x: RoleEndpoint, model: boolean): string => (x.base ? `${x.base}${model && x.model ? `, model ${x.model}` : ''}` : 'not set');
    replace(rolesNow, kv([
      ['Chat (turns)', said(r.chat, true)],
      ['Transcription', said(r.stt, true)],
      ['Speech', said(r.tts, true)],
      ['Embeddings', `${said(r.embed, false)} (its model: the memory's embedding choice)`],
    ]));
  };
  drawRoles();
  const customSave = h('button', { type: 'button' }, 'Save endpoint');
  customSave.addEventListener('click', () =>
    void busy(customSave, async () => {
      const fields = {
        custom_base: base.value.trim(),
        custom_style: style.value,
        custom_model: cmodel.value.trim(),
        custom_stt_base: sttBase.value.trim(),
        custom_stt_model: sttModel.value.trim(),
        custom_tts_base: ttsBase.value.trim(),
        custom_tts_model: ttsModel.value.trim(),
        custom_embed_base: embedBase.value.trim(),
      };
      if (await c.save(fields, customMsg, 'Custom endpoint saved.')) drawRoles();
    }),
  );
  return card(
    'Custom endpoint',
    field('Base URL', base, 'Any OpenAI- or Anthropic-compatible server; only scheme, host and port are used. Over plain http no key is sent.'),
    field('Conversation style', style),
    field('Model id', cmodel),
    h('h3', null, 'Per role'),
    h('p', { class: 'muted' }, 'Transcription, speech and embeddings may go to other servers (a local Whisper or Piper, say) while turns stay where they are. Empty: the base URL above and the usual model.'),
    field('Transcription server', sttBase, 'Its base URL.'),
    field('Transcription model', sttModel),
    field('Speech server', ttsBase, 'Its base URL.'),
    field('Speech model', ttsModel),
    field('Embeddings server', embedBase, 'Its base URL; the embeddings model is chosen in Memory.'),
    customSave,
    customMsg,
    h('h3', null, 'In use'),
    rolesNow,
  );
}

/** Streamed answers: the reply is read (and spoken) as it arrives; off reads every answer whole. */
function streamCard(c: OrchCtx): HTMLElement {
  const stream = h('input', { name: 'stream', checked: c.orch().stream !== false });
  const streamMsg = message();
  stream.addEventListener('change', async () => {
    const ok = await c.save({ stream: stream.checked ? '1' : '0' }, streamMsg, stream.checked ? 'Answers are streamed: a spoken reply starts with its first sentence.' : 'Answers are read whole: a spoken reply starts once the whole turn has arrived.');
    if (!ok) stream.checked = !stream.checked;
  });

  return card('Streamed answers', check('Read answers as they arrive (a spoken reply starts with its first sentence)', stream, 'Off: every answer is read whole before anything is said or shown.'), streamMsg);
}

/** The directive, mid-turn failover and the prompt budget. */
function conversationCard(c: OrchCtx): HTMLElement {
  const directive = h('textarea', { name: 'directive', rows: '5' });
  directive.value = c.orch().directive;
  const count = h('span', null);
  const recount = (): void => {
    const n = utf8Bytes(directive.value);
    count.textContent = `${n} of 1500 bytes`;
    count.className = n > 1500 ? 'msg bad' : 'muted';
  };
  directive.addEventListener('input', recount);
  recount();
  const midFail = h('input', { name: 'midFail', checked: c.orch().midFail });
  const budget = h('input', { type: 'number', name: 'prompt_budget', min: '8192', max: '65536', step: '1024', value: String(c.orch().promptBudget) });
  const convMsg = message();
  const convSave = h('button', { type: 'button' }, 'Save');
  convSave.addEventListener('click', () =>
    void busy(convSave, async () => {
      // Multipart, not urlencoded: a 1500-byte directive in three-byte characters (CJK) would be
      // 4500 bytes percent-encoded, over the route's 4 KB body limit.
      const form = new FormData();
      form.append('directive', directive.value);
      form.append('midFail', midFail.checked ? '1' : '0');
      form.append('prompt_budget', budget.value);
      await c.save(form, convMsg);
    }),
  );

  return card('Conversation', field('Directive', directive, count), check('Fail over mid-turn (keep the conversation when switching providers)', midFail), field('Prompt budget (bytes)', budget), convSave, convMsg);
}

/** Outbound TLS. */
function securityCard(c: OrchCtx): HTMLElement {
  const tls = h('input', { name: 'tlsVerify', checked: c.orch().tlsVerify });
  const tlsMsg = message();
  tls.addEventListener('change', async () => {
    const ok = await c.save({ tlsVerify: tls.checked ? '1' : '0' }, tlsMsg, tls.checked ? 'Certificates are verified again.' : 'Certificates are no longer verified: anyone on the path can read and change the device\'s traffic.');
    if (!ok) tls.checked = !tls.checked;
    else if (!tls.checked) tlsMsg.say(tlsMsg.textContent ?? '', 'warn');
  });

  return card('Security', check('Verify certificates of outbound HTTPS (tlsVerify)', tls, 'Switch off only to reach a server with a self-made certificate.'), tlsMsg);
}

/** Usage and budgets (tokens; GET /api/state usage.budget, POST /api/orch budget_<provider>). */
function usageCard(c: OrchCtx): HTMLElement {
  const usageHost = h('div');
  const usageMsg = message();
  const drawUsage = async (): Promise<void> => {
    const st = await get<{ usage?: { budget?: Record<string, ProviderUsage> } }>('/api/state');
    const per = st.ok ? (st.data.usage?.budget ?? {}) : {};
    replace(
      usageHost,
      PROVIDERS.map((p) => {
        const u = per[p];
        const input = h('input', { type: 'number', name: `budget_${p}`, min: '0', step: '1000', value: String(c.orch().budgets?.[p] ?? 0) });
        const saveBtn = h('button', { type: 'submit' }, 'Save budget');
        const line = u
          ? `Today ${tokens(u.daily.input + u.daily.output)} tokens; this month ${tokens(u.used)} (input ${tokens(u.monthly.input)}, output ${tokens(u.monthly.output)}, reasoning ${tokens(u.monthly.reasoning)}, cached ${tokens(u.monthly.cached)}).` +
            (u.budget ? ` Budget ${tokens(u.budget)} a month${u.exhausted ? `: used up, no new turns until ${u.resetsOn}` : ''}.` : ' No budget.')
          : 'No usage yet.';
        const onSave = (e: Event): void => {
          e.preventDefault();
          void busy(saveBtn, async () => {
            if (await c.save({ [`budget_${p}`]: input.value.trim() || '0' }, usageMsg, `The ${NAMES[p]} budget was saved.`)) await drawUsage();
          });
        };
        return h(
          'form',
          { class: 'field', 'data-usage': p, onsubmit: onSave },
          field(`${NAMES[p]}: monthly token budget`, input, line),
          h('div', { class: 'row' }, saveBtn),
        );
      }),
    );
  };
  void drawUsage();

  return card('Usage and budgets', h('p', { class: 'muted' }, 'Tokens each provider reported (input and output), by day and calendar month (UTC). Past a provider\'s monthly budget the device takes no new turn there and uses a keyed alternate that has budget left; 0 means no budget. Only this page can set budgets.'), usageHost, usageMsg);
}

/** Skills: the saved ones to approve or deny, and one of the owner's own. */
function skillsCard(): { el: HTMLElement; load(): Promise<unknown> } {
  const skills = h('div');
  const loadSkills = (): Promise<unknown> =>
    loadList(skills, '/api/skills', 'Skills', (data) => [
      itemList(listIn(data, 'skills'), {
        title: (s) => `${text(s['title'] || s['id'])}${s['title'] ? ` (${text(s['id'])})` : ''}`,
        fields: ['approved', 'inject', 'created_by', 'bytes', 'available'],
        empty: 'No skills yet.',
        more: {
          label: 'Show text',
          load: async (s) => {
            const r = await get<Record<string, unknown>>(`/api/skills?id=${encodeURIComponent(text(s['id']))}`);
            return { ...r, data: text(r.data?.['md'] ?? '') };
          },
        },
        actions: [
          { label: 'Approve', when: (s) => s['approved'] !== true && s['created_by'] !== 'builtin', run: (s) => post('/api/skills', { action: 'approve', id: text(s['id']) }) },
          { label: 'Deny', danger: true, when: (s) => s['created_by'] !== 'builtin', run: (s) => post('/api/skills', { action: 'deny', id: text(s['id']) }) },
        ],
        after: () => void loadSkills(),
      }),
      skillForm(),
    ]);
  // A skill of the owner's own: approved as written.
  const skillForm = (): HTMLElement => {
    const id = h('input', { type: 'text', name: 'skillId', maxlength: 23, autocomplete: 'off' });
    const md = h('textarea', { name: 'skillMd', rows: '5' });
    const save = h('button', { type: 'button', class: 'secondary' }, 'Save skill');
    const msg = message();
    save.addEventListener('click', () =>
      void busy(save, async () => {
        const r = await post('/api/skills', { action: 'save', id: id.value.trim(), md: md.value });
        msg.say(r.ok ? text(r.data['message']) : r.message, r.ok ? 'ok' : 'bad');
        if (r.ok) void loadSkills();
      }),
    );
    return h('details', null, h('summary', null, 'Write a skill'), field('Skill id', id, 'a-z, 0-9, - and _; at most 23 characters.'), field('Skill text (markdown)', md, 'Optional front matter: --- title: ... inject: spawn --- (at most 4096 bytes).'), save, msg);
  };
  return { el: card('Skills', h('p', { class: 'muted' }, 'Skills the assistant saved stay inert until you approve them.'), skills), load: loadSkills };
}

/** Safety and downloads: the download policy and the downloads waiting for approval. */
function downloadsCard(): { el: HTMLElement; load(): Promise<unknown> } {
  const downloads = h('div');
  const loadDownloads = (): Promise<unknown> =>
    loadList(downloads, '/api/downloads', 'Downloads (files.fetch)', (data) => {
      const d = (data ?? {}) as Record<string, unknown>;
      const policy = h('select', { name: 'urlPolicy' }, h('option', { value: 'off' }, 'Off: no downloads'), h('option', { value: 'ask' }, 'Ask me for each download'), h('option', { value: 'scan' }, 'Scan, keep only files judged safe'), h('option', { value: 'trust' }, 'Full trust'));
      policy.value = text(d['policy']);
      const pmsg = message();
      policy.addEventListener('change', async () => {
        const res: ApiResult<unknown> = await post('/api/downloads', { action: 'policy', value: policy.value });
        pmsg.say(res.ok ? 'Download policy saved.' : res.message, res.ok ? 'ok' : 'bad');
      });
      return [
        field('Download policy', policy),
        pmsg,
        h('h4', null, 'Waiting for your approval'),
        itemList(listIn(d, 'pending', 'items'), {
          title: (x) => text(x['url'] ?? x['name'] ?? x['id']),
          empty: 'Nothing is waiting.',
          actions: [
            { label: 'Approve', run: (x) => post('/api/downloads', { action: 'approve', id: text(x['id']) }) },
            { label: 'Deny', danger: true, run: (x) => post('/api/downloads', { action: 'deny', id: text(x['id']) }) },
          ],
          after: () => void loadDownloads(),
        }),
      ];
    });
  return { el: card('Safety and downloads', downloads), load: loadDownloads };
}

/** The tool panel. */
function toolsCard(): { el: HTMLElement; load(): Promise<unknown> } {
  const tools = h('div');
  const load = (): Promise<unknown> =>
    loadList(tools, '/api/tools', 'The tool panel', (data) => {
      const d = data as { tools?: Array<Record<string, unknown>>; counts?: Record<string, number> };
      return [
        h('p', { class: 'muted' }, Object.entries(d.counts ?? {}).map(([k, v]) => `${k}: ${v}`).join(' · ')),
        h('div', { class: 'scroll' }, h('table', { class: 'table' }, h('thead', null, h('tr', null, h('th', null, 'Tool'), h('th', null, 'Runs on'), h('th', null, 'Who'))), h('tbody', null, (d.tools ?? []).map((t) => h('tr', null, h('td', null, text(t['name'])), h('td', null, text(t['runsOn'])), h('td', null, t['access'] === 'admin' ? 'owner only' : 'anyone')))))),
      ];
    });
  return { el: card('Tools', tools), load };
}

export const assistant: Section = {
  id: 'assistant',
  title: 'Assistant',
  async render(host) {
    const r = await get<Orch>('/api/orch');
    if (!r.ok) {
      host.append(h('p', { class: 'msg bad' }, r.message));
      return;
    }
    let orch = r.data;
    const c: OrchCtx = {
      orch: () => orch,
      async save(fields, msg, done = 'Saved.') {
        const res = await post<Orch>('/api/orch', fields);
        if (res.ok) {
          orch = res.data;
          msg.say(done, 'ok');
          return true;
        }
        msg.say(res.message, 'bad');
        return false;
      },
    };
    const models = modelsCard(c);
    const skills = skillsCard();
    const downloads = downloadsCard();
    const tools = toolsCard();
    const connectors = h('div');
    const search = h('div');
    host.append(
      keysCard(c),
      priorityCard(c),
      models.el,
      customCard(c),
      streamCard(c),
      conversationCard(c),
      usageCard(c),
      securityCard(c),
      card('Connectors', connectors),
      card('Web search', search),
      skills.el,
      downloads.el,
      tools.el,
    );
    await Promise.all([models.load(), loadConnectors(connectors), loadWebSearch(search), skills.load(), downloads.load(), tools.load()]);
  },
};
