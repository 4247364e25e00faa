// The turn contract (spec "Turn object"): the one definition of the object a
// model returns each turn, the parsed turn's types, and what the rest of the
// device sees of a turn (TurnRequest, TurnOutcome, the wire a turn sends
// through). src/turn/schema.ts generates the wire JSON schema from it,
// src/turn/promptdoc.ts the prompt's field documentation, and src/turn/parse.ts reads its caps,
// defaults and enums from it, so a cap changed here changes all three.
//
// Decisions recorded here (and in docs/decisions.md, "Turn contract"):
// - Retired parts are parsed but absent from the wire and the prompt: the
//   top-level spawn and await arrays, and session_ops.message (used only by
//   the retired tell op). The wire op enum offers spawn and terminate; the
//   parser also knows tell, poll and list as no-op kinds.
// - session_ops.attach: a ref longer than 73 bytes is dropped, not cut: a cut
//   ref would name a different document.
// - await (retired): kept to 6 entries of at most 15 bytes (a session tag),
//   like the other per-turn vectors; the spec gives no cap but the array is
//   ignored anyway, so bounding it costs nothing.
// - Strings in items are trimmed before capping; a blank value counts as
//   absent (so a default applies).

import type { ArrayField, Field, ObjectField, StringField } from './contract-types.ts';
import { DEVICE_ACTION, MODEL_CAP_BYTES } from './device-contract.ts';
import type { CustomEndpoint, ProviderId, RoundRequest, RoundResult, RoundStream } from './provider-wire.ts';
import type { SpawnSpec } from './turn-spawn.ts';

export const MEMORY_CAP_BYTES = 1200;
export const TASK_CAP_BYTES = 4095;
export const VECTOR_CAP = 6;

export const TTL_CLASSES = ['session', 'days', 'weeks', 'months', 'permanent'] as const;
export type TtlClass = (typeof TTL_CLASSES)[number];

export const WIRE_SESSION_OPS = ['spawn', 'terminate'] as const;
export const NOOP_SESSION_OPS = ['tell', 'poll', 'list'] as const;
export type SessionOpKind = (typeof WIRE_SESSION_OPS)[number] | (typeof NOOP_SESSION_OPS)[number];

const s = (capBytes: number, doc: string, extra: Partial<StringField> = {}): StringField => ({
  type: 'string',
  capBytes,
  trim: true,
  doc,
  ...extra,
});
const strings = (maxItems: number, each: StringField, doc: string, extra: Partial<ArrayField> = {}): ArrayField => ({
  type: 'array',
  maxItems,
  items: each,
  doc,
  ...extra,
});

/** Sub-agent fields shared by session_ops (spawn) and the retired spawn array. */
const PROVIDER = s(15, 'provider id; empty lets the device choose by priority', { lower: true });
const MODEL = s(MODEL_CAP_BYTES, 'model id; empty for the provider default');
const SKILL = s(23, 'approved skill capsule id to inject into the brief');
const NAME = s(23, 'display name and saved-document name');
const TASK = s(TASK_CAP_BYTES, 'the instruction for the sub-agent');

export const MEM_WRITE_ITEM: ObjectField = {
  type: 'object',
  doc: 'one memory to store (applied after the reply is sent)',
  fields: {
    content: s(MEMORY_CAP_BYTES, 'what to remember', { required: true }),
    importance: { type: 'number', min: 0, max: 1, default: 0.5, doc: 'how much it matters' },
    permanent: { type: 'boolean', default: false, doc: 'never decays or is pruned' },
    ttl: { type: 'string', enum: TTL_CLASSES, trim: true, lower: true, doc: 'lifetime class; null for the default (weeks)' },
  },
};

export const SESSION_OP_ITEM: ObjectField = {
  type: 'object',
  doc: 'one sub-agent operation',
  fields: {
    op: { type: 'string', enum: WIRE_SESSION_OPS, parseOnly: NOOP_SESSION_OPS, trim: true, lower: true, required: true, doc: 'operation' },
    id: s(15, 'terminate: the target session tag'),
    task: { ...TASK, doc: 'spawn: the instruction for the sub-agent' },
    provider: { ...PROVIDER, doc: 'spawn: ' + PROVIDER.doc },
    model: { ...MODEL, doc: 'spawn: ' + MODEL.doc },
    skill: { ...SKILL, doc: 'spawn: ' + SKILL.doc },
    name: { ...NAME, doc: 'spawn: ' + NAME.doc },
    project: s(24, 'spawn: run tag; the result is saved as <project>/<name>-<tag>.md'),
    attach: strings(4, s(73, 'a <project>/<name> document ref', { overLong: 'drop' }), 'spawn: documents to attach'),
    message: s(TASK_CAP_BYTES, 'tell (retired): read, no effect', { wire: false }),
  },
};

