// Updates: Check for Updates, Install Update (dry run and force), the
// battery refusal with its 'Install anyway (I am charging)' re-submit, the
// download progress, and the auto-install switch.

import { get, post, type ApiResult } from '../api.ts';
import type { Scope, Section } from '../app.ts';
import { busy, card, check, h, kv, message, replace, text } from '../dom.ts';

type State = Record<string, unknown>;

const RESULT: Record<string, string> = {
  pending: 'not checked since the device started',
  'up-to-date': 'up to date',
  'new-version': 'a new version is available',
  unreachable: 'the release feed could not be reached',
  failed: 'the release feed answered, but its manifest was rejected',
};

interface Offer {
  label?: string;
  field?: string;
  value?: string;
}

export const updates: Section = {
  id: 'updates',
  title: 'Updates',
  async render(host, scope: Scope) {
    const facts = h('div');
    const progress = h('progress', { max: '100', value: '0', 'aria-label': 'Download progress', hidden: true });
    const msg = message();
    const offerHost = h('div', { class: 'row' });
    const checkBtn = h('button', { type: 'button' }, 'Check for updates');
    const installBtn = h('button', { type: 'button' }, 'Install update');
    const dry = h('input', { name: 'dry' });
    const force = h('input', { name: 'force' });
    const auto = h('input', { name: 'autoUpd' });
    const autoMsg = message();
    let polling = false;

    const show = (s: State): void => {
      const result = text(s['otaResult']);
      replace(
        facts,
        kv([
          ['Running', `${text(s['version'])} in slot ${text(s['otaSlot'])}`],
          ['Last check', RESULT[result] ?? result],
          ['Latest version', text(s['otaLatest'])],
          ['Release notes', text(s['otaNotes'])],
          ['Engine', text(s['ota'])],
          ['Last install', text(s['lastOta'])],
          ['Problem', s['otaErr'] ? text(s['otaErr']) : undefined],
        ]),
      );
      const downloading = s['ota'] === 'downloading' || s['ota'] === 'verifying';
      progress.hidden = !downloading;
      if (typeof s['otaPct'] === 'number') progress.value = s['otaPct'];
      auto.checked = s['autoUpd'] === true;
    };

    const load = async (): Promise<State | null> => {
      const r = await get<State>('/api/state');
      if (!r.ok) return null;
      if (scope.alive()) show(r.data);
      return r.data;
    };

    // Follows the engine until it settles; a restart shows as a gap in answers.
    const follow = async (what: 'check' | 'install'): Promise<void> => {
      if (polling) return;
      polling = true;
      let gone = false;
      try {
        for (let i = 0; i < 900 && scope.alive(); i++) {
          await new Promise((r) => setTimeout(r, 1000));
          const s = await load();
          if (!s) {
            if (what === 'install' && !gone) {
              gone = true;
              msg.say('The device is restarting into the new firmware…', 'ok');
            }
            continue;
          }
          if (what === 'check' && s['ota'] === 'idle' && s['otaResult'] !== 'pending') {
            msg.say(`Check done: ${RESULT[text(s['otaResult'])] ?? text(s['otaResult'])}.`, s['otaResult'] === 'failed' || s['otaResult'] === 'unreachable' ? 'bad' : 'ok');
            return;
          }
          if (what === 'install' && s['ota'] === 'downloading') msg.say(`Downloading: ${text(s['otaPct'])} %`);
          if (what === 'install' && (gone || s['ota'] === 'idle' || s['ota'] === 'confirming') && s['ota'] !== 'downloading' && s['ota'] !== 'verifying') {
            msg.say(`Finished: ${text(s['lastOta'])}.`, String(s['lastOta']).includes('fail') ? 'bad' : 'ok');
            return;
          }
        }
      } finally {
        polling = false;
      }
    };

    const apply = async (forced: boolean): Promise<void> => {
      replace(offerHost);
      const form: Record<string, string> = {};
      if (dry.checked) form['dry'] = '1';
      if (forced || force.checked) form['force'] = '1';
      const r: ApiResult<{ offer?: Offer }> = await post('/api/ota/apply', form);
      if (r.ok) {
        msg.say(dry.checked ? 'Verifying the update without installing it…' : 'Installing: the device downloads, verifies and then restarts.', 'ok');
        void follow('install');
        return;
      }
      msg.say(r.message, 'bad');
      const offer = r.data.offer;
      if (offer && offer.field === 'force') {
        const again = h('button', { type: 'button', class: 'danger' }, offer.label ?? 'Install anyway (I am charging)');
        again.addEventListener('click', () => void busy(again, () => apply(true)));
        replace(offerHost, again);
        again.focus();
      }
    };

    checkBtn.addEventListener('click', () =>
      void busy(checkBtn, async () => {
        const r = await post('/api/ota/check');
        if (!r.ok) return msg.say(r.message, 'bad');
        msg.say('Checking the release feed…');
        await follow('check');
      }),
    );
    installBtn.addEventListener('click', () => void busy(installBtn, () => apply(false)));
    auto.addEventListener('change', async () => {
      const r = await post('/api/ota/auto', { on: auto.checked ? '1' : '0' });
      if (r.ok) autoMsg.say(auto.checked ? 'Updates will install on their own when the device is idle and powered.' : 'Updates install only when you ask.', 'ok');
      else {
        auto.checked = !auto.checked;
        autoMsg.say(r.status === 404 ? 'This firmware cannot switch auto-install from the web.' : r.message, 'bad');
      }
    });

    host.append(
      card(
        'Firmware',
        facts,
        progress,
        h('div', { class: 'row' }, checkBtn, installBtn),
        check('Verify only, do not install (dry run)', dry),
        check('Allow the same or an older version', force, 'Also skips the battery check: only when the device is powered.'),
        msg,
        offerHost,
      ),
      card('Automatic updates', check('Install new versions automatically', auto, 'Only forward, when idle, on power or a charged battery; checked hourly.'), autoMsg),
    );
    const s = await load();
    if (s && (s['ota'] === 'downloading' || s['ota'] === 'verifying')) void follow('install');
    else if (s && s['ota'] === 'checking') void follow('check');
  },
};
