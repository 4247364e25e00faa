// Updates: Check for Updates, Install Update (dry run and force), the
// battery refusal with its 'Install anyway (I am charging)' re-submit, the
// download progress, and the auto-install switch.

import { get, post, type ApiResult } from '../api.ts';
import type { Scope, Section } from '../app.ts';
import { busy, card, check, h, kv, message, replace, text, type Message } from '../dom.ts';

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

/** How long the page follows the engine: a second a poll. */
const FOLLOW_POLLS = 900;

const isDownloading = (s: State): boolean => s['ota'] === 'downloading' || s['ota'] === 'verifying';

/** The section's controls and what they do: the firmware card and the auto-install switch. */
class UpdatesView {
  private readonly facts = h('div');
  private readonly progress = h('progress', { max: '100', value: '0', 'aria-label': 'Download progress', hidden: true });
  private readonly msg: Message = message();
  private readonly offerHost = h('div', { class: 'row' });
  private readonly checkBtn = h('button', { type: 'button' }, 'Check for updates');
  private readonly installBtn = h('button', { type: 'button' }, 'Install update');
  private readonly dry = h('input', { name: 'dry' });
  private readonly force = h('input', { name: 'force' });
  private readonly auto = h('input', { name: 'autoUpd' });
  private readonly autoMsg: Message = message();
  private polling = false;

  constructor(private readonly scope: Scope) {
    this.checkBtn.addEventListener('click', () => void busy(this.checkBtn, () => this.check()));
    this.installBtn.addEventListener('click', () => void busy(this.installBtn, () => this.apply(false)));
    this.auto.addEventListener('change', () => void this.setAuto());
  }

  mount(host: HTMLElement): void {
    host.append(
      card(
        'Firmware',
        this.facts,
        this.progress,
        h('div', { class: 'row' }, this.checkBtn, this.installBtn),
        check('Verify only, do not install (dry run)', this.dry),
        check('Allow the same or an older version', this.force, 'Also skips the battery check: only when the device is powered.'),
        this.msg,
        this.offerHost,
      ),
      card('Automatic updates', check('Install new versions automatically', this.auto, 'Only forward, when idle, on power or a charged battery; checked hourly.'), this.autoMsg),
    );
  }

  /** Picks up what the engine is doing when the section opens. */
  resume(s: State | null): void {
    if (s && isDownloading(s)) void this.follow('install');
    else if (s && s['ota'] === 'checking') void this.follow('check');
  }

  private show(s: State): void {
    const result = text(s['otaResult']);
    replace(
      this.facts,
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
    this.progress.hidden = !isDownloading(s);
    if (typeof s['otaPct'] === 'number') this.progress.value = s['otaPct'];
    this.auto.checked = s['autoUpd'] === true;
  }

  async load(): Promise<State | null> {
    const r = await get<State>('/api/state');
    if (!r.ok) return null;
    if (this.scope.alive()) this.show(r.data);
    return r.data;
  }

  /** Follows the engine until it settles; a restart shows as a gap in answers. */
  private async follow(what: 'check' | 'install'): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    const seen = { gone: false };
    try {
      for (let i = 0; i < FOLLOW_POLLS && this.scope.alive(); i++) {
        await new Promise((r) => setTimeout(r, 1000));
        if (this.settled(what, await this.load(), seen)) return;
      }
    } finally {
      this.polling = false;
    }
  }

  /** One poll of follow(): says what the engine is doing; true once it has settled. */
  private settled(what: 'check' | 'install', s: State | null, seen: { gone: boolean }): boolean {
    if (!s) {
      if (what === 'install' && !seen.gone) {
        seen.gone = true;
        this.msg.say('The device is restarting into the new firmware…', 'ok');
      }
      return false;
    }
    if (what === 'check') {
      if (s['ota'] !== 'idle' || s['otaResult'] === 'pending') return false;
      this.msg.say(`Check done: ${RESULT[text(s['otaResult'])] ?? text(s['otaResult'])}.`, s['otaResult'] === 'failed' || s['otaResult'] === 'unreachable' ? 'bad' : 'ok');
      return true;
    }
    if (s['ota'] === 'downloading') this.msg.say(`Downloading: ${text(s['otaPct'])} %`);
    if ((seen.gone || s['ota'] === 'idle' || s['ota'] === 'confirming') && !isDownloading(s)) {
      this.msg.say(`Finished: ${text(s['lastOta'])}.`, String(s['lastOta']).includes('fail') ? 'bad' : 'ok');
      return true;
    }
    return false;
  }

  private async check(): Promise<void> {
    const r = await post('/api/ota/check');
    if (!r.ok) return this.msg.say(r.message, 'bad');
    this.msg.say('Checking the release feed…');
    await this.follow('check');
  }

  private async apply(forced: boolean): Promise<void> {
    replace(this.offerHost);
    const form: Record<string, string> = {};
    if (this.dry.checked) form['dry'] = '1';
    if (forced || this.force.checked) form['force'] = '1';
    const r: ApiResult<{ offer?: Offer }> = await post('/api/ota/apply', form);
    if (r.ok) {
      this.msg.say(this.dry.checked ? 'Verifying the update without installing it…' : 'Installing: the device downloads, verifies and then restarts.', 'ok');
      void this.follow('install');
      return;
    }
    this.msg.say(r.message, 'bad');
    const offer = r.data.offer;
    if (offer && offer.field === 'force') {
      const again = h('button', { type: 'button', class: 'danger' }, offer.label ?? 'Install anyway (I am charging)');
      again.addEventListener('click', () => void busy(again, () => this.apply(true)));
      replace(this.offerHost, again);
      again.focus();
    }
  }

  private async setAuto(): Promise<void> {
    const on = this.auto.checked;
    const r = await post('/api/ota/auto', { on: on ? '1' : '0' });
    if (r.ok) this.autoMsg.say(on ? 'Updates will install on their own when the device is idle and powered.' : 'Updates install only when you ask.', 'ok');
    else {
      this.auto.checked = !on;
      this.autoMsg.say(r.status === 404 ? 'This firmware cannot switch auto-install from the web.' : r.message, 'bad');
    }
  }
}

export const updates: Section = {
  id: 'updates',
  title: 'Updates',
  async render(host, scope: Scope) {
    const view = new UpdatesView(scope);
    view.mount(host);
    view.resume(await view.load());
  },
};
