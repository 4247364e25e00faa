// The sign-in routes: minting codes for the screen's QR and the hand-entry
// 'Show code' path, exchanging a code for the token once, rotating the
// token, and the connect sheet (sign-in links and the setup passphrase).

import { formFields } from '../core/form-route.ts';
import type { Kernel } from '../core/kernel.ts';
import type { Route } from '../core/router.ts';
import { parseJsonBody, queryParams } from '../net/http/body.ts';
import { errorResponse, jsonResponse } from '../net/http/errors.ts';
import type { HttpRequest } from '../net/http/types.ts';
import { isPlainObject } from '../util/json.ts';
import { SETUP_SSID, type SetupPassphrase } from './passphrase.ts';
import { HAND_LIFETIME_MS, SCAN_LIFETIME_MS, type SignInCodes } from './signin.ts';
import type { AccessToken } from './token.ts';

/**
 * Wrong codes are counted for the log (one line a minute at most), never
 * answered with a lockout: a lockout anyone can trigger would keep the owner
 * out, and a code has 59 bits, which makes guessing hopeless at any rate the
 * device can answer (src/util/ids.ts, docs/decisions.md "Guessable secrets").
 */
const REPORT_EVERY_MS = 60_000;

/** Base URLs the device can be reached at (LAN address, mDNS name, setup network). */
export type Addresses = () => Array<{ label: string; base: string }>;

function codeField(req: HttpRequest): unknown {
  const type = (req.headers.get('content-type') ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    const body = parseJsonBody(req);
    return body.ok && isPlainObject(body.value) ? body.value['code'] : undefined;
  }
  const form = formFields(req);
  return form.ok ? form.fields.get('code') : undefined;
}

/** The sign-in routes; k for the clock and the log. */
export function signInRoutes(k: Kernel, token: AccessToken, signin: SignInCodes, passphrase: SetupPassphrase, addresses: Addresses): Route[] {
  const { hal } = k;
  let wrong = 0;
  let reportedAt = -REPORT_EVERY_MS;

  return [
    {
      method: 'GET',
      path: '/api/signin/code',
      handler: (req) => {
        const hand = queryParams(req).get('purpose') === 'hand';
        const minted = signin.mint(hand ? HAND_LIFETIME_MS : SCAN_LIFETIME_MS);
        return jsonResponse({ code: minted.code, path: `/?c=${minted.code}`, purpose: hand ? 'hand' : 'scan', lifetimeMs: minted.lifetimeMs, expiresInMs: minted.lifetimeMs });
      },
    },

    // Open by necessity: the caller does not have the token yet; the code is the credential.
    {
      method: 'POST',
      path: '/api/signin/exchange',
      access: 'open',
      bodyLimit: 1024,
      handler: (req) => {
        const result = signin.redeem(codeField(req));
        if (!result.ok) {
          wrong++;
          const now = hal.clock.monoMs();
          if (now - reportedAt >= REPORT_EVERY_MS) {
            k.log.warn('auth', `${wrong} wrong sign-in code${wrong === 1 ? '' : 's'} since the last report`);
            wrong = 0;
            reportedAt = now;
          }
          const why = result.reason === 'expired' ? 'has expired' : result.reason === 'used' ? 'was already used' : 'is not valid';
          return errorResponse(401, 'bad-code', `This sign-in code ${why}. Ask the device for a new one.`);
        }
        k.log.info('auth', 'a sign-in code was exchanged for the token');
        return jsonResponse({ token: token.reveal() });
      },
    },
    {
      method: 'POST',
      path: '/api/token/regen',
      handler: () => {
        token.rotate();
        k.log.info('auth', 'the access token was rotated; earlier codes and links are void');
        // The caller proved the old token, so it may carry on with the new one.
        return jsonResponse({ token: token.reveal() });
      },
    },
    {
      method: 'GET',
      path: '/api/connect',
      handler: () => {
        const minted = signin.mint(SCAN_LIFETIME_MS);
        return jsonResponse({
          code: minted.code,
          expiresInMs: minted.lifetimeMs,
          links: addresses().map((a) => ({ label: a.label, url: `${a.base}/?c=${minted.code}` })),
          setup: { ssid: SETUP_SSID, passphrase: passphrase.reveal() },
        });
      },
    },
  ];
}