export const SPAWN_ITEM: ObjectField = {
  type: 'object',
  doc: 'retired spawn request',
  wire: false,
  fields: {
    provider: PROVIDER,
    model: MODEL,
    skill: SKILL,
    task: { ...TASK, required: true },
    name: { ...NAME, default: '' },
    category: s(15, 'job category', { default: 'research' }),
    note: s(79, 'acknowledgement shown when the job starts', { default: 'On it.' }),
  },
};

const TIER_ITEM = s(160, 'one item');

export const SCRATCHPAD: ObjectField = {
  type: 'object',
  doc: 'persistent scratchpad; null changes nothing',
  fields: {
    active: s(240, 'the active line; null leaves it, "" clears it'),
    short: strings(8, TIER_ITEM, 'short-term tier; a list replaces the tier, null leaves it'),
    mid: strings(8, TIER_ITEM, 'mid-term tier; a list replaces the tier, null leaves it'),
    long: strings(8, TIER_ITEM, 'long-term tier; a list replaces the tier, null leaves it'),
  },
};

/** The turn object. reply, memory and ask are required; everything else is optional to the parser. */
export const TURN: ObjectField = {
  type: 'object',
  doc: 'one assistant turn',
  fields: {
    reply: { type: 'string', required: true, doc: 'text for the user; "" if none' },
    memory: { type: 'string', required: true, capBytes: MEMORY_CAP_BYTES, doc: 'running memory carried into your next turn' },
    ask: { type: 'string', required: true, doc: 'a question for the user; "" if none' },
    device: { type: 'array', items: DEVICE_ACTION, doc: 'device actions' },
    mem_write: { type: 'array', maxItems: VECTOR_CAP, items: MEM_WRITE_ITEM, doc: 'long-term memories to store' },
    mem_query: strings(VECTOR_CAP, s(TASK_CAP_BYTES, 'a search query'), 'long-term memory searches; results arrive next turn'),
    session_ops: { type: 'array', maxItems: VECTOR_CAP, items: SESSION_OP_ITEM, doc: 'sub-agent operations' },
    scratchpad: SCRATCHPAD,
    spawn: { type: 'array', maxItems: VECTOR_CAP, items: SPAWN_ITEM, doc: 'retired: use session_ops', wire: false },
    await: strings(VECTOR_CAP, s(15, 'a session tag'), 'retired: ignored', { wire: false }),
  },
};

export const REQUIRED_TURN_FIELDS = ['reply', 'memory', 'ask'] as const;

/** The name the schema is registered under (json_schema name, tool name). */
export const TURN_SCHEMA_NAME = 'orch_turn';

/** True when a field is offered on the wire (and in the prompt). */
export function onWire(f: Field): boolean {
  return f.wire !== false;
}

// The parsed turn: what parse.ts produces and the turn engine consumes. Field
// names follow the wire so a turn reads the same in a log and in code.

export type ParseCode = 'Ok' | 'JsonError' | 'NotObject' | 'MissingField' | 'WrongType';

export interface MemWrite {
  content: string;
  /** Clamped to [0, 1]; 0.5 when absent or not a number. */
  importance: number;
  permanent: boolean;
  /** Absent when not given or not a known class: the store's default (weeks) applies. */
  ttl?: TtlClass;
}

