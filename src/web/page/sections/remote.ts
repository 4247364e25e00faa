// Cards for what reaches outside the device: the fallback rule set
// (/api/fallbacks), connectors with their sign-in (/api/connectors: the
// verify link with ?k= is shown to open on the phone or computer that signs
// in to the service) and their approval as tool servers (inert until
// approved), web search (/api/websearch: key write-only, monthly
// budget) and the cloud relay (/api/cloud: pair with a code, turn off).
// Each says plainly that it is not built while its route answers 404.

import { get, missing, post, type ApiResult } from '../api.ts';
import { busy, card, field, h, kv, message, replace, text, type Kid } from '../dom.ts';
import { itemList, listIn, notBuilt } from './generic.ts';

type Obj = Record<string, unknown>;

/** The fallback rule set: the chain in order, what was skipped, and the failure rules. */
export function fallbacksView(data: unknown): Kid {
  const d = (data ?? {}) as Obj;
  const chain = listIn(d['chain']);
  const skipped = listIn(d['skipped']);
  const rules = listIn(d['rules']);
  return [
    h('ol', { 'data-fallbacks': '1' }, chain.map((c) => h('li', null, `${text(c['provider'])} ${text(c['model'])}`, h('span', { class: 'muted' }, ` — ${text(c['role'])}, ${text(c['why'])}${c['size'] ? `, size ${text(c['size'])}` : ''}`)))),
    skipped.length ? h('p', { class: 'muted' }, `Not in the chain: ${skipped.map((s) => `${text(s['provider'])} (${text(s['why'])})`).join(', ')}.`) : null,
    h('p', { class: 'muted' }, `Fail over mid-turn: ${d['midFail'] ? 'on' : 'off'}; at most ${text(d['maxSwitches'])} switches a turn.`),
    h('ul', null, rules.map((r) => h('li', null, h('strong', null, `${text(r['on'])}: `), text(r['then'])))),
  ];
}

const CONNECTOR_FIELDS: Array<[string, string, string, string?]> = [
  ['id', 'Id', 'a-z, 0-9, - and _; at most 23'],
  ['name', 'Name', 'what the assistant calls it'],
  ['url', 'Server address', 'https address of the MCP server'],
  ['authorize_url', 'Authorize address', 'OAuth only', 'oauth'],
  ['token_url', 'Token address', 'OAuth only', 'oauth'],
  ['client_id', 'Client id', 'OAuth only', 'oauth'],
  ['client_secret', 'Client secret', 'OAuth only; write-only', 'oauth'],
  ['scope', 'Scope', 'OAuth only; space-separated', 'oauth'],
  ['bearer', 'Bearer secret', 'for auth "bearer"; write-only', 'bearer'],
];

export async function loadConnectors(host: HTMLElement, note = ''): Promise<void> {
  const r = await get<unknown>('/api/connectors');
  if (missing(r)) return replace(host, notBuilt('Connectors'));
  if (!r.ok) return replace(host, h('p', { class: 'msg bad' }, r.message));
  const reload = (): void => void loadConnectors(host);
  const link = h('div', { 'aria-live': 'polite' });
  let keepLink = false;
  const list = itemList(listIn(r.data, 'connectors'), {
    title: (c) => `${text(c['name'])} (${text(c['id'])})`,
    fields: ['kind', 'auth', 'status', 'approved', 'url'],
    empty: 'No connectors are set up.',
    actions: [
      {
        label: 'Sign in',
        when: (c) => c['auth'] === 'oauth',
        run: async (c): Promise<ApiResult<unknown>> => {
          const s = await post<{ verifyPath: string; expiresInMs: number }>('/api/connectors', { action: 'signin', id: text(c['id']) });
          if (s.ok) {
            keepLink = true;
            const url = `${location.origin}${s.data.verifyPath}`;
            replace(
              link,
              h('p', null, `Open this link where you sign in to ${text(c['name'])} (it works for ${Math.round(s.data.expiresInMs / 60000)} minutes):`),
              h('p', { style: 'word-break:break-all' }, h('a', { href: url, target: '_blank', rel: 'noopener noreferrer', 'data-verify-link': '1' }, url)),
            );
          }
          return s;
        },
      },
      { label: 'Approve', when: (c) => c['approved'] !== true, run: (c) => post('/api/connectors', { action: 'approve', id: text(c['id']) }) },
      { label: 'Remove approval', when: (c) => c['approved'] === true, run: (c) => post('/api/connectors', { action: 'deny', id: text(c['id']) }) },
      { label: 'Sign out', when: (c) => c['status'] === 'signed-in' || c['status'] === 'expired', run: (c) => post('/api/connectors', { action: 'signout', id: text(c['id']) }) },
      { label: 'Delete', danger: true, run: (c) => post('/api/connectors', { action: 'delete', id: text(c['id']) }) },
    ],
    after: (): void => {
      if (keepLink) keepLink = false;
      else reload();
    },
  });
  const inputs = new Map<string, HTMLInputElement>();
  const auth = h('select', { name: 'auth' }, h('option', { value: 'none' }, 'None'), h('option', { value: 'bearer' }, 'Bearer secret'), h('option', { value: 'oauth' }, 'OAuth sign-in'));
  const fields = CONNECTOR_FIELDS.map(([name, label, hint, only]) => {
    const input = h('input', { type: name === 'client_secret' || name === 'bearer' ? 'password' : name.endsWith('url') ? 'url' : 'text', name, autocomplete: 'off', spellcheck: 'false' });
    inputs.set(name, input);
    const f = field(label, input, hint);
    if (only) f.dataset['only'] = only;
    return f;
  });
  const showFor = (): void => {
    for (const f of fields) f.hidden = !!f.dataset['only'] && f.dataset['only'] !== auth.value;
  };
  auth.addEventListener('change', showFor);
  showFor();
  const msg = message();
  const save = h('button', { type: 'submit' }, 'Save connector');
  const form = h(
    'form',
    {
      'data-connector-form': '1',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void busy(save, async () => {
          const body: Record<string, string> = { auth: auth.value };
          for (const [k, input] of inputs) if (input.value.trim() && !(input.closest('[hidden]'))) body[k] = input.value.trim();
          const res = await post('/api/connectors', body);
          // The list is drawn again with the new connector; the outcome is said under the new form.
          if (res.ok) void loadConnectors(host, 'Connector saved.');
          else msg.say(res.message, 'bad');
        });
      },
    },
    h('h4', null, 'Add or change a connector'),
    fields.slice(0, 3),
    field('Sign-in', auth),
    fields.slice(3),
    save,
    msg,
  );
  replace(host, list, link, form);
  if (note) msg.say(note, 'ok');
}

