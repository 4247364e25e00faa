// The update screen: install progress while a firmware update installs. It
// takes over from every screen but the panel probe, ignores touches (the
// dispatcher counts them as isolated), and keeps the redraw timer running so
// the bar moves.

import type { Built, Screen, ScreenHost } from './screen-kit.ts';
import { updateScreen, type UpdateView } from './screens.ts';
import { stringify } from '../util/json.ts';

export class UpdateScreen implements Screen {
  constructor(private readonly host: ScreenHost) {}

  build(): Built {
    const l = this.host.layout();
    const t = this.host.theme();
    const s = this.host.dev.ota.state();
    const detail = s.ota === 'verifying' ? 'Checking it' : s.ota === 'restarting' ? 'Restarting' : 'Do not unplug';
    const v: UpdateView = { title: 'Updating', version: s.otaLatest ? `to ${s.otaLatest}` : 'new firmware', pct: s.otaPct, detail };
    return { key: `update|${t.name}|${stringify(v)}`, make: () => updateScreen(l, t, v) };
  }

  animating(): boolean {
    return true;
  }
}
