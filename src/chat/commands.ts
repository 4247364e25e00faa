// The chat command mechanism: subsystems register the owner commands they
// serve (/update by the chat subsystem itself, /remind and /loop by the
// scheduler, /fetch and /play by the file store, ...). The mechanism knows
// none of them. A placeholder keeps a spec command answering honestly
// ("not available on this device yet") until its subsystem registers the
// real one, which replaces it. Commands are owner-only unless marked open
// (/help and /start); every reply is signed with the device and firmware by
// the caller (src/chat/service.ts).

import type { ChatCommand, ChatCommandRegistry, ChatRole } from '../contracts/index.ts';

export type { ChatCommand, ChatCommandCall } from '../contracts/index.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const COMMAND_NAME = /^\/[a-z][a-z0-9_]{0,31}$/;
/** "/cmd@botname args": the command word, its optional bot suffix and the rest. */
const COMMAND_LINE = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]{1,64}))?(?:\s+([\s\S]*))?$/;

export function parseCommandLine(text: string): { name: string; bot: string | null; args: string } | null {
  const m = COMMAND_LINE.exec(text.trim());
  if (!m) return null;
  return { name: `/${m[1]!.toLowerCase()}`, bot: m[2] ?? null, args: (m[3] ?? '').trim() };
}

export class ChatCommands implements ChatCommandRegistry {
  private commands = new Map<string, ChatCommand>();

  /** Registers a command; a real command replaces a placeholder, anything else twice throws. */
  register(command: ChatCommand): void {
    if (!COMMAND_NAME.test(command.name)) throw new Error(`chat command name ${command.name} is malformed`);
    const existing = this.commands.get(command.name);
    if (existing && !(existing.placeholder && !command.placeholder)) throw new Error(`chat command ${command.name} registered twice`);
    this.commands.set(command.name, command);
  }

  get(name: string): ChatCommand | null {
    return this.commands.get(name) ?? null;
  }

  /** Commands a role may run, sorted as /help lists them. */
  listFor(role: ChatRole): ChatCommand[] {
    return [...this.commands.values()].filter((c) => c.open || role === 'admin').sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
