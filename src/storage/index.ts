// The storage subsystem's face: the sd= status field, the files summary and
// sd status in the state snapshot, GET /api/sdprobe (re-probe the card; a
// card inserted later upgrades the tier without a reboot), a periodic probe
// (so a card inserted or pulled while nobody asks is noticed within
// CARD_PROBE_MS), a device timeline row per tier change, and the console's
// SDCHECK (ends ERR when the write/read check fails).

import { CommandError, type Command } from '../core/console.ts';
import type { Kernel } from '../core/kernel.ts';
import type { Route } from '../core/router.ts';
import { whole, type Later, type Subsystem } from '../core/subsystem.ts';
import { jsonResponse } from '../net/http/errors.ts';
import { encode, decode } from '../util/utf8.ts';
import { Card, CARD_PROBE_MS, type CardState } from './card.ts';

export { Card, type CardState } from './card.ts';
export { removeTree } from './tree.ts';

const CHECK_PATH = '/sdcheck.tmp';

function describe(c: CardState): string {
  if (c.tier === 'none') return 'no card';
  if (c.tier === 'unsupported') return `an unsupported card of ${c.totalBytes} bytes (under 1 GB)`;
  return c.totalBytes === null ? 'a card of unknown size (512 MB default quota)' : `a card of ${c.totalBytes} bytes`;
}

/** What storage needs (it makes the Card): the timeline, and the file store's figures (a late need). */
export interface StorageOptions {
  timeline: { row(kind: 'storage', text: string): void };
  /** The files (src/files/, mounted after storage, whose card they use): the store's summary, read when the state is. */
  files: Later<{ store: { summary(): { count: number; bytes: number } } }>;
}

export const storage: Subsystem<StorageOptions, Card> = {
  name: 'storage',
  needs: ['timeline'],
  later: ['files'],
  provides: { card: whole },
  start(k, o) {
    const card = new Card(k.hal.sd);
    const { files } = o;
    const summary = (): Record<string, unknown> => {
      const c = card.get();
      const s = c.tier === 'present' ? files.get().store.summary() : { count: 0, bytes: 0 };
      return {
        present: c.tier === 'present',
        unsupported: c.tier === 'unsupported',
        count: s.count,
        bytes: s.bytes,
        quota: c.quota,
        cardFree: c.freeBytes,
      };
    };
    card.onChange((now, before) => {
      k.log.info('sd', `card: ${describe(before)} -> ${describe(now)}`);
      o.timeline.row('storage', `SD card: ${describe(now)} (was ${describe(before)})`);
    });
    k.hal.clock.setInterval(() => card.probe(), CARD_PROBE_MS);
    return {
      provides: card,
      status: { fields: [['sd', () => card.statusWord()]], sections: [() => ({ sd: card.statusWord(), files: summary() })] },
      routes: storageRoutes(card, summary),
      commands: storageCommands(card, summary, k),
    };
  },
};

function storageRoutes(card: Card, summary: () => Record<string, unknown>): Route[] {
  return [{
    method: 'GET',
    path: '/api/sdprobe',
    handler: () => {
      const c = card.probe();
      return jsonResponse({ sd: card.statusWord(), tier: c.tier, quota: c.quota, cardTotal: c.totalBytes, cardFree: c.freeBytes, files: summary() });
    },
  }];
}

function storageCommands(card: Card, summary: () => Record<string, unknown>, k: Kernel): Command[] {
  return [{
    verb: 'SDCHECK',
    maxArgs: 0,
    help: 'probe the SD card, print its tier and figures, and write, read back and remove a test file',
    run: (c) => {
      const s = card.probe();
      c.out(`sd=${card.statusWord()} tier=${s.tier} total=${s.totalBytes ?? '-'} free=${s.freeBytes ?? '-'} quota=${s.quota}`);
      const f = summary();
      c.out(`files=${String(f['count'])} bytes=${String(f['bytes'])}`);
      if (s.tier === 'none') return;
      const sd = k.hal.sd;
      let failure: string | null = null;
      try {
        const data = encode(`sdcheck ${k.hal.clock.monoMs()}`);
        const w = sd.open(CHECK_PATH, 'w');
        w.write(data);
        w.sync();
        w.close();
        const back = decode(sd.read(CHECK_PATH, 0, data.length + 8));
        sd.remove(CHECK_PATH);
        if (back !== decode(data)) failure = 'read back different bytes';
      } catch (e) {
        failure = e instanceof Error ? e.message : String(e);
      }
      if (failure === null) return c.out('rw=pass');
      c.out(`rw=fail ${failure}`);
      // A card that cannot be written is a failed check, whatever its tier: scripts read the final line.
      throw new CommandError('sd write/read check failed');
    },
  }];
}
