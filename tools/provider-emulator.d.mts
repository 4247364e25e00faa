// Types for tools/provider-emulator.mjs.

import type { AgentJobs, JobScript } from './agent-emulator.mjs';
import type { SearchApi } from './search-fake.mjs';
import type { ImageApi } from './image-fake.mjs';

export const DEMO_HOST: string;
export const ROUTER_HOST: string;
export const ZAI_HOSTS: string[];
export const EMULATOR_NAMES: string[];

type Rule = string | RegExp;

/** One scripted answer, consumed by the first request it matches (without match.method: the first POST). */
export interface Behaviour {
  match?: { host?: Rule; path?: Rule; method?: Rule };
  /** A transcription's text (POST /v1/audio/transcriptions; default DEMO_TRANSCRIPT). */
  transcript?: string;
  /** Answer with the turn object (structured output, or the orch_turn tool call, as the request asks). */
  turn?: Record<string, unknown> | string;
  /** Answer with these tool calls (args as an object or raw JSON text; id chosen when absent). */
  tools?: Array<{ name: string; args?: Record<string, unknown> | string; id?: string }>;
  /** Answer with plain assistant text. */
  text?: string;
  /** Add a reasoning item (Responses, reasoning models only; encrypted content when included) or a thinking block (Messages). */
  reasoning?: boolean;
  /** B: stop_reason pause_turn, a server tool call in the content. */
  pause?: boolean;
  /** A refusal: B stop_reason refusal, A refusal content, chat message.refusal. */
  refusal?: boolean | string;
  /** B: this stop_reason; chat: this finish_reason. */
  stop?: string;
  /** Mistral: the content as chunks (a thinking chunk and a text chunk). */
  chunks?: boolean;
  /** Remote tool server calls the provider made itself: mcp_call items (Responses), mcp_tool_use and mcp_tool_result blocks (Messages). */
  mcp?: Array<{ server: string; name: string; args?: Record<string, unknown>; output?: string }>;
  /** Answer with this error status in the dialect's error shape. */
  status?: number;
  message?: string;
  code?: string;
  /** Answer 400 with the dialect's context-overflow wording. */
  overflow?: boolean;
  /** Answer 200 with broken JSON. */
  broken?: boolean;
  /** Never answer (the connection stays open). */
  timeout?: boolean;
  /** Answer after this many milliseconds. */
  delayMs?: number;
  /** Hold the answer until the barrier opens (barrier()): a test's step without a wall-clock wait. */
  barrier?: Barrier;
  /** Send the body in chunks of chunkBytes every intervalMs. */
  slow?: { chunkBytes?: number; intervalMs?: number };
  /** Answer exactly this. */
  raw?: { status?: number; headers?: Record<string, string>; body?: string };
  /** Answer as the offline demo. */
  demo?: boolean;
  /** A sub-agent job (tools/agent-emulator.mjs), taken only by a request that starts one. */
  job?: JobScript;
  /** A moderation verdict (POST /v1/moderations): the flagged categories; none means clean (the default). */
  moderation?: { categories?: string[] };
  /** Speech (POST /v1/audio/speech): its length (default speechMs(input)), a WAV's rate and channels, 0xFFFFFFFF sizes as streamed. */
  speech?: SpeechOptions;
  /**
   * Embeddings (POST /v1/embeddings; the behaviour must name the path in match.path): answer vectors this many
   * numbers wide, or exactly these vectors (a provider that answers wrongly).
   */
  embedding?: { width?: number; vectors?: number[][] };
  /** A model's pace: the stream's first token after firstMs, then tokensPerS (a whole answer waits for all its tokens). */
  pace?: Pace;
  /** A streamed answer: the dialect's error event after this many tokens. */
  midError?: { afterTokens: number };
  /** A streamed answer: the connection dropped after this many tokens. */
  cut?: { afterTokens: number };
}

export interface Pace {
  firstMs?: number;
  tokensPerS?: number;
}

