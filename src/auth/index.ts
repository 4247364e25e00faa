// The auth subsystem's face: the gate (the token from header X-Device-Token
// or a form field, compared in constant time, failing closed; never from the
// query string, and nothing about Host, Origin, Referer or the client
// address), the sign-in routes (routes.ts), WEBTOK? (console.ts) and the
// secrets it registers for the tunnel's screen. The token, the sign-in codes,
// the secrets and the setup passphrase are made when it mounts (before wifi,
// which needs them), and its mount gives the router the token gate; wifi's
// addresses, which the connect sheet lists, are a late need.

import { formFields } from '../core/form-route.ts';
import type { Gate } from '../core/router.ts';
import type { Later, Subsystem } from '../core/subsystem.ts';
import { authCommands } from './console.ts';
import { SetupPassphrase } from './passphrase.ts';
import { signInRoutes, type Addresses } from './routes.ts';
import { Secrets, type LiveSecret } from './secrets.ts';
import { SignInCodes } from './signin.ts';
import { AccessToken } from './token.ts';

export { SecretScreen } from './secret-screen.ts';
export { SETUP_SSID, SetupPassphrase } from './passphrase.ts';
export { SCAN_LIFETIME_MS, SignInCodes, type MintedCode } from './signin.ts';

export { stripResponseBody, tunnelAllows, viaTunnel } from './tunnel-guard.ts';
export type { LiveSecret } from './secrets.ts';

/** Every live secret, by kind (src/auth/secrets.ts): what the cloud tunnel screens its answers for. */
export interface LiveSecrets {
  live(): LiveSecret[];
}

export const TOKEN_HEADER = 'x-device-token';
const TOKEN_FIELD = 'token';

function makeGate(token: AccessToken): Gate {
  const gate: Gate = (req) => {
    try {
      const header = req.headers.get(TOKEN_HEADER);
      if (header !== undefined) return token.matches(header);
      if (!req.body.length) return false;
      const form = formFields(req);
      return form.ok && token.matches(form.fields.get(TOKEN_FIELD));
    } catch {
      return false;
    }
  };
  gate.presented = (headers) => headers.has(TOKEN_HEADER);
  return gate;
}

export interface AuthOptions {
  /** The network (src/wifi's provisioning, mounted after auth, which it needs): the base URLs for the connect sheet. */
  network: Later<{ addresses: Addresses }>;
}

export interface AuthFace {
  token: AccessToken;
  signin: SignInCodes;
  secrets: Secrets;
  passphrase: SetupPassphrase;
}

export const auth: Subsystem<AuthOptions, AuthFace> = {
  name: 'auth',
  needs: [],
  later: ['network'],
  provides: { token: (f) => f.token, signin: (f) => f.signin, secrets: (f) => f.secrets, passphrase: (f) => f.passphrase },
  start(k, { network }) {
    const random = (bytes: Uint8Array): void => k.hal.system.random(bytes);
    const token = new AccessToken(k.store('auth'), random, k.log.redactor);
    const signin = new SignInCodes(k.clock, random);
    // A new token ends every sign-in in progress.
    token.onRotate(() => signin.clear());
    const o = { token, signin, secrets: new Secrets(), passphrase: new SetupPassphrase(k.store('auth'), random, k.log.redactor) };
    // What the cloud tunnel screens its answers for (src/auth/secrets.ts); apPass is registered with its routes.
    o.secrets.register('token', () => [o.token.reveal()]);
    o.secrets.register('signin-code', () => o.signin.live());
    o.secrets.register('credential', () => k.log.redactor.values());
    o.secrets.register('setup-passphrase', () => [o.passphrase.reveal()]);
    return {
      provides: o,
      routes: signInRoutes(k, o.token, o.signin, o.passphrase, () => network.get().addresses()),
      // The router's gate checks the token.
      gate: makeGate(token),
      commands: authCommands(o.token),
    };
  },
};
