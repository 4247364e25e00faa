// The provider wire's contract with the turn engine and the other users of
// the wire (sub-agents, models, images, connectors): provider ids, the custom
// endpoint, tool servers, a dialect-neutral transcript, one round's request,
// and one round's result. Each backend
// (src/providers/<dialect>.ts) turns a RoundRequest into one HTTP request
// body (serialized once, into one buffer) and a response into a RoundResult;
// the engine (src/turn/engine.ts) never sees a dialect.

/** A JSON Schema object (src/core/tools/types.ts's JsonSchema; contracts import nothing above util). */
type JsonSchema = Record<string, unknown>;

/** Provider ids: the three hosted dialects, the Z.ai-style backend, the model router, the custom endpoint. */
export const PROVIDERS = ['openai', 'anthropic', 'mistral', 'zai', 'router', 'custom'] as const;
export type ProviderId = (typeof PROVIDERS)[number];
export const HOSTED: readonly ProviderId[] = ['openai', 'anthropic', 'mistral'];

export type CustomStyle = 'chat' | 'messages';

/** The custom endpoint (src/providers/custom.ts), or the offline demo's. */
export interface CustomEndpoint {
  /** http(s)://host[:port]; any path is ignored. */
  base: string;
  style: CustomStyle;
  model: string;
  /** Whether tool-loop rounds may be sent (only the offline demo). */
  loops?: boolean;
}

/** One remote tool server as a request carries it (src/providers/tool-servers.ts). */
export interface ToolServer {
  /** The connector id: server_label (A) and the server's name (B); unique, a-z 0-9 - _. */
  label: string;
  /** The owner's display name (A's server_description). */
  name: string;
  /** The MCP server's https URL ('' for a provider A connector by id). */
  url: string;
  /** Provider A's connector id (kind provider), '' otherwise. */
  connectorId: string;
  /** The bearer secret or OAuth access token; null for a server without auth. */
  credential: string | null;
}

/** The providers that can carry tool servers. */
export type ToolServerProvider = 'openai' | 'anthropic';

/** Where the wire and the sub-agent backends get the servers a request may carry (src/connectors/). */
export interface ToolServerSource {
  serversFor(provider: ToolServerProvider): Promise<ToolServer[]>;
}

/** One item of the conversation as the engine keeps it across rounds. */
export type TranscriptItem =
  /** The prompt blocks (system or developer instructions, by dialect). */
  | { kind: 'system'; text: string }
  | { kind: 'user'; text: string }
  /** Earlier assistant text (a previous turn's reply); `ref` as for tool_call (provider A's msg_...). */
  | { kind: 'assistant'; text: string; ref?: string }
  /**
   * A tool call the model made; `args` is the raw JSON text it sent. `ref` is
   * the provider's own id of the output item that carried it (provider A's
   * fc_...), replayed so a reasoning item keeps its paired following item.
   */
  | { kind: 'tool_call'; id: string; name: string; args: string; ref?: string }
  /** What the device answered to a tool call (the ToolResult as JSON). */
  | { kind: 'tool_result'; id: string; name: string; output: string }
  /**
   * An item only its own dialect understands, replayed verbatim on later
   * rounds (provider A's reasoning items, B's thinking blocks). Dropped when
   * the transcript moves to another provider.
   */
  | { kind: 'opaque'; provider: ProviderId; raw: unknown };

/** A tool offered to the model, already under its provider-safe name. */
export interface ToolDef {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface RoundRequest {
  provider: ProviderId;
  model: string;
  transcript: TranscriptItem[];
  /**
   * 'single': one-shot structured output of the turn object (no tools).
   * 'loop': a tool-loop round: the registry's tools plus the orch_turn tool.
   */
  mode: 'single' | 'loop';
  /** Tools for a loop round (the orch_turn tool is added by the backend). */
  tools: ToolDef[];
  /** The forced final round of a tripped cap: only orch_turn, and it must be called. */
  forceFinal: boolean;
  /** The turn object's wire schema and its name (orch_turn). */
  schema: JsonSchema;
  schemaName: string;
  /** The prompt's field documentation (the description of orch_turn). */
  schemaDoc: string;
  /**
   * The round may carry the owner's approved tool servers (connectors act
   * with the owner's credentials, so only turns of an admin caller do).
   * Absent: none.
   */
  connectors?: boolean;
}

export type ProviderErrorKind =
  /** Could not connect, TLS failure, connection dropped: worth a retry or a failover. */
  | 'transport'
  /** No answer in time (the exchange deadline). */
  | 'timeout'
  /** The provider refused the request as too long for the model's context (recognized by its wording). */
  | 'context-overflow'
  /** 401 or 403: the key is wrong. */
  | 'auth'
  /** 429. */
  | 'rate-limit'
  /** Any other non-2xx answer (5xx included). */
  | 'http'
  /** A 2xx answer whose body is not what the dialect promises (unparseable, no content). */
  | 'malformed'
  /** The model declined to answer (a refusal stop reason or refusal content): asking again or elsewhere will not help. */
  | 'refused'
  /** The request could not be built (no key for a keyed provider, a key over plain http, bad base URL). */
  | 'config';

/**
 * Tokens one answer used, as the provider reported them (src/providers/usage.ts
 * reads every dialect's shape). input counts every prompt token (cached ones
 * included), output every generated token (reasoning included).
 */
export interface Usage {
  input: number;
  output: number;
  reasoning: number;
  cached: number;
}

export type RoundResult = (
  /** The model produced the turn object (raw JSON text, for src/turn/parse.ts). */
  | { kind: 'turn'; json: string; items: TranscriptItem[] }
  /** The model called tools; run them and send another round. `items` are appended to the transcript. */
  | { kind: 'tools'; calls: Array<{ id: string; name: string; args: string }>; items: TranscriptItem[] }
  /**
   * The provider paused its own turn (provider B's pause_turn: a long
   * server-side tool loop): append `items` and send the next round as is,
   * with no tool run by the device.
   */
  | { kind: 'continue'; items: TranscriptItem[] }
  | { kind: 'error'; error: ProviderErrorKind; message: string; status?: number }
) & {
  /** What the answer cost (any 2xx answer that reported it, a refusal or a cut answer included). */
  usage?: Usage;
};

/**
 * What a streamed round gives its caller (the turn engine) while it runs, when
 * the wire streams (the owner's stream setting): the turn's text as it grows.
 */
export interface RoundStream {
  /** The turn's text as it grows: orch_turn's arguments, or a single-shot round's JSON text. */
  onText(delta: string): void;
  /**
   * What is left of the turn (ms): a streamed round that keeps flowing is cut
   * only there; silence longer than the provider's read deadline ends it.
   */
  turnLeftMs: number;
}

/** One HTTP exchange a backend wants made (the body serialized once). */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** A dialect: pure functions from a round to bytes and back. */
export interface Backend {
  id: ProviderId;
  /** Builds the request; an error result when it cannot (no key, bad endpoint). */
  build(req: RoundRequest, key: string | null): WireRequest | { kind: 'error'; error: ProviderErrorKind; message: string };
  /** Reads a response (any status) into a result. */
  parse(status: number, body: Uint8Array, req: RoundRequest): RoundResult;
  /** The default model when none is configured or the configured one is invalid. */
  defaultModel: string;
  /** Whether this backend can run a tool loop (the custom endpoint cannot). */
  loops: boolean;
}
