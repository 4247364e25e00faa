// The spec's console commands whose subsystem is not built yet. Each answers
// "ERR unavailable: ..." (and is listed by HELP), so a script meets a clear
// refusal naming what is missing rather than "unknown command".
//
// Mounted last in boot() (src/console/index.ts), and only for verbs that no subsystem has
// registered, so a subsystem that lands first never collides with its row.
// The issue that builds a subsystem registers its real commands (from the
// subsystem's own folder) and deletes its rows here.

import { CommandError, type Command, type Console } from '../core/console.ts';

export interface Missing {
  /** What the command needs, as the reply names it. */
  needs: string;
  /** [verb, usage] as the spec's table writes them. */
  commands: ReadonlyArray<readonly [string, string]>;
}

// Every subsystem of the spec's console table is built: the table is empty,
// and the mechanism stays for a command the spec may add before its subsystem.
export const NOT_BUILT: readonly Missing[] = [];

/** An "unavailable" answer for every row whose verb nobody has registered yet. */
export function unavailableCommands(console: Pick<Console, 'has'>, table: readonly Missing[] = NOT_BUILT): Command[] {
  const out: Command[] = [];
  for (const group of table) {
    for (const [verb, usage] of group.commands) {
      if (console.has(verb)) continue;
      out.push({
        verb,
        ...(usage ? { usage } : {}),
        help: `unavailable: needs ${group.needs}, not built yet`,
        run: () => {
          throw new CommandError(`unavailable: ${verb} needs ${group.needs}, which is not built yet`);
        },
      });
    }
  }
  return out;
}

/** Registers unavailableCommands on one console and returns how many (0 for an empty table); boot mounts src/console/index.ts instead. */
export function installUnavailable(console: Console, table: readonly Missing[] = NOT_BUILT): number {
  const commands = unavailableCommands(console, table);
  for (const c of commands) console.register(c);
  return commands.length;
}
