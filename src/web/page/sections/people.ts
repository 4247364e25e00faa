// People: the chat messenger (bot token, write-only; the allowlist, whose
// first entry is the owner; moderation switches: human-web-only settings),
// who may talk to the device, their role (admin, user, guest, unknown =
// revoked) and quotas (0 restores the role's default).

import { post } from '../api.ts';
import type { Section } from '../app.ts';
import { busy, card, check, field, h, message, text } from '../dom.ts';
import { listIn, loadList } from './generic.ts';

interface ChatView {
  tokenSet?: boolean;
  bot?: { username?: string | null } | null;
  allowlist?: string[];
  moderation?: { inbound?: boolean; outbound?: boolean; fetched?: boolean };
  status?: { state?: string; lastError?: string | null };
}

function chatSettings(c: ChatView, saved: () => void): HTMLElement[] {
  const tokenInput = h('input', { type: 'password', name: 'tg_token', autocomplete: 'off', spellcheck: 'false' });
  const allow = h('input', { type: 'text', name: 'tg_allow', value: (c.allowlist ?? []).join(', '), spellcheck: 'false' });
  const modIn = h('input', { name: 'moderate_in', checked: c.moderation?.inbound === true });
  const modOut = h('input', { name: 'moderate_out', checked: c.moderation?.outbound === true });
  const modFetch = h('input', { name: 'screen_fetched', checked: c.moderation?.fetched === true });
  const msg = message();
  const save = h('button', { type: 'submit' }, 'Save');
  const form = h(
    'form',
    null,
    h('p', { class: 'muted' }, `Bot: ${c.bot?.username ? `@${c.bot.username}` : c.tokenSet ? 'token set' : 'no token'}; ${text(c.status?.state)}${c.status?.lastError ? ` (${c.status.lastError})` : ''}.`),
    field('Bot token', tokenInput, c.tokenSet ? 'A token is set (never shown). Paste a new one to replace it.' : 'From BotFather: <bot id>:<secret>.'),
    field('Allowed chats', allow, 'Chat ids separated by commas; the first is the owner. Empty: every chat is refused.'),
    check('Screen incoming guest messages (refused when the screen is unsure)', modIn),
    check('Screen replies to guests (a flagged reply is held back)', modOut),
    check('Screen fetched web content for injected instructions', modFetch),
    save,
    msg,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(save, async () => {
      const fields: Record<string, string> = { tg_allow: allow.value, moderate_in: modIn.checked ? '1' : '0', moderate_out: modOut.checked ? '1' : '0', screen_fetched: modFetch.checked ? '1' : '0' };
      if (tokenInput.value.trim()) fields['tg_token'] = tokenInput.value.trim();
      const r = await post('/api/chat', fields);
      msg.say(r.ok ? 'Saved.' : r.message, r.ok ? 'ok' : 'bad');
      if (!r.ok) return;
      tokenInput.value = '';
      // The allowlist is who People lists.
      saved();
    });
  });
  return [form];
}

const ROLES = ['admin', 'user', 'guest', 'unknown'];
const QUOTAS: Array<[string, string]> = [
  ['vectors', 'Memories'],
  ['bytes', 'Bytes of memory'],
  ['ttl_hours', 'Longest memory lifetime (hours)'],
  ['pins', 'Pins'],
];

function person(p: Record<string, unknown>, saved: (what: string) => void): HTMLElement {
  const chat = text(p['chat'] ?? p['chat_id'] ?? p['id']);
  const role = h('select', { name: 'role' }, ROLES.map((r) => h('option', { value: r }, r === 'unknown' ? 'unknown (revoked)' : r)));
  role.value = text(p['role']);
  const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});
  // The fields hold the overrides (0 = the role's default); what applies now is their hint.
  const overrides = obj(p['overrides']);
  const quotas = obj(p['quotas']);
  const owner = p['owner'] === true;
  const inputs = QUOTAS.map(
    ([k, label]) =>
      [k, field(label, h('input', { type: 'number', min: '0', step: '1', name: k, value: overrides[k] === undefined ? '' : text(overrides[k]) }), k in quotas ? `Now: ${quotas[k] === null ? 'no limit' : text(quotas[k])}` : undefined)] as const,
  );
  const msg = message();
  const save = h('button', { type: 'button' }, 'Save');
  save.addEventListener('click', () =>
    void busy(save, async () => {
      const r1 = await post('/api/people', { action: 'role', chat, role: role.value });
      if (!r1.ok) return msg.say(r1.message, 'bad');
      // The owner's chat uses the owner's memory, which has no quota.
      if (owner) return saved(`Saved ${chat}.`);
      const form: Record<string, string> = { action: 'quota', chat };
      for (const [k, f] of inputs) {
        const v = (f.querySelector('input') as HTMLInputElement).value;
        if (v !== '') form[k] = v;
      }
      const r2 = await post('/api/people', form);
      if (r2.ok) saved(`Saved ${chat}.`);
      else msg.say(r2.message, 'bad');
    }),
  );
  return h(
    'li',
    null,
    h('strong', null, `${text(p['name'] ?? chat)}`),
    p['name'] ? h('span', { class: 'muted' }, ` (${chat})`) : null,
    field('Role', role),
    owner ? h('p', { class: 'muted' }, 'The owner\'s chat: it uses the owner\'s memory, which has no quota.') : h('details', null, h('summary', null, 'Quotas (0 = the role\'s default)'), inputs.map(([, f]) => f)),
    save,
    msg,
  );
}

export const people: Section = {
  id: 'people',
  title: 'People',
  async render(host) {
    const list = h('div');
    const chat = h('div');
    host.append(card('Chat messenger', chat));
    const note = message();
    host.append(card('People and roles', h('p', { class: 'muted' }, 'Admins manage the device from chat; users and guests may converse; unknown means revoked. The last admin cannot be demoted.'), list, note));
    const load = (): Promise<unknown> =>
      loadList(list, '/api/people', 'People and roles', (data) => {
        const items = listIn(data, 'people', 'tenants');
        // A saved row is drawn again from the device's answer; the outcome is said under the list.
        const saved = (what: string): void => void load().then(() => note.say(what, 'ok'));
        return items.length ? h('ul', { class: 'items' }, items.map((p) => person(p, saved))) : h('p', { class: 'muted' }, 'Nobody yet: add chats to the allowlist first.');
      });
    await Promise.all([load(), loadList(chat, '/api/chat', 'The chat messenger', (data) => chatSettings(data as ChatView, () => void load()))]);
  },
};
