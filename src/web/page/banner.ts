// The banner under the header: one-off news for this visit (signed in, a
// legacy link migrated, signed out), dismissible.

import { h, replace } from './dom.ts';

export function banner(text: string, kind: 'ok' | 'warn' | 'bad' | '' = ''): void {
  const host = document.getElementById('banner')!;
  const close = h('button', { class: 'secondary', type: 'button', onclick: () => replace(host) }, 'Dismiss');
  replace(host, h('div', { class: `msg ${kind}` }, h('p', { style: 'margin:0 0 .4rem' }, text), close));
}

export function clearBanner(): void {
  replace(document.getElementById('banner')!);
}
