// The turn engine: one assistant turn at a time. Builds the prompt, runs the
// provider's rounds (tools through the registry), enforces the caps, fails
// over between providers by the spec's rules, parses the turn object, then
// applies it: the reply is delivered first, then device actions, memory
// writes, the scratchpad and running memory; mem_query results and
// refusals ride into the next turn's input.
//
// Caps (docs/decisions.md, "Turn engine"): MAX_ROUNDS tool rounds, a
// 600 s turn deadline, each round's timeout clamped to what is left with an
// 8 s floor, a heap floor, a transcript byte cap, and a stall detector. A
// tripped cap gets one forced tool-less final round pinning orch_turn; if the
// model still does not finish, a clean error reply follows.
//
// A turn with req.cancel (the voice stop) can be cancelled until its reply is
// delivered: the provider call in flight is closed through the HTTP client,
// every await of the turn races the cancel, and the turn resolves at once
// with status 'cancelled', having delivered, recorded and applied nothing;
// the lines it took from the chat's pending input go back for the next turn.
//
// Rounds are streamed when the wire streams (the owner's stream setting): the
// reply is read out of the turn's text as it arrives and grows at the turn's
// starter and the reply listeners (reply-feed.ts), before the turn is
// complete; everything else still applies only once the whole turn has arrived
// and parsed. A streamed round's deadline is silence; it runs as long as the
// turn may while it keeps flowing.

import type { Log } from '../log/log.ts';
import type { Hal } from '../hal/index.ts';
import type { ToolCaller, ToolResult } from '../core/tools/types.ts';
import type { ToolRegistry } from '../core/tools/registry.ts';
import type { CapName, ProviderChoice, ProviderErrorKind, RoundRequest, RoundSender, ToolDef, TranscriptItem, TurnOutcome, TurnRequest } from '../contracts/index.ts';
import { CANCELLED, TurnGate } from './gate.ts';
import { afterFailure, failureReply, type Tries } from './failover.ts';
import { ReplyFeed, type ReplyListener } from './reply-feed.ts';
import { buildTurnSchema } from './schema.ts';
import { turnPromptDoc } from './promptdoc.ts';
import { parseTurn } from './parse.ts';
import type { Turn } from '../contracts/index.ts';

/** A turn's answer in Notifier mode. */
export const NOTIFIER_MODE_REPLY = 'The assistant runs in Orchestrator mode; this device is in Notifier mode (Bluetooth only). Switch with MODE 1.';

export type { CapName, ProviderChoice, RoundSender, TurnOrigin, TurnOutcome, TurnRequest } from '../contracts/index.ts';
export { TRANSPORTISH } from './failover.ts';
import { DEFAULT_BUDGET, type Assembled, type PromptBlocks } from '../prompt/index.ts';
import { utf8Length } from '../util/utf8.ts';
import { errorMessage, stringify } from '../util/json.ts';

export const MAX_ROUNDS = 10;
export const TURN_DEADLINE_MS = 600_000;
export const ROUND_FLOOR_MS = 8_000;
/** Read deadline of a synchronous provider round (spec: 60 s; custom endpoint 30 s). */
export const PROVIDER_READ_MS = 60_000;
export const CUSTOM_READ_MS = 30_000;
/** Free internal heap below which a turn is deferred before any provider call. */
export const TURN_HEAP_FLOOR = 36 * 1024;
/** Free internal heap below which a running loop trips its heap cap. */
export const LOOP_HEAP_FLOOR = 28 * 1024;
/** Transcript bytes beyond which the loop trips its bytes cap. */
export const TRANSCRIPT_MAX_BYTES = 96 * 1024;
/** Identical tool calls in a row that count as a stall. */
export const STALL_REPEATS = 3;
/** Provider switches allowed within one turn. */
export const MAX_SWITCHES = 2;
export const SCHEMA_NAME = 'orch_turn';

export const ONE_MOMENT = 'One moment: I am short on memory right now. Please ask again in a few seconds.';

/** What the engine needs from the rest of the device (kept narrow for tests). */
export interface EngineDeps {
  hal: Hal;
  log: Log;
  tools: ToolRegistry;
  blocks: PromptBlocks;
  wire: RoundSender;
  /** Providers to try for this turn, primary first (empty: none is set up). */
  providers(): ProviderChoice[];
  /** midFail (default on): mid-turn failover on the shared transcript. */
  midFail(): boolean;
  /** Applies a parsed turn after the reply went out; returns lines for the next turn's input. */
  apply(turn: Turn, req: TurnRequest): Promise<string[]>;
  /** Appends one conversation message (the episodic log). */
  remember(chat: string, role: 'creator' | 'assistant', text: string): void;
  /** Tells the owner something (provider switch notices). */
  notify(key: string, text: string): void;
  /** Marks a chat fold-due (a context overflow: summarize it soon). */
  foldDue(chat: string): void;
  budget?(): number;
  /** Why an empty provider chain has no provider although some are keyed (budgets used up), or null. */
  noProvider?(): string | null;
  /** Why no turn can run at all now (Notifier mode), or null: the turn answers that and calls no provider. */
  unavailable?(): string | null;
}

