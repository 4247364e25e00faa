// The parsed turn: what parse.ts produces and the turn engine consumes. Field
// names follow the wire so a turn reads the same in a log and in code.

import type { SessionOpKind, TtlClass } from './contract.ts';

export type ParseCode = 'Ok' | 'JsonError' | 'NotObject' | 'MissingField' | 'WrongType';

export interface MemWrite {
  content: string;
  /** Clamped to [0, 1]; 0.5 when absent or not a number. */
  importance: number;
  permanent: boolean;
  /** Absent when not given or not a known class: the store's default (weeks) applies. */
  ttl?: TtlClass;
}

export interface SessionOp {
  /** tell, poll and list are known but do nothing (the engine answers them with a refusal). */
  op: SessionOpKind;
  id: string;
  task: string;
  /** Lowercase; '' lets the device pick by provider priority. */
  provider: string;
  model: string;
  skill: string;
  name: string;
  project: string;
  attach: string[];
  /** tell (retired): read, no effect. */
  message: string;
}

/** A request from the retired spawn array. */
export interface SpawnRequest {
  provider: string;
  model: string;
  skill: string;
  task: string;
  name: string;
  category: string;
  note: string;
}

/** Scratchpad changes; null means leave that part unchanged. */
export interface ScratchpadPatch {
  active: string | null;
  short: string[] | null;
  mid: string[] | null;
  long: string[] | null;
}

/** Items dropped per array: malformed, or beyond the vector cap. */
export interface DropCounts {
  device: number;
  mem_write: number;
  mem_query: number;
  session_ops: number;
  spawn: number;
  await: number;
}

export interface Turn {
  reply: string;
  memory: string;
  ask: string;
  /** Kept device[] elements, as parsed JSON objects, for the action validator. */
  device: Record<string, unknown>[];
  mem_write: MemWrite[];
  mem_query: string[];
  session_ops: SessionOp[];
  /** null: no change at all. */
  scratchpad: ScratchpadPatch | null;
  spawn: SpawnRequest[];
  await: string[];
  dropped: DropCounts;
  /** Unknown session op names that were dropped (capped), for the next turn's refusal. */
  unknownOps: string[];
}

export type ParseResult =
  | { code: 'Ok'; detail: ''; turn: Turn }
  | { code: Exclude<ParseCode, 'Ok'>; detail: string; turn: null };
