// Applying a parsed turn, after its reply went out: device actions through
// the validator, the allow-list of the turn's role (src/device/action-roles.ts)
// and the applier, memory writes, the scratchpad and running
// memory. What the model should hear about next turn comes back as lines:
// mem_query results, refused actions, and the plain-text refusal of session
// ops this device does not run.

import type { DeviceActions } from '../device/index.ts';
import { actingRole, actionRefusal } from '../device/index.ts';
import type { Memory, Role } from '../memory/index.ts';
import { validateActions } from '../contracts/index.ts';
import type { Turn, TurnRequest } from '../contracts/index.ts';
import { stringify } from '../util/json.ts';

/** Session ops the sub-agent fabric will serve; until it exists they are refused too. */
export type SessionOpsHandler = (turn: Turn, req: TurnRequest) => Promise<string[]>;

/** What a turn writes to memory (src/memory/): memory writes and queries, the scratchpad, running memory. */
export type TurnMemory = Pick<Memory, 'episodic' | 'applyMemWrites' | 'relevantMemories' | 'applyScratchpad' | 'applyRunningMemory'>;

/** Where a turn's effects go. */
export interface ApplierDeps {
  /** The people's roles (src/chat/): who may apply which device action. */
  people: { roleOf(person: string | null): Role };
  /** The device's applier (src/device/actions.ts). */
  actions: Pick<DeviceActions, 'apply'>;
  /** The memory, read when a turn is applied (it mounts after the assistant). */
  memory(): TurnMemory;
}

export function makeApplier(deps: ApplierDeps, sessionOps: SessionOpsHandler | null) {
  return async (turn: Turn, req: TurnRequest): Promise<string[]> => {
    const lines: string[] = [];
    const unattended = req.unattended === true || req.scheduled === true;

    const checked = validateActions(turn.device);
    for (const r of checked.refused) lines.push(`[DEVICE] device action ${r.index + 1}${r.kind ? ` (${r.kind})` : ''} was refused: ${r.reason}.`);
    // Who may apply which kind: one allow-list per role (src/device/action-roles.ts), as device.control.
    const role = checked.actions.length ? actingRole(req, (p) => deps.people.roleOf(p)) : 'admin';
    for (const action of checked.actions) {
      const refusal = actionRefusal(action.kind, role);
      if (refusal) {
        lines.push(`[DEVICE] ${refusal}; nothing was changed.`);
        continue;
      }
      const result = deps.actions.apply(action, { unattended });
      if (!result.ok) lines.push(`[DEVICE] ${result.note}`);
    }

    const memory = deps.memory();
    if (turn.mem_write.length) {
      const outcomes = await memory.applyMemWrites(turn.mem_write, req.person);
      const failed = outcomes.filter((o) => o instanceof Error);
      if (failed.length) lines.push(`[MEMORY] ${failed.length} of ${outcomes.length} memory writes were not saved: ${failed.map((f) => (f as Error).message).join('; ')}`);
    }
    if (turn.mem_query.length) {
      const found = await memory.relevantMemories('', turn.mem_query, req.person);
      lines.push(`[MEMORY QUERY RESULTS] for ${turn.mem_query.map((q) => stringify(q)).join(', ')}:\n${found || '(nothing relevant found)'}`);
    }

    if (sessionOps) lines.push(...(await sessionOps(turn, req)));
    else {
      const asked = [...turn.session_ops.map((o) => o.op), ...turn.unknownOps, ...(turn.spawn.length ? ['spawn (retired array)'] : [])];
      if (asked.length) lines.push(`[SESSIONS] Not run: ${asked.join(', ')}. Sub-agents are not available on this device yet.`);
    }
    const retired = [...turn.session_ops.filter((o) => o.op === 'tell' || o.op === 'poll' || o.op === 'list').map((o) => o.op), ...turn.unknownOps];
    if (sessionOps && retired.length) lines.push(`[SESSIONS] Refused: ${retired.join(', ')} (retired or unknown session ops; the fabric is fire-and-forget).`);

    // The scratchpad and running memory are the owner's (chat members' turns leave them alone), and
    // a housekeeping turn (compaction) leaves them as they are.
    if (req.person === null && req.housekeeping !== true) {
      memory.applyScratchpad(turn.scratchpad);
      memory.applyRunningMemory(turn.memory);
    }
    return lines;
  };
}