export async function loadWebSearch(host: HTMLElement, note = ''): Promise<void> {
  const r = await get<Obj>('/api/websearch');
  if (missing(r)) return replace(host, notBuilt('Web search'));
  if (!r.ok) return replace(host, h('p', { class: 'msg bad' }, r.message));
  const d = r.data;
  const key = h('input', { type: 'password', name: 'ws_key', autocomplete: 'off', spellcheck: 'false' });
  const budget = h('input', { type: 'number', name: 'ws_budget', min: '0', max: '100000', value: String(d['budget'] ?? 0) });
  const msg = message();
  const save = h('button', { type: 'button' }, 'Save');
  save.addEventListener('click', () =>
    void busy(save, async () => {
      const fields: Record<string, string> = { budget: budget.value || '0' };
      if (key.value.trim()) fields['key'] = key.value.trim();
      const res = await post('/api/websearch', fields);
      if (res.ok) void loadWebSearch(host, 'Web search saved.');
      else msg.say(res.message, 'bad');
    }),
  );
  replace(
    host,
    kv([
      ['Key', d['keySet'] ? 'set (never shown)' : 'not set: the assistant cannot search'],
      ['This month', `${text(d['used'])} searches${d['budget'] ? ` of ${text(d['budget'])}` : ''}; counting starts again on ${text(d['resetsOn'])}`],
    ]),
    field('Search key (Brave Search API)', key, d['keySet'] ? 'Paste a new key to replace it.' : 'No key set.'),
    field('Monthly budget (searches; 0 = no limit)', budget),
    save,
    msg,
  );
  if (note) msg.say(note, 'ok');
}

export function cloudCard(): HTMLElement {
  const host = h('div', { 'aria-live': 'polite' });
  const load = async (note = ''): Promise<void> => {
    const r = await get<Obj>('/api/cloud');
    if (missing(r)) return replace(host, notBuilt('The cloud relay'));
    if (!r.ok) return replace(host, h('p', { class: 'msg bad' }, r.message));
    const d = r.data;
    const pairing = d['pairing'] as Obj | null;
    const msg = message();
    const pair = h('button', { type: 'button' }, 'Pair with the relay');
    const off = h('button', { type: 'button', class: 'secondary' }, 'Turn off and forget');
    pair.addEventListener('click', () =>
      void busy(pair, async () => {
        const res = await post('/api/cloud', { action: 'pair' });
        if (!res.ok) msg.say(res.message, 'bad');
        else void load();
      }),
    );
    off.addEventListener('click', () =>
      void busy(off, async () => {
        const res = await post('/api/cloud', { action: 'off' });
        if (res.ok) void load('The cloud relay is off; the device credential is forgotten.');
        else msg.say(res.message, 'bad');
      }),
    );
    replace(
      host,
      kv([
        ['State', text(d['state'])],
        ['Paired', d['paired'] ? `yes (${text(d['device'])})` : 'no'],
        ['Relay', text(d['relay'])],
        ['Last problem', d['lastError'] ? text(d['lastError']) : null],
      ]),
      pairing ? h('p', null, 'Enter this code on the relay service: ', h('strong', { class: 'code', 'data-pair-code': '1' }, text(pairing['code']))) : null,
      h('div', { class: 'row' }, d['paired'] ? null : pair, d['paired'] || d['state'] !== 'off' ? off : null),
      msg,
    );
    if (note) msg.say(note, 'ok');
  };
  void load();
  return card('Cloud relay', h('p', { class: 'muted' }, 'Reach this device from outside your home through the relay service. It never passes sign-in codes, the token or the setup passphrase.'), host);
}