/** A latency profile for every answer (Emulator.setLatency). */
export interface Latency {
  /** A transcription's answer after this long. */
  transcriptionMs?: number;
  /** Every round's model pace. */
  model?: Pace;
  /** A speech answer's first byte after this long. */
  speechFirstByteMs?: number;
}

/** A held answer (Behaviour.barrier): the test waits for the request, acts, then opens it or sees the client hang up. */
export interface Barrier {
  /** Resolves with the request's record when it arrives and is held. */
  arrived: Promise<RecordedRequest>;
  /** Resolves with the record when the client closes the connection before the answer (record.hungUp is then true). */
  hungUp: Promise<RecordedRequest>;
  /** Lets the held answer go (if the connection is still open). */
  open(): void;
}
export function barrier(): Barrier;

export interface SpeechOptions {
  ms?: number;
  sampleRate?: number;
  channels?: 1 | 2;
  streamSizes?: boolean;
}

export interface RecordedRequest {
  method: string;
  host: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (null when absent or not JSON). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
  /** The query string ('' or ?...). */
  query: string;
  at: number;
  behaviour?: Behaviour;
  /** Refused by a rule of the service (tools/provider-rules.mjs): status and the service's words. */
  refused?: { status: number; message: string; code?: string };
  /** A sub-agent backend's request (answered by tools/agent-emulator.mjs). */
  agent?: boolean;
  /** Held by a barrier. */
  held?: boolean;
  /** The client closed the connection before the answer went out. */
  hungUp?: boolean;
  /** A transcription request's form (POST /v1/audio/transcriptions), as parsed and judged. */
  form?: import('./provider-rules.mjs').TranscriptionForm;
  /** Answered as an event stream (the request asked stream: true). */
  streamed?: boolean;
  /** Tokens the answer carried (paced or streamed answers). */
  tokens?: number;
}

export interface Emulator {
  port: number;
  url: string;
  requests: RecordedRequest[];
  /** host -> the only key that host accepts (401 otherwise). */
  keys: Map<string, string>;
  /** Sub-agent jobs: what was started, with its brief and polls. */
  jobs: AgentJobs;
  /** The web search API (tools/search-fake.mjs) on api.search.brave.com. */
  search: SearchApi;
  /** The image generation API (tools/image-fake.mjs) on POST /v1/images/generations. */
  images: ImageApi;
  server: import('node:net').Server;
  script(behaviours: Behaviour | Behaviour[]): void;
  pending(): number;
  /** Connections accepted so far (each a TCP and TLS handshake for the client). */
  connections(): number;
  setLatency(profile: Latency): void;
  reset(): void;
  close(): Promise<void>;
}

export interface StartOptions {
  port?: number;
  tls?: boolean;
  names?: string[];
  /** A self-signed certificate the firmware does not trust. */
  untrusted?: boolean;
  log?: (line: string) => void;
}

export function start(options?: StartOptions): Promise<Emulator>;
export const startProviderEmulator: typeof start;
export function routeArgs(port: number, names?: string[], targetPort?: number): string[];
export function turnObject(reply: string, extra?: Record<string, unknown>): Record<string, unknown>;
export function summarize(dialect: string, body: unknown): { mode: 'single' | 'loop'; schemaName: string; tools: string[]; lastUser: string; lastTool: { name: string; output: string } | null };
export function demoDecide(s: ReturnType<typeof summarize>): { turn?: Record<string, unknown>; tools?: Array<{ name: string; args: Record<string, unknown> }> };

export function speechMs(text: unknown): number;
export function speechPcm(ms: number, sampleRate?: number, channels?: number): Int16Array;
export function wavBytes(pcm: Int16Array, sampleRate: number, channels: number, streamSizes?: boolean): Buffer;
export function oggOpusBytes(ms: number): Buffer;
export function speechAnswer(body: unknown, options?: SpeechOptions): { contentType: string; bytes: Buffer } | null;

export function moderationBody(family: 'openai' | 'mistral' | string, verdict?: { categories?: string[] }): Record<string, unknown>;
export const DEMO_TRANSCRIPT: string;
export function transcriptionBody(family: string, model: string, text: string, seconds: number): Record<string, unknown>;
