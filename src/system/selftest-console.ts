// The self-test on the test console: SELFTEST [FULL] runs every item of
// device.selftest plus clock and wifi (FULL also plays the speaker's test
// tone), TEST <name> runs one item. A FAIL ends the reply with ERR, so a
// script can take the last line as the verdict; PASS and SKIP end with OK.

import { CommandError, type Command } from '../core/console.ts';
import { formatSelftest, runSelftest, runSelftestItem, TEST_NAMES, type SelftestParts } from './selftest.ts';

export function selftestCommands(parts: SelftestParts): Command[] {
  return [
    {
      verb: 'SELFTEST',
      usage: '[FULL]',
      help: 'run the self-test: PASS, FAIL or SKIP per item (FULL adds the audible items)',
      run: (c) => {
        const full = c.argv.length === 1 && c.argv[0]!.toUpperCase() === 'FULL';
        if (c.argv.length > 1 || (c.argv.length === 1 && !full)) throw new CommandError('usage: SELFTEST [FULL]');
        const items = runSelftest(parts, { audible: full, withConsoleItems: true });
        for (const line of formatSelftest(items).split('\n')) c.out(line);
        const failed = items.filter((i) => i.status === 'FAIL').map((i) => i.item);
        if (failed.length) throw new CommandError(`selftest failed: ${failed.join(', ')}`);
      },
    },
    {
      verb: 'TEST',
      usage: '<name>',
      help: `run one self-test item (${TEST_NAMES.join(', ')}); TEST audio plays the tone`,
      run: (c) => {
        const name = c.argv[0]?.toLowerCase();
        if (c.argv.length !== 1 || !name) throw new CommandError(`usage: TEST <name> (names: ${TEST_NAMES.join(', ')})`);
        const item = runSelftestItem(parts, name, { audible: true });
        if (!item) throw new CommandError(`unknown test ${name.length > 24 ? name.slice(0, 24) + '...' : name} (names: ${TEST_NAMES.join(', ')})`);
        c.out(`${item.status} ${item.item}: ${item.detail}`);
        if (item.status === 'FAIL') throw new CommandError(`${item.item} failed`);
      },
    },
  ];
}