type LoopResult =
  | { kind: 'turn'; turn: Turn; json: string }
  | { kind: 'error'; error: ProviderErrorKind | 'cap' | 'parse'; message: string }
  | { kind: 'cancelled' };

/** What a turn counts across its attempts (the outcome carries them). */
interface TurnStats {
  rounds: number;
  toolCalls: number;
  switches: number;
  cap: CapName | null;
}

function transcriptBytes(t: readonly TranscriptItem[]): number {
  let n = 0;
  for (const item of t) {
    if (item.kind === 'opaque') n += 512;
    else if (item.kind === 'tool_call') n += utf8Length(item.args) + item.name.length + 32;
    else if (item.kind === 'tool_result') n += utf8Length(item.output) + 32;
    else n += utf8Length(item.text);
  }
  return n;
}

export class TurnEngine {
  private queue: Promise<unknown> = Promise.resolve();
  private pendingInput = new Map<string, string[]>();
  private lastTurn: { json: string; chat: string; provider: string | null; model: string | null; atWall: number } | null = null;
  private readonly schema = buildTurnSchema();
  private readonly schemaDoc = turnPromptDoc();
  busy = false;
  private providerMs = 0;
  private livePeak = 0;
  lastOutcome: TurnOutcome | null = null;
  private turnListeners: Array<(req: TurnRequest, out: TurnOutcome | null) => void> = [];
  private replyListeners: ReplyListener[] = [];
  /**
   * Measurement mode (test builds): collect garbage after every round and
   * record the live heap, so the high-water says what the loop needs rather
   * than how lazily the collector ran. Slows turns; off by default.
   */
  probeHeap = false;

  constructor(private readonly deps: EngineDeps) {}

  last(): { json: string; chat: string; provider: string | null; model: string | null; atWall: number } | null {
    return this.lastTurn;
  }

  /** Called when a turn starts (outcome null) and after it ran (the device screen shows the state and owner replies). */
  onTurn(listener: (req: TurnRequest, out: TurnOutcome | null) => void): void {
    this.turnListeners.push(listener);
  }

  /** Called as a turn's reply grows (text so far), and with null when what grew was void (the web page's live view, the screen). */
  onReply(listener: ReplyListener): void {
    this.replyListeners.push(listener);
  }

  private tellListeners(req: TurnRequest, out: TurnOutcome | null): void {
    for (const listener of this.turnListeners) {
      try {
        listener(req, out);
      } catch (e) {
        this.deps.log.warn('turn', `turn listener failed: ${String(e)}`);
      }
    }
  }

  lastPrompt(): Assembled | null {
    return this.deps.blocks.lastAssembled();
  }

  /** Lines to put ahead of a chat's next user message (refusals, query results). */
  queueInput(chat: string, line: string): void {
    const list = this.pendingInput.get(chat) ?? [];
    list.push(line);
    this.pendingInput.set(chat, list.slice(-12));
  }