export interface SessionOp extends SpawnSpec {
  /** tell, poll and list are known but do nothing (the engine answers them with a refusal). */
  op: SessionOpKind;
  id: string;
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

/**
 * One round's cancel hook, in the HTTP client's shape (src/net/http/client.ts
 * ClientRequest.cancel): the wire hands it to the request, which sets
 * onCancel while the exchange runs; calling it closes the connection.
 * cancelled: the turn was stopped before the request started (send nothing).
 */
export interface RoundCancel {
  onCancel: (() => void) | null;
  readonly cancelled?: boolean;
}

/** The provider wire as the engine uses it (src/providers/wire.ts implements it). */
export interface RoundSender {
  round(req: RoundRequest, timeoutMs: number, endpoint?: CustomEndpoint, cancel?: RoundCancel, stream?: RoundStream): Promise<RoundResult>;
}

/** A provider the turn may use, in the order it should be tried. */
export interface ProviderChoice {
  provider: ProviderId;
  model: string;
  /** The backend can run a tool loop. */
  loops: boolean;
  /** Read deadline of one round on this provider. */
  readMs: number;
  /** A label for people ('anthropic claude-x', 'offline demo'). */
  label: string;
  /** An endpoint other than the configured one (the offline demo). */
  endpoint?: CustomEndpoint;
  /** Why this provider serves although it is not the owner's choice (a budget used up): said in the 'served by' note. */
  note?: string;
}

export type TurnOrigin = 'console' | 'chat' | 'web' | 'voice' | 'synthesis' | 'schedule' | 'mcp';

/**
 * A turn's stop (the voice stop: a tap, the ring button). Whoever starts a
 * turn may cancel it until its reply is delivered: the engine closes the
 * provider call in flight, records nothing in the conversation, applies no
 * device action, delivers nothing, and the turn resolves at once with status
 * 'cancelled'. A cancel after the reply went out changes nothing (the turn
 * is the owner's by then). Made by turnCancel().
 */
export interface TurnCancel {
  readonly cancelled: boolean;
  /** The engine's hook while the turn can still be stopped (null otherwise). */
  onCancel: (() => void) | null;
  cancel(): void;
}

export function turnCancel(): TurnCancel {
  let cancelled = false;
  const c: TurnCancel = {
    get cancelled() {
      return cancelled;
    },
    onCancel: null,
    cancel() {
      if (cancelled) return;
      cancelled = true;
      const hook = c.onCancel;
      c.onCancel = null;
      hook?.();
    },
  };
  return c;
}

/**
 * The reply as it grows, for whoever started the turn (the voice speaks it
 * sentence by sentence): the provider's stream read as it arrives. Nothing of
 * it is validated yet: memory writes, device actions, ask and spawn apply only
 * once the whole turn has arrived and parsed, and deliver() still brings the
 * final reply (or the error reply when the turn failed).
 */
export interface ReplyStream {
  /** The reply grew by text (pieces in order, never half a character). */
  grow(text: string): void;
  /**
   * The reply is whole (its string closed in the stream) while the rest of the
   * turn (memory, actions) is still being written: its last sentence can be
   * spoken now.
   */
  whole?(): void;
  /**
   * What grew is void: its round ended without a turn (tool calls, a failure
   * before a retry or a failover, a turn that failed validation). A later
   * round may grow the reply again from its start.
   */
  reset(): void;
}

export interface TurnRequest {
  chat: string;
  text: string;
  person: string | null;
  admin: boolean;
  origin: TurnOrigin;
  unattended?: boolean;
  scheduled?: boolean;
  /** A [SYSTEM] preamble for turns no person started (synthesis). */
  preamble?: string;
  /** Called with the reply as soon as it is known (before memory writes apply). */
  deliver?: (reply: string, ask: string) => void;
  /**
   * A turn the device runs for itself (conversation compaction): its text and
   * reply are not recorded in the conversation, and it leaves running memory
   * and the scratchpad as they are.
   */
  housekeeping?: boolean;
  /** Lets the starter stop the turn before its reply (TurnCancel). */
  cancel?: TurnCancel;
  /** The reply as it grows (a streamed round), before the turn is complete (ReplyStream). */
  stream?: ReplyStream;
}

export type CapName = 'rounds' | 'deadline' | 'heap' | 'bytes' | 'stall';

export interface TurnOutcome {
  /** cancelled: stopped through req.cancel before the reply (nothing delivered, recorded or applied). */
  status: 'ok' | 'deferred' | 'error' | 'cancelled';
  reply: string;
  ask: string;
  provider: ProviderId | null;
  model: string | null;
  /** 'served by <provider> <model>' when a fallback provider answered. */
  servedBy: string | null;
  rounds: number;
  toolCalls: number;
  switches: number;
  cap: CapName | null;
  error: string | null;
  turn: Turn | null;
  json: string | null;
  /** Device-side milliseconds (prompt, parse, tools, apply): the turn's time minus time waiting on providers. */
  deviceMs: number;
  providerMs: number;
  /** XS heap high-water during the turn (bytes, code and module objects included). */
  xsPeak: number;
  /** With heap probing on: the most live XS heap seen after a collection at each round (0 when off). */
  xsLivePeak: number;
}

/** What the assistant needs of the provider wire (src/providers/wire.ts). */
export interface TurnWire extends RoundSender {
  keyed(provider: ProviderId): boolean;
  loops(provider: ProviderId, endpoint?: CustomEndpoint): boolean;
  /** The model to send: the requested one when the backend accepts it, else its default. */
  modelFor(provider: ProviderId, requested: string | null | undefined, endpoint?: CustomEndpoint): string;
  /** Whether the provider is past the owner's monthly token budget (absent: no budgets). */
  overBudget?(provider: ProviderId): boolean;
}

/** The turn's codec, for those that send a turn round without the engine (the WIRE console command). */
export interface TurnCodec {
  /** The wire JSON schema of the turn object. */
  schema(): Record<string, unknown>;
  /** The turn's field documentation for the prompt. */
  doc(): string;
  parse(text: unknown): ParseResult;
}
