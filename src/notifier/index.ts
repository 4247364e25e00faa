// The Notifier subsystem (spec, What the service does 1 and "Notifier
// link"): in Notifier mode the Bluetooth LE link drives the ring and the
// screen; its console commands are there in both modes. The GATT table is
// gatt.ts, the wire formats frame.ts, config.ts and status.ts
// (docs/notifier-protocol.md).

import type { Context } from '../core/context.ts';
import type { Ui } from '../ui/index.ts';
import { installNotifierConsole } from './console.ts';
import { NotifierLink } from './link.ts';

export { NotifierLink };

export function installNotifier(ctx: Context, ui: Ui): NotifierLink {
  const link = new NotifierLink(ctx, ui);
  installNotifierConsole(ctx, link);
  ctx.status.section(() => {
    const v = link.view();
    return { notifier: { running: v.running, name: v.name, connected: v.centrals.length, frames: v.frames, seq: v.seq, last: v.last } };
  });
  // The mode decides: the link runs in Notifier mode only (Orchestrator mode has Wi-Fi, HTTP and the assistant instead).
  if (ctx.mode === 0) link.start();
  return link;
}
