// The owner's web page, served at GET / from the firmware. It carries no
// device data: it signs this browser in (src/web/page/signin.ts), then shows
// the sections, each reading the device's API with the token kept in this
// origin's storage. Built at build time into one HTML file (tools/web-page.mjs).

import { get, tokens, whenSignedOut } from './api.ts';
import { showApp, type Section } from './app.ts';
import { banner } from './banner.ts';
import { arrive, showSignIn } from './signin.ts';
import { access } from './sections/access.ts';
import { assistant } from './sections/assistant.ts';
import { danger } from './sections/danger.ts';
import { memory } from './sections/memory.ts';
import { people } from './sections/people.ts';
import { routines } from './sections/routines.ts';
import { status } from './sections/status.ts';
import { updates } from './sections/updates.ts';
import { voice } from './sections/voice.ts';

const SECTIONS: Section[] = [status, updates, assistant, voice, memory, routines, people, access, danger];

async function identify(): Promise<void> {
  const r = await get<{ version?: string; board?: string; buildId?: string }>('/api/state');
  const ident = document.getElementById('ident')!;
  if (r.ok) ident.textContent = `${r.data.version ?? ''} · ${r.data.board ?? ''} · build ${r.data.buildId ?? ''}`;
}

function signedIn(): void {
  showApp(SECTIONS);
  void identify();
}

async function start(): Promise<void> {
  whenSignedOut((why) => {
    tokens.clear();
    document.getElementById('ident')!.textContent = '';
    showSignIn(why, signedIn);
  });
  const ok = await arrive();
  if (ok) signedIn();
  else if (!document.querySelector('#signin-title')) showSignIn('', signedIn);
}

// The skip link moves the focus to the content and leaves the address alone: its #hash names the open section.
document.querySelector('.skip')?.addEventListener('click', (e) => {
  e.preventDefault();
  document.getElementById('main')!.focus();
});
window.addEventListener('error', (e) => banner(`The page hit an error: ${e.message}`, 'bad'));
void start();
