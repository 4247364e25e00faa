// One /mcp request in progress, and what the tool running it may say to the
// client meanwhile (the ToolPeer of src/core/tools/types.ts).
//
// The answer is plain JSON unless the tool speaks before it finishes: its
// first progress notification or question turns the answer into an event
// stream (text/event-stream, one `event: message` per JSON-RPC message, the
// final response last, then the stream ends). So a tool that says nothing
// costs exactly what it did before, and the client learns the answer's form
// from its Content-Type, as both transports allow.
//
// Questions to the client (sampling/createMessage, elicitation/create):
// - 2025 transports: sent as JSON-RPC requests on that stream; the client
//   POSTs its response to /mcp, which hands it over here by id (Outbound).
//   Only with Accept: text/event-stream, only to a client that declared the
//   capability at initialize (its session), and answered within ANSWER_MS.
// - 2026-07-28 (multi round-trip requests): the answer is an
//   InputRequiredResult whose inputRequests carry the questions (keys r1,
//   r2, ... in the order the tool asked); the client asks its user and sends
//   the same request again with inputResponses under the same keys, and the
//   tool runs again from the start, now finding its answers. So a tool asks
//   before it changes anything. A question needing a capability the
//   request's _meta did not declare answers MissingRequiredClientCapability.
//
// No event carries an id: the device cannot resume a stream, and an id
// would invite the client to reconnect for one.

import type { Clock, Timer } from '../hal/index.ts';
import type { HttpResponse, BodyWriter } from '../net/http/types.ts';
import { randomId, type RandomFill } from '../util/ids.ts';
import { isPlainObject, stringify } from '../util/json.ts';
import { MISSING_REQUIRED_CLIENT_CAPABILITY, rpcError, rpcMessage, rpcResult, type RpcId, type RpcResponse } from './jsonrpc.ts';
import { PeerRefusal, type ToolPeer } from '../core/tools/types.ts';

/** How long a question waits for the client's answer (a person may be filling a form). */
export const ANSWER_MS = 120_000;
/** Questions waiting at once, across every client. */
export const MAX_WAITING = 8;

