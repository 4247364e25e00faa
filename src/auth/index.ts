// The auth subsystem's gate: the token from header X-Device-Token or a form
// field, compared in constant time, failing closed. Never from the query
// string, and nothing about Host, Origin, Referer or the client address.

import type { Gate } from '../core/router.ts';
import type { Context } from '../core/context.ts';
import { parseForm } from '../net/http/body.ts';
import type { LiveSecret } from './secrets.ts';
import type { AccessToken } from './token.ts';

export { SecretScreen } from './secret-screen.ts';
export { SETUP_SSID, SetupPassphrase } from './passphrase.ts';
export { SCAN_LIFETIME_MS, type MintedCode } from './signin.ts';
export { stripResponseBody, tunnelAllows } from './tunnel-guard.ts';
export type { LiveSecret } from './secrets.ts';

/** Every live secret, by kind (src/auth/secrets.ts): what the cloud tunnel screens its answers for. */
export interface LiveSecrets {
  live(): LiveSecret[];
}

export const TOKEN_HEADER = 'x-device-token';
export const TOKEN_FIELD = 'token';

export function makeGate(token: AccessToken): Gate {
  const gate: Gate = (req) => {
    try {
      const header = req.headers.get(TOKEN_HEADER);
      if (header !== undefined) return token.matches(header);
      if (!req.body.length) return false;
      const form = parseForm(req);
      return form.ok && token.matches(form.form.fields.get(TOKEN_FIELD));
    } catch {
      return false;
    }
  };
  gate.presented = (headers) => headers.has(TOKEN_HEADER);
  return gate;
}

export function installAuth(ctx: Context): void {
  // What the cloud tunnel screens its answers for (src/auth/secrets.ts); apPass is registered with its routes.
  ctx.secrets.register('token', () => [ctx.token.reveal()]);
  ctx.secrets.register('signin-code', () => ctx.signin.live());
  ctx.secrets.register('credential', () => ctx.log.redactor.values());
  ctx.console.register({
    verb: 'WEBTOK?',
    maxArgs: 0,
    help: 'print the device access token (test builds only)',
    run: (c) => c.out(ctx.token.reveal()),
  });
}
