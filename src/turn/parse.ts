// The turn parser (spec "Turn object" and "Turn parse errors"). Only the
// three required strings can fail a parse; every array and the scratchpad are
// read tolerantly: a malformed item is dropped, a present non-array reads as
// empty, and nothing there produces an error. It never throws, whatever the
// input. Caps, defaults and enums come from contract.ts.

import { capBytes } from '../util/cap.ts';
import { isPlainObject, parseJson } from '../util/json.ts';
import type { ArrayField, BooleanField, Field, NumberField, ObjectField, StringField } from '../contracts/index.ts';
import {
  MEM_WRITE_ITEM,
  REQUIRED_TURN_FIELDS,
  SCRATCHPAD,
  SESSION_OP_ITEM,
  SPAWN_ITEM,
  TTL_CLASSES,
  TURN,
  type SessionOpKind,
  type TtlClass,
} from '../contracts/index.ts';
import type { DropCounts, MemWrite, ParseResult, ScratchpadPatch, SessionOp, SpawnRequest, Turn } from '../contracts/index.ts';

// The contract fields the parser reads, looked up once. A contract edit that
// changes a field's kind fails here, at load, not silently at parse time.
function field<T extends Field['type']>(o: ObjectField, name: string, type: T): Extract<Field, { type: T }> {
  const f = o.fields[name];
  if (f === undefined || f.type !== type) throw new Error(`turn contract: ${name} is not ${type}`);
  return f as Extract<Field, { type: T }>;
}
const T_MEMORY = field(TURN, 'memory', 'string');
const T_DEVICE = field(TURN, 'device', 'array');
const T_MEM_WRITE = field(TURN, 'mem_write', 'array');
const T_MEM_QUERY = field(TURN, 'mem_query', 'array');
const T_SESSION_OPS = field(TURN, 'session_ops', 'array');
const T_SPAWN = field(TURN, 'spawn', 'array');
const T_AWAIT = field(TURN, 'await', 'array');
const MW = {
  content: field(MEM_WRITE_ITEM, 'content', 'string'),
  importance: field(MEM_WRITE_ITEM, 'importance', 'number'),
  permanent: field(MEM_WRITE_ITEM, 'permanent', 'boolean'),
  ttl: field(MEM_WRITE_ITEM, 'ttl', 'string'),
};
const OP = field(SESSION_OP_ITEM, 'op', 'string');
const OP_STRINGS = ['id', 'task', 'provider', 'model', 'skill', 'name', 'project', 'message'] as const;
const OP_FIELDS = OP_STRINGS.map((k) => field(SESSION_OP_ITEM, k, 'string'));
const OP_ATTACH = field(SESSION_OP_ITEM, 'attach', 'array');
const SPAWN_STRINGS = ['provider', 'model', 'skill', 'task', 'name', 'category', 'note'] as const;
const SPAWN_FIELDS = SPAWN_STRINGS.map((k) => field(SPAWN_ITEM, k, 'string'));
const SP_ACTIVE = field(SCRATCHPAD, 'active', 'string');
const SP_TIERS = (['short', 'mid', 'long'] as const).map((k) => [k, field(SCRATCHPAD, k, 'array')] as const);
const KNOWN_OPS: readonly string[] = [...(OP.enum ?? []), ...(OP.parseOnly ?? [])];
/** Unknown op names kept for the refusal text: as many as a turn may carry, each as long as a tag. */
const UNKNOWN_OP_CAP_BYTES = 15;

/**
 * A string field's value after trim, lowercase and cap, or undefined when it
 * is not a string, is blank, or is over-long for a field that drops rather
 * than cuts.
 */
function readString(v: unknown, f: StringField): string | undefined {
  if (typeof v !== 'string') return undefined;
  let s = f.trim ? v.trim() : v;
  if (f.lower) s = s.toLowerCase();
  if (f.capBytes !== undefined) {
    const c = capBytes(s, f.capBytes);
    if (c.length !== s.length && f.overLong === 'drop') return undefined;
    s = c;
  }
  return s.length > 0 ? s : undefined;
}

function readStringOr(v: unknown, f: StringField): string {
  return readString(v, f) ?? f.default ?? '';
}

function readNumber(v: unknown, f: NumberField): number {
  if (typeof v !== 'number' || Number.isNaN(v)) return f.default ?? 0;
  if (f.min !== undefined && v < f.min) return f.min;
  if (f.max !== undefined && v > f.max) return f.max;
  return v;
}

function readBoolean(v: unknown, f: BooleanField): boolean {
  return typeof v === 'boolean' ? v : (f.default ?? false);
}

/**
 * Reads a tolerant array: items that read as undefined are dropped, and the
 * vector cap counts kept items (scanning stops at the cap; the rest count as
 * dropped). A present value that is not an array reads as empty.
 */
function readArray<T>(v: unknown, f: ArrayField, item: (x: unknown) => T | undefined): { items: T[]; dropped: number } {
  const items: T[] = [];
  if (!Array.isArray(v)) return { items, dropped: 0 };
  const cap = f.maxItems ?? Infinity;
  for (let i = 0; i < v.length && items.length < cap; i++) {
    const x = item(v[i]);
    if (x !== undefined) items.push(x);
  }
  return { items, dropped: v.length - items.length };
}

