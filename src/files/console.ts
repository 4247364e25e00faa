// The file store's console command (test builds): STORAGE <pct or off>
// pretends the file store's quota is pct % used, so quota exhaustion can be
// tested without writing gigabytes; off returns to the real figure.

import { CommandError, type Command } from '../core/console.ts';
import type { Files } from './files.ts';
import type { CardView } from './store.ts';

const PCT = /^(\d{1,3})%?$/;

export function filesCommands(files: Files, card: Pick<CardView, 'live'>): Command[] {
  return [
    {
      verb: 'STORAGE',
      maxArgs: 1,
      usage: '<pct or off>',
      help: 'pretend the file store is pct % full (off: the real use)',
      run: (c) => {
        const arg = (c.argv[0] ?? '').toLowerCase();
        if (arg === 'off') files.store.simulateUse(null);
        else {
          const m = PCT.exec(arg);
          if (!m || Number(m[1]) > 100) throw new CommandError('usage: STORAGE <0-100 or off>');
          if (!card.live()) throw new CommandError('no usable card');
          files.store.simulateUse(Number(m[1]));
        }
        const s = files.store.summary();
        c.out(`files=${s.count} used=${s.bytes} quota=${files.store.quota()}`);
      },
    },
  ];
}
