// APINFO? on the provisioning console: the setup network's name and
// passphrase, as the spec allows (an owner at the USB port who cannot read
// the screen). Registered in release builds too: it is the one secret the
// serial port may show, and physical access to the port is the credential.

import type { SetupPassphrase } from '../auth/passphrase.ts';
import { SETUP_SSID } from '../auth/passphrase.ts';
import type { Context } from '../core/context.ts';
import type { Provisioning } from './provisioning.ts';

export function installWifiConsole(ctx: Context, provisioning: Provisioning, passphrase: SetupPassphrase): void {
  ctx.console.register({
    verb: 'APINFO?',
    maxArgs: 0,
    help: 'the setup network: name, passphrase and whether it is up',
    testOnly: false,
    run: (c) => c.out(`ssid=${SETUP_SSID} pass=${passphrase.reveal()} setup=${provisioning.view().setup.state}`),
  });
}
