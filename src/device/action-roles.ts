// Who may apply which device action (docs/decisions.md, "Who may change the
// device from a chat turn"): one allow-list per role, read by both ways an
// action arrives, a turn's device[] (src/turn/apply.ts) and the
// device.control tool (src/system/tools.ts), so neither can do what the
// other refuses.
//
//   admin    every kind: the device's settings (config), its model
//            (orch_model) and a restart (reboot) are the device's, and only
//            an admin (the owner's chat, the web page, the console, /mcp with
//            the token) decides them for everyone;
//   user     led, lights, tts: a moment's light or speech, nothing kept;
//   guest    the same;
//   unknown  nothing (a revoked chat, and a turn still running for one:
//            a routine it made, a sub-agent's synthesis).
//
// The role is the people registry's now, never above the turn's or call's
// admin flag: a person promoted after a job started does not gain by it, one
// demoted or revoked loses at once.

import type { ChatRole as Role } from '../contracts/index.ts';
import type { ActionKind } from '../contracts/index.ts';

export const ACTION_ROLES: Readonly<Record<Role, readonly ActionKind[]>> = {
  admin: ['led', 'lights', 'config', 'orch_model', 'reboot', 'tts'],
  user: ['led', 'lights', 'tts'],
  guest: ['led', 'lights', 'tts'],
  unknown: [],
};

/** The role a turn or a tool call acts with. */
export function actingRole(caller: { admin: boolean; person: string | null }, roleOf: (person: string | null) => Role): Role {
  const role = roleOf(caller.person);
  return role === 'admin' && !caller.admin ? 'user' : role;
}

/** Why this role may not apply this kind of action (never a value from the action), or null when it may. */
export function actionRefusal(kind: ActionKind, role: Role): string | null {
  if (ACTION_ROLES[role].indexOf(kind) >= 0) return null;
  if (role === 'unknown') return `${kind}: this chat may no longer change anything on the device`;
  return `${kind}: changes the device for everyone, so it is for admins only`;
}
