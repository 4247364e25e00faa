// The auth console: WEBTOK? prints the device access token (test builds only).

import type { Command } from '../core/console.ts';
import type { AccessToken } from './token.ts';

export function authCommands(token: AccessToken): Command[] {
  return [
    {
      verb: 'WEBTOK?',
      maxArgs: 0,
      help: 'print the device access token (test builds only)',
      run: (c) => c.out(token.reveal()),
    },
  ];
}