  /** Runs a turn after any turn already running (one turn at a time). */
  run(req: TurnRequest): Promise<TurnOutcome> {
    const next = this.queue.then(() => this.runNow(req));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private outcome(partial: Partial<TurnOutcome> & Pick<TurnOutcome, 'status' | 'reply'>): TurnOutcome {
    return {
      ask: '',
      provider: null,
      model: null,
      servedBy: null,
      rounds: 0,
      toolCalls: 0,
      switches: 0,
      cap: null,
      error: null,
      turn: null,
      json: null,
      deviceMs: 0,
      providerMs: 0,
      xsPeak: 0,
      xsLivePeak: 0,
      ...partial,
    };
  }

  private async runNow(req: TurnRequest): Promise<TurnOutcome> {
    const { hal, log } = this.deps;
    // Stopped while it waited for the turn ahead of it: it never starts.
    if (req.cancel?.cancelled) return this.outcome({ status: 'cancelled', reply: '' });
    const off = this.deps.unavailable?.() ?? null;
    if (off !== null) {
      req.deliver?.(off, '');
      return this.outcome({ status: 'error', reply: off, error: 'unavailable' });
    }
    if (hal.system.heap().freeInternal < TURN_HEAP_FLOOR) {
      log.warn('turn', 'deferred: heap below the turn floor');
      req.deliver?.(ONE_MOMENT, '');
      return this.outcome({ status: 'deferred', reply: ONE_MOMENT });
    }
    this.busy = true;
    this.tellListeners(req, null);
    const t0 = hal.clock.monoMs();
    this.providerMs = 0;
    this.livePeak = 0;
    hal.system.resetHeapPeak();
    const gate = new TurnGate(req.cancel);
    try {
      const out = await this.turn(req, gate);
      out.providerMs = Math.round(this.providerMs);
      out.deviceMs = Math.round(hal.clock.monoMs() - t0 - this.providerMs);
      out.xsPeak = hal.system.heap().xsPeak;
      out.xsLivePeak = this.livePeak;
      this.lastOutcome = out;
      this.tellListeners(req, out);
      return out;
    } finally {
      gate.commit();
      this.busy = false;
    }
  }

  private caller(req: TurnRequest): ToolCaller {
    return { via: 'turn', admin: req.admin, scheduled: req.scheduled === true, unattended: req.unattended === true || req.scheduled === true, person: req.person };
  }

  private toolDefs(caller: ToolCaller): ToolDef[] {
    const defs: ToolDef[] = [];
    for (const t of this.deps.tools.list(caller)) {
      const name = this.deps.tools.providerName(t.name);
      if (name) defs.push({ name, description: t.description, parameters: t.schema });
    }
    return defs;
  }

  private cancelled(req: TurnRequest, pending: readonly string[], log: Log): TurnOutcome {
    // The lines this turn took from the chat's input were never seen by a model: they wait for the next turn.
    if (pending.length) this.pendingInput.set(req.chat, [...pending, ...(this.pendingInput.get(req.chat) ?? [])].slice(-12));
    log.info('turn', 'cancelled: nothing was delivered, recorded or applied');
    return this.outcome({ status: 'cancelled', reply: '', error: 'cancelled' });
  }

  private async turn(req: TurnRequest, gate: TurnGate): Promise<TurnOutcome> {
    const { hal, log } = this.deps;
    const started = hal.clock.monoMs();
    const chain = this.deps.providers();
    const pending = this.pendingInput.get(req.chat) ?? [];
    this.pendingInput.delete(req.chat);
    const userText = [...(req.preamble ? [req.preamble] : []), ...pending, req.text].join('\n\n');
    if (!chain.length) {
      const refusal = this.deps.noProvider?.() ?? null;
      const reply = refusal ?? 'No model provider is set up yet. Add a provider key on the web page (Assistant) and ask again.';
      req.deliver?.(reply, '');
      return this.outcome({ status: 'error', reply, error: refusal !== null ? 'budget' : 'no provider' });
    }
    const assembled = await gate.race(
      this.deps.blocks.assemble(
        { chat: req.chat, person: req.person, admin: req.admin, text: req.text, memQueries: [], unattended: req.unattended === true },
        this.deps.budget?.() ?? DEFAULT_BUDGET,
        started,
      ),
    );
    if (assembled === CANCELLED) return this.cancelled(req, pending, log);
    const prompt = assembled;
    if (prompt.overBudget) log.warn('turn', `prompt ${prompt.bytes} bytes is over its ${prompt.budget}-byte budget even at the blocks' floors`);
    // The prompt's stable part and its changing part as two system items: the wire marks the end of the first cacheable.
    const system = (): TranscriptItem[] => [prompt.stable, prompt.volatile].filter((t) => t !== '').map((text): TranscriptItem => ({ kind: 'system', text }));
    const fresh = (): TranscriptItem[] => [...system(), { kind: 'user', text: userText }];
    const ran = await this.attempts(req, gate, chain, fresh, started);
    if (ran === null) return this.cancelled(req, pending, log);
    const { result, index, stats } = ran;
    const choice = chain[index]!;
    if (result.kind === 'error') {
      const reply = failureReply(result.error, stats.cap, choice.label);
      req.deliver?.(reply, '');
      if (!req.housekeeping) this.deps.remember(req.chat, 'creator', req.text);
      return this.outcome({ status: 'error', reply, error: `${result.error}: ${result.message}`, provider: choice.provider, model: choice.model, ...stats });
    }
    if (gate.cancelled) return this.cancelled(req, pending, log);
    return this.finishTurn(req, gate, choice, index, result, stats, started);
  }

  /** Runs the turn on the chain's providers by the failover rules (failover.ts); null when it was cancelled. */
  private async attempts(
    req: TurnRequest,
    gate: TurnGate,
    chain: readonly ProviderChoice[],
    fresh: () => TranscriptItem[],
    started: number,
  ): Promise<{ result: Exclude<LoopResult, { kind: 'cancelled' }>; index: number; stats: TurnStats } | null> {
    const { log } = this.deps;
    const caller = this.caller(req);
    const tools = this.toolDefs(caller);
    const stats: TurnStats = { rounds: 0, toolCalls: 0, switches: 0, cap: null };
    const midFail = this.deps.midFail();
    const tries: Tries = { sameHost: false, fresh: false, overflow: false };
    let index = 0;
    let transcript = fresh();
    const feed = new ReplyFeed(req, () => gate.cancelled, this.replyListeners, (m) => log.warn('turn', m));
    for (;;) {
      const choice = chain[index]!;
      const result = await this.loop(choice, transcript, tools, caller, started, stats, gate, feed);
      if (result.kind === 'cancelled') return null;
      // A refusal is the model's answer: no other host or provider is asked.
      if (result.kind === 'turn' || result.error === 'parse' || result.error === 'cap' || result.error === 'refused') return { result, index, stats };
      log.warn('turn', `${choice.label}: ${result.error}: ${result.message}`);
      const next = chain[index + 1];
      const step = afterFailure(result.error, tries, { midFail, canSwitch: next !== undefined && stats.switches < MAX_SWITCHES, toolCalls: stats.toolCalls });
      if (step === 'stop') return { result, index, stats };
      // Too long for the model: start a fresh thread and have the chat folded soon.
      if (step === 'overflow') this.deps.foldDue(req.chat);
      // Progress carries over on a switch: the shared transcript, minus what only the old dialect reads.
      if (step !== 'same') transcript = step === 'switch' ? transcript.filter((t) => t.kind !== 'opaque') : fresh();
      if (step === 'same' || step === 'fresh' || step === 'overflow') continue;
      index++;
      stats.switches++;
      tries.sameHost = false;
      const note = `I switched from ${choice.label} to ${next!.label} because ${choice.label} failed (${result.error}); the work so far carries over.`;
      this.deps.notify(`switch:${req.chat}:${started}:${stats.switches}`, note);
      log.info('turn', note);
    }
  }

  /** A parsed turn: the reply delivered first, the conversation recorded, then the turn applied. */
  private async finishTurn(req: TurnRequest, gate: TurnGate, choice: ProviderChoice, index: number, result: { turn: Turn; json: string }, stats: TurnStats, started: number): Promise<TurnOutcome> {
    const { hal, log } = this.deps;
    const servedBy = index > 0 ? `served by ${choice.provider} ${choice.model}` : choice.note ? `served by ${choice.provider} ${choice.model}: ${choice.note}` : null;
    const turn = result.turn;
    gate.commit();
    const reply = servedBy ? `${turn.reply}\n\n(${servedBy})` : turn.reply;
    this.lastTurn = { json: result.json, chat: req.chat, provider: choice.provider, model: choice.model, atWall: hal.clock.wallMs() };
    // The reply leaves first: what it says it saved is an intent until applied below.
    req.deliver?.(reply, turn.ask);
    if (!req.housekeeping) {
      this.deps.remember(req.chat, 'creator', req.text);
      if (reply) this.deps.remember(req.chat, 'assistant', reply);
    }
    try {
      for (const line of await this.deps.apply(turn, req)) this.queueInput(req.chat, line);
    } catch (e) {
      log.error('turn', `applying the turn failed: ${errorMessage(e)}`);
    }
    log.info('turn', `${choice.label}: ${stats.rounds} round(s), ${stats.toolCalls} tool call(s), ${Math.round(hal.clock.monoMs() - started)} ms`);
    return this.outcome({ status: 'ok', reply, ask: turn.ask, provider: choice.provider, model: choice.model, servedBy, ...stats, turn, json: result.json });
  }

  private tripped(started: number, rounds: number, transcript: readonly TranscriptItem[], stalled: boolean): CapName | null {
    const { hal } = this.deps;
    if (rounds >= MAX_ROUNDS) return 'rounds';
    if (hal.clock.monoMs() - started >= TURN_DEADLINE_MS - ROUND_FLOOR_MS) return 'deadline';
    if (hal.system.heap().freeInternal < LOOP_HEAP_FLOOR) return 'heap';
    if (transcriptBytes(transcript) > TRANSCRIPT_MAX_BYTES) return 'bytes';
    if (stalled) return 'stall';
    return null;
  }

  /** Rounds on one provider until a turn, an error, or a cap's forced final round. */
  private async loop(
    choice: ProviderChoice,
    transcript: TranscriptItem[],
    tools: ToolDef[],
    caller: ToolCaller,
    started: number,
    stats: { rounds: number; toolCalls: number; cap: CapName | null },
    gate: TurnGate,
    feed: ReplyFeed,
  ): Promise<LoopResult> {
    const { hal, wire } = { hal: this.deps.hal, wire: this.deps.wire };
    const mode: 'single' | 'loop' = choice.loops && tools.length ? 'loop' : 'single';
    let forced = false;
    let repaired = false;
    let lastCall = '';
    let repeats = 0;
    let roundsHere = 0;
    for (;;) {
      if (!forced && mode === 'loop') {
        const cap = this.tripped(started, stats.rounds, transcript, repeats >= STALL_REPEATS);
        if (cap) {
          forced = true;
          stats.cap = cap;
          this.deps.log.warn('turn', `cap tripped (${cap}): one forced final round`);
        }
      }
      const left = TURN_DEADLINE_MS - (hal.clock.monoMs() - started);
      const timeout = Math.max(ROUND_FLOOR_MS, Math.min(choice.readMs, left));
      const req: RoundRequest = {
        provider: choice.provider,
        model: choice.model,
        transcript,
        mode,
        tools: forced ? [] : tools,
        forceFinal: forced,
        schema: this.schema,
        schemaName: SCHEMA_NAME,
        schemaDoc: this.schemaDoc,
        // Connectors act with the owner's credentials: only an admin caller's rounds carry them.
        connectors: caller.admin,
      };
      const sent = hal.clock.monoMs();
      // Streamed, the round is cut by silence and may flow as long as the turn may.
      const res = await gate.race(wire.round(req, timeout, choice.endpoint, gate.round, feed.round(Math.max(ROUND_FLOOR_MS, left))));
      this.providerMs += hal.clock.monoMs() - sent;
      if (res === CANCELLED || gate.cancelled) return { kind: 'cancelled' };
      stats.rounds++;
      roundsHere++;
      // Only a turn that parses keeps what grew; anything else voids it (the next round grows it afresh).
      if (res.kind !== 'turn') feed.void();
      if (res.kind === 'error') return { kind: 'error', error: res.error, message: res.message };
      transcript.push(...res.items);
      this.sampleHeap();
      // The provider paused its own turn (B's pause_turn): the next round continues it; no tool runs here.
      if (res.kind === 'continue') {
        if (roundsHere > MAX_ROUNDS + 2) return { kind: 'error', error: 'cap', message: 'runaway loop' };
        continue;
      }
      if (res.kind === 'turn') {
        const parsed = parseTurn(res.json);
        if (parsed.code === 'Ok') return { kind: 'turn', turn: parsed.turn, json: res.json };
        feed.void();
        if (repaired || mode === 'single') return { kind: 'error', error: 'parse', message: `${parsed.code}: ${parsed.detail}` };
        // One repair round: the model is told what was wrong and must call orch_turn.
        repaired = true;
        forced = true;
        transcript.push({ kind: 'user', text: `[SYSTEM] Your orch_turn output was not valid (${parsed.code}: ${parsed.detail}). Call orch_turn again with a valid object.` });
        continue;
      }
      if (forced) return { kind: 'error', error: 'cap', message: `the model kept calling tools after the ${stats.cap ?? 'final'} cap` };
      for (const call of res.calls) {
        const signature = `${call.name}:${call.args}`;
        repeats = signature === lastCall ? repeats + 1 : 1;
        lastCall = signature;
        const result = await gate.race(this.dispatch(call.name, call.args, caller));
        if (result === CANCELLED) return { kind: 'cancelled' };
        stats.toolCalls++;
        transcript.push({ kind: 'tool_result', id: call.id, name: call.name, output: stringify(result) });
      }
      this.sampleHeap();
      if (roundsHere > MAX_ROUNDS + 2) return { kind: 'error', error: 'cap', message: 'runaway loop' };
    }
  }

  private sampleHeap(): void {
    if (!this.probeHeap) return;
    this.deps.hal.system.gc();
    this.livePeak = Math.max(this.livePeak, this.deps.hal.system.heap().xsNow);
  }

  private async dispatch(providerName: string, args: string, caller: ToolCaller): Promise<ToolResult> {
    const name = this.deps.tools.restoreName(providerName) ?? providerName;
    let parsed: unknown;
    try {
      parsed = args.trim() ? JSON.parse(args) : {};
    } catch (e) {
      return { success: false, output: '', error: `the arguments are not JSON: ${errorMessage(e)}`, error_type: 'bad-arguments' };
    }
    return this.deps.tools.call(name, parsed, caller);
  }
}
