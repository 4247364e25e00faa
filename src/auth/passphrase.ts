// The setup network's passphrase: 10 characters of lowercase letters and
// digits without 0 o 1 l, generated on first boot, persisted, replaced only
// by a factory reset (which erases it). Shown on the device screen, in the
// Wi-Fi join QR and by GET /api/connect; registered as a secret so it never
// reaches a log line, mDNS or the tunnel.

import type { Store } from '../core/store.ts';
import type { Redactor } from '../log/redact.ts';
import { PASSPHRASE_ALPHABET, PASSPHRASE_LENGTH, setupPassphrase, type RandomFill } from '../util/ids.ts';

export const SETUP_SSID = 'Device-setup';
const KEY = 'apPass';

function valid(p: string | null): p is string {
  return p !== null && p.length === PASSPHRASE_LENGTH && [...p].every((c) => PASSPHRASE_ALPHABET.includes(c));
}

export class SetupPassphrase {
  private value: string;

  constructor(store: Store, random: RandomFill, redactor: Redactor) {
    const saved = store.strOrNull(KEY);
    if (valid(saved)) this.value = saved;
    else {
      this.value = setupPassphrase(random);
      store.set(KEY, this.value);
    }
    redactor.add(this.value);
  }

  /** For the screen, the join QR and GET /api/connect only. */
  reveal(): string {
    return this.value;
  }
}
