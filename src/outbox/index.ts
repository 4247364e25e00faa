// The outbox subsystem's face: owner notices (an update's outcome, a download
// waiting for approval, a routine's result) kept durably in NVS until the
// chat messenger can take them (outbox.ts). It needs nothing and ranks low,
// so every subsystem that tells the owner something holds it from its own
// mount; the chat, when it mounts, drains it into its send queue.

import { whole, type Subsystem } from '../core/subsystem.ts';
import { Outbox, OUTBOX_NS } from './outbox.ts';

export { Outbox, OUTBOX_MAX } from './outbox.ts';

export const outbox: Subsystem<Record<never, never>, Outbox> = {
  name: 'outbox',
  needs: [],
  provides: { outbox: whole },
  start: (k) => ({ provides: new Outbox(k.store(OUTBOX_NS), k.clock) }),
};
