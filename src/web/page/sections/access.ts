// Sign-in & access: 'Show code' mints a 10-minute hand-entry code for
// another browser (with a live countdown), the token can be rotated (every
// other browser, link and code stops working), and this browser can sign out.

import { get, tokens } from '../api.ts';
import type { Scope, Section } from '../app.ts';
import { busy, card, h, message, replace } from '../dom.ts';
import { rotate, showSignIn } from '../signin.ts';
import { cloudCard } from './remote.ts';
import { groupSignInCode } from '../../../util/ids.ts';

function mmss(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export const access: Section = {
  id: 'access',
  title: 'Sign-in & access',
  render(host, scope: Scope) {
    const codeHost = h('div', { 'aria-live': 'polite' });
    const show = h('button', { type: 'button' }, 'Show a sign-in code');
    let deadline = 0;
    let timer: HTMLElement | null = null;
    let live = false;
    const tick = (): void => {
      if (!timer || !live) return;
      const left = deadline - performance.now();
      if (left <= 0) {
        live = false;
        timer.textContent = 'This code has expired.';
        timer.setAttribute('data-expired', '1');
        show.textContent = 'Show a new code';
        return;
      }
      timer.textContent = `Valid for ${mmss(left)}`;
    };
    scope.every(1000, tick);
    show.addEventListener('click', () =>
      void busy(show, async () => {
        const r = await get<{ code: string; path: string; expiresInMs: number }>('/api/signin/code?purpose=hand');
        if (!r.ok) return replace(codeHost, h('p', { class: 'msg bad' }, r.message));
        deadline = performance.now() + r.data.expiresInMs;
        live = true;
        timer = h('p', { role: 'timer', 'aria-live': 'off', 'data-countdown': '1' });
        replace(
          codeHost,
          h('p', { class: 'code', 'data-code': '1' }, groupSignInCode(r.data.code)),
          timer,
          h('p', { class: 'muted' }, `Type it on the sign-in page of the other browser (${location.origin}/). It works once.`),
        );
        tick();
      }),
    );

    const rmsg = message();
    const rotateBtn = h('button', { type: 'button', class: 'secondary' }, 'Rotate the access token…');
    const rotateHost = h('div', { class: 'row' }, rotateBtn);
    rotateBtn.addEventListener('click', () => {
      const yes = h('button', { type: 'button', class: 'danger' }, 'Rotate now');
      const no = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
      no.addEventListener('click', () => {
        replace(rotateHost, rotateBtn);
        rotateBtn.focus();
      });
      yes.addEventListener('click', () =>
        void busy(yes, async () => {
          const r = await rotate();
          rmsg.say(r.message, r.ok ? 'ok' : 'bad');
          replace(rotateHost, rotateBtn);
        }),
      );
      replace(rotateHost, h('span', null, 'Sign out every other browser and void every link and code?'), yes, no);
      no.focus();
    });
    const out = h('button', { type: 'button', class: 'secondary' }, 'Sign out of this browser');
    out.addEventListener('click', () => {
      tokens.clear();
      showSignIn('Signed out of this browser.');
    });

    host.append(
      card('Sign in another browser', h('p', null, 'Shows a code to type on another phone or computer. It is valid for 10 minutes and works once.'), show, codeHost),
      card('Rotate the access token', h('p', null, 'If a link or a device with access was lost or shared: every other browser, link and code stops working; this browser keeps working.'), rotateHost, rmsg),
      card('This browser', h('p', null, 'The sign-in is kept in this browser, for this address of the device only.'), out),
      cloudCard(),
    );
  },
};
