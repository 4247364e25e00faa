// Signing this browser in (Authentication 2 and 5): a ?c=<code> link or a
// typed code is exchanged once through POST /api/signin/exchange for the
// token, which is kept in this origin's storage; the address is stripped at
// once. A legacy ?t=<token> link is checked, stored, stripped and explained.
// The token itself is never typed.

import { post, call, tokens } from './api.ts';
import { banner } from './banner.ts';
import { busy, field, h, message, replace } from './dom.ts';
import { hideApp } from './app.ts';

/** Removes c and t from the address bar (history too), keeping the rest. */
function stripAddress(): { c: string | null; t: string | null } {
  const url = new URL(location.href);
  const c = url.searchParams.get('c');
  const t = url.searchParams.get('t');
  if (c !== null || t !== null) {
    url.searchParams.delete('c');
    url.searchParams.delete('t');
    history.replaceState(null, '', `${url.pathname}${url.search}${url.hash}`);
  }
  return { c, t };
}

export async function exchange(code: string): Promise<{ ok: boolean; message: string }> {
  const r = await call<{ token?: string }>('/api/signin/exchange', { method: 'POST', form: { code: code.trim() }, token: null });
  if (r.ok && typeof r.data.token === 'string' && r.data.token) {
    tokens.set(r.data.token);
    return { ok: true, message: '' };
  }
  return { ok: false, message: r.ok ? 'The device did not hand out a token.' : r.message };
}

async function acceptLegacy(t: string): Promise<void> {
  // Accepted once: the token this browser already keeps (the setup network
  // hands it out again on every visit until Wi-Fi is set up) is only stripped.
  if (t === tokens.get()) return;
  // Checked before it is kept: a stale link must not replace a working sign-in.
  const r = await call('/api/state', { token: t });
  if (r.ok) {
    tokens.set(t);
    banner(
      'This link carried the access token in its address (an old-style ?t= link). The token is now kept in this browser and has been removed from the address bar. ' +
        'Such links are retired: sign other browsers in with a sign-in code (Sign-in & access), and if this link was shared or bookmarked, rotate the token there.',
      'warn',
    );
  } else if (r.status === 401) {
    banner('This old-style link carries an access token the device no longer accepts. Sign in with a code from the device instead.', 'bad');
  } else {
    banner(r.message, 'bad');
  }
}

/** Handles ?c= and ?t= on arrival; resolves true when this browser holds a token. */
export async function arrive(): Promise<boolean> {
  const { c, t } = stripAddress();
  if (c) {
    const r = await exchange(c);
    if (r.ok) banner('Signed in. This browser keeps the sign-in until the token is rotated.', 'ok');
    else {
      showSignIn(`The sign-in link did not work: ${r.message}`);
      return false;
    }
  } else if (t) {
    await acceptLegacy(t);
  }
  return tokens.get() !== null;
}

export function showSignIn(why: string, onSignedIn: () => void = () => location.reload()): void {
  hideApp();
  const main = document.getElementById('main')!;
  const input = h('input', {
    type: 'text',
    name: 'code',
    autocomplete: 'one-time-code',
    autocapitalize: 'characters',
    spellcheck: 'false',
    maxlength: '20',
    required: true,
  });
  const msg = message();
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'signin-title' },
    h('h2', { id: 'signin-title', tabindex: '-1' }, 'Sign in'),
    h('p', null, 'Open the sign-in link or scan the QR code shown on the device\'s screen. Or type a sign-in code: the device screen shows one, and a browser that is already signed in can show one under Sign-in & access.'),
    field('Sign-in code', input, '12 letters and digits; case, spaces and dashes do not matter. A code works once.'),
    submit,
    msg,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(submit, async () => {
      const r = await exchange(input.value);
      if (r.ok) {
        banner('Signed in.', 'ok');
        onSignedIn();
      } else msg.say(r.message, 'bad');
    });
  });
  replace(main, form);
  if (why) msg.say(why, 'warn');
  input.focus();
}

export async function rotate(): Promise<{ ok: boolean; message: string }> {
  const r = await post<{ token?: string }>('/api/token/regen');
  if (r.ok && r.data.token) {
    tokens.set(r.data.token);
    return { ok: true, message: 'The access token was rotated. Every other browser, link and code is signed out; this browser carries on.' };
  }
  return { ok: false, message: r.message };
}