/** The capability a client must have declared for each question. */
const CAPABILITY_OF: Record<string, string> = { 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation', 'roots/list': 'roots' };

export type Outcome = { kind: 'json'; status: number; body: RpcResponse } | { kind: 'stream'; response: HttpResponse };

interface Waiting {
  session: string | null;
  resolve(result: Record<string, unknown>): void;
  reject(e: Error): void;
  timer: Timer;
}

/** Questions sent to clients on event streams, waiting for the responses they POST back (2025 transports). */
export class Outbound {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly clock: Clock,
    private readonly random: RandomFill,
  ) {}

  /** A fresh request id and the promise of its answer; rejects at once when too many wait. */
  ask(session: string | null): { id: string; answer: Promise<Record<string, unknown>> } | null {
    if (this.waiting.size >= MAX_WAITING) return null;
    const id = randomId(this.random, 'dev-', 8);
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the client did not answer within ${ANSWER_MS / 1000} s`));
      }, ANSWER_MS);
      this.waiting.set(id, { session, resolve, reject, timer });
    });
    return { id, answer };
  }

  /**
   * A response the client POSTed: settles the question it answers. The
   * session must be the one asked (a request asked without one takes its
   * answer from any holder of the token). False when nothing waited for it.
   */
  deliver(id: RpcId | null, session: string | null, result: unknown, error: unknown): boolean {
    const w = typeof id === 'string' ? this.waiting.get(id) : undefined;
    if (!w || (w.session !== null && w.session !== session)) return false;
    this.waiting.delete(id as string);
    w.timer.cancel();
    if (error !== undefined || !isPlainObject(result)) {
      const message = isPlainObject(error) && typeof error.message === 'string' ? error.message : 'the client answered with an error';
      w.reject(new Error(message));
    } else w.resolve(result);
    return true;
  }

  get size(): number {
    return this.waiting.size;
  }
}

export interface ExchangeOptions {
  id: RpcId;
  /** 2026-07-28: questions ride in an InputRequiredResult. */
  modern: boolean;
  /** The answer may be an event stream (the client accepts one, and this is no batch). */
  stream: boolean;
  progressToken?: string | number;
  /** What the client declared it can do (its session's, or the request's _meta), null when unknown. */
  capabilities: Record<string, unknown> | null;
  /** 2026-07-28: the answers of an earlier InputRequiredResult (params.inputResponses). */
  inputResponses: Record<string, unknown> | null;
  session: string | null;
  /** Where questions wait for their answers; null: this server asks nothing (no clock). */
  outbound: Outbound | null;
  /** Adds the era's fields to a result (2026-07-28: resultType, _meta). */
  decorate(result: Record<string, unknown>): Record<string, unknown>;
}

const never = <T>(): Promise<T> => new Promise<T>(() => {});

export class Exchange implements ToolPeer {
  readonly outcome: Promise<Outcome>;
  private settle!: (o: Outcome) => void;
  private settled = false;
  private streaming = false;
  private readonly queue: string[] = [];
  private writer: BodyWriter | null = null;
  private ended = false;
  private asked = 0;
  private inputRequests: Record<string, unknown> | null = null;

  constructor(private readonly o: ExchangeOptions) {
    this.outcome = new Promise<Outcome>((resolve) => (this.settle = resolve));
  }

  progress(progress: number, total?: number, message?: string): void {
    if (this.o.progressToken === undefined || !this.o.stream) return;
    const params: Record<string, unknown> = { progressToken: this.o.progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.send(rpcMessage('notifications/progress', params));
  }

  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const capability = CAPABILITY_OF[method] ?? null;
    const declared = capability === null || (this.o.capabilities !== null && isPlainObject(this.o.capabilities[capability]));
    if (this.o.modern) return this.inputRequired(method, params, declared ? null : capability);
    if (!this.o.stream) return Promise.reject(new PeerRefusal(null, 'This request cannot carry a question to the client: it must accept text/event-stream, outside a batch.'));
    if (!declared) return Promise.reject(new PeerRefusal(capability, `The client did not declare the ${capability} capability.`));
    const asked = this.o.outbound?.ask(this.o.session) ?? null;
    if (!asked) return Promise.reject(new PeerRefusal(null, 'Too many questions to clients are waiting already; try again shortly.'));
    this.send(rpcMessage(method, params, asked.id));
    return asked.answer;
  }

  /** The final response: sent as JSON, or as the stream's last event. */
  finish(status: number, body: RpcResponse): void {
    if (this.streaming) {
      if (this.ended) return;
      this.queue.push(event(body));
      this.ended = true;
      this.flush();
      return;
    }
    if (this.settled) return;
    this.settled = true;
    this.settle({ kind: 'json', status, body });
  }

  private inputRequired(method: string, params: Record<string, unknown>, missing: string | null): Promise<Record<string, unknown>> {
    const key = `r${++this.asked}`;
    const given = this.o.inputResponses?.[key];
    if (isPlainObject(given)) return Promise.resolve(given);
    if (missing !== null) {
      this.finish(400, rpcError(this.o.id, MISSING_REQUIRED_CLIENT_CAPABILITY, `This request needs the ${missing} client capability, which the request's _meta did not declare.`, { requiredCapabilities: { [missing]: {} } }));
      return never();
    }
    const first = this.inputRequests === null;
    (this.inputRequests ??= {})[key] = { method, params };
    // Questions asked in the same turn of the tool join one answer.
    if (first) {
      void Promise.resolve().then(() => {
        const result = { ...this.o.decorate({ inputRequests: this.inputRequests }), resultType: 'input_required' };
        this.finish(200, rpcResult(this.o.id, result));
      });
    }
    // The tool's run ends here; the client's retry runs it again with the answers.
    return never();
  }

  private send(message: Record<string, unknown>): void {
    if (this.ended || (this.settled && !this.streaming)) return;
    this.queue.push(event(message));
    if (!this.streaming) {
      this.streaming = true;
      this.settled = true;
      this.settle({
        kind: 'stream',
        response: {
          status: 200,
          // X-Accel-Buffering: a reverse proxy must pass each event on at once (2026-07-28 transport).
          headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
          stream: {
            start: (w) => {
              this.writer = w;
              this.flush();
            },
          },
        },
      });
      return;
    }
    this.flush();
  }

  private flush(): void {
    const w = this.writer;
    if (!w) return;
    while (this.queue.length) w.write(this.queue.shift()!);
    if (this.ended) {
      this.writer = null;
      w.end();
    }
  }
}

function event(message: unknown): string {
  return `event: message\ndata: ${stringify(message)}\n\n`;
}