function stringItems(v: unknown, f: ArrayField): { items: string[]; dropped: number } {
  const each = f.items as StringField;
  return readArray(v, f, (x) => readString(x, each));
}

function readMemWrite(x: unknown): MemWrite | undefined {
  if (!isPlainObject(x)) return undefined;
  const content = readString(x.content, MW.content);
  if (content === undefined) return undefined;
  const m: MemWrite = {
    content,
    importance: readNumber(x.importance, MW.importance),
    permanent: readBoolean(x.permanent, MW.permanent),
  };
  const ttl = readString(x.ttl, MW.ttl);
  if (ttl !== undefined && (TTL_CLASSES as readonly string[]).includes(ttl)) m.ttl = ttl as TtlClass;
  return m;
}

function readSpawn(x: unknown): SpawnRequest | undefined {
  if (!isPlainObject(x)) return undefined;
  const v = SPAWN_STRINGS.map((k, i) => readStringOr(x[k], SPAWN_FIELDS[i]!));
  const [provider, model, skill, task, name, category, note] = v as [string, string, string, string, string, string, string];
  if (task === '') return undefined;
  return { provider, model, skill, task, name, category, note };
}

function readScratchpad(v: unknown): ScratchpadPatch | null {
  if (!isPlainObject(v)) return null;
  const patch: ScratchpadPatch = { active: null, short: null, mid: null, long: null };
  // A string sets the line ('' or blank clears it); anything else leaves it.
  if (typeof v.active === 'string') patch.active = readStringOr(v.active, SP_ACTIVE);
  // An array replaces the tier. Anything else (null, absent, or a malformed
  // non-array) leaves the tier: for a tier, "empty" would mean erase, and bad
  // input must not lose data.
  for (const [k, f] of SP_TIERS) {
    if (Array.isArray(v[k])) patch[k] = stringItems(v[k], f).items;
  }
  return patch;
}

function fail(code: 'JsonError' | 'NotObject' | 'MissingField' | 'WrongType', detail: string): ParseResult {
  return { code, detail, turn: null };
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** Parses a turn from the model's JSON text. */
export function parseTurn(text: unknown): ParseResult {
  const r = parseJson(text);
  if (!r.ok) return fail('JsonError', r.error);
  return parseTurnValue(r.value);
}

/** Parses a turn that is already a JSON value (e.g. tool-call input delivered as an object). */
export function parseTurnValue(v: unknown): ParseResult {
  if (!isPlainObject(v)) return fail('NotObject', kindOf(v));
  for (const k of REQUIRED_TURN_FIELDS) {
    if (!Object.hasOwn(v, k)) return fail('MissingField', k);
    if (typeof v[k] !== 'string') return fail('WrongType', k);
  }

  const dropped: DropCounts = { device: 0, mem_write: 0, mem_query: 0, session_ops: 0, spawn: 0, await: 0 };
  const unknownOps: string[] = [];

  const device = readArray(v.device, T_DEVICE, (x) => (isPlainObject(x) ? x : undefined));
  dropped.device = device.dropped;
  const memWrite = readArray(v.mem_write, T_MEM_WRITE, readMemWrite);
  dropped.mem_write = memWrite.dropped;
  const memQuery = stringItems(v.mem_query, T_MEM_QUERY);
  dropped.mem_query = memQuery.dropped;
  const ops = readArray(v.session_ops, T_SESSION_OPS, (x): SessionOp | undefined => {
    if (!isPlainObject(x)) return undefined;
    const op = readString(x.op, OP);
    if (op === undefined || !KNOWN_OPS.includes(op)) {
      if (op !== undefined && unknownOps.length < T_SESSION_OPS.maxItems!) unknownOps.push(capBytes(op, UNKNOWN_OP_CAP_BYTES));
      return undefined;
    }
    const s = OP_STRINGS.map((k, i) => readStringOr(x[k], OP_FIELDS[i]!));
    const [id, task, provider, model, skill, name, project, message] = s as [string, string, string, string, string, string, string, string];
    const attach = stringItems(x.attach, OP_ATTACH).items;
    return { op: op as SessionOpKind, id, task, provider, model, skill, name, project, attach, message };
  });
  dropped.session_ops = ops.dropped;
  const spawn = readArray(v.spawn, T_SPAWN, readSpawn);
  dropped.spawn = spawn.dropped;
  const awaits = stringItems(v.await, T_AWAIT);
  dropped.await = awaits.dropped;

  const turn: Turn = {
    reply: v.reply as string,
    memory: capBytes(v.memory as string, T_MEMORY.capBytes!),
    ask: v.ask as string,
    device: device.items,
    mem_write: memWrite.items,
    mem_query: memQuery.items,
    session_ops: ops.items,
    scratchpad: readScratchpad(v.scratchpad),
    spawn: spawn.items,
    await: awaits.items,
    dropped,
    unknownOps,
  };
  return { code: 'Ok', detail: '', turn };
}

/** An empty turn, for callers that need a cleared value to start from. */
export function emptyTurn(): Turn {
  return {
    reply: '',
    memory: '',
    ask: '',
    device: [],
    mem_write: [],
    mem_query: [],
    session_ops: [],
    scratchpad: null,
    spawn: [],
    await: [],
    dropped: { device: 0, mem_write: 0, mem_query: 0, session_ops: 0, spawn: 0, await: 0 },
    unknownOps: [],
  };
}
