// The sub-agent backends' contract (spec, "Sub-agent backends"): start a job
// with a brief, poll it, cancel it. Asynchronous backends (provider A's
// background responses, provider B's sessions) return a provider job id and
// are polled; they survive a reboot (resumable). Synchronous ones (provider
// C's conversations, the custom endpoint, the Z.ai-style backend and the
// model router) answer within the start call; the fabric caches that answer
// and serves it once, at the job's terminal poll.

import type { Store } from '../../core/store.ts';
import type { HttpClient } from '../../net/http/client.ts';
import type { CustomEndpoint } from '../../contracts/index.ts';
import type { CustomStyle, ProviderId } from '../../contracts/index.ts';
import type { ToolServerSource } from '../../contracts/index.ts';
import type { Usage } from '../../contracts/index.ts';

export type StartOutcome =
  | { kind: 'running'; jobId: string }
  | { kind: 'done'; text: string; partial: boolean }
  | { kind: 'failed'; error: string; timeout: boolean };

export type PollOutcome =
  | { kind: 'running' }
  | { kind: 'done'; text: string; partial: boolean }
  | { kind: 'failed'; error: string }
  /** Could not ask (network, 5xx, 429): try again at the next poll. */
  | { kind: 'retry'; error: string };

export interface StartRequest {
  tag: string;
  model: string;
  brief: string;
  /** The fabric sets onCancel's target to abort a synchronous call in flight. */
  cancel: { onCancel: (() => void) | null };
  /** Spawned by an admin (the owner): the job may carry the owner's approved tool servers. */
  admin?: boolean;
}

export interface AgentBackend {
  readonly provider: ProviderId;
  /** The provider keeps the job across a device restart (it can be polled again). */
  readonly resumable: boolean;
  start(req: StartRequest): Promise<StartOutcome>;
  poll(jobId: string): Promise<PollOutcome>;
  cancel(jobId: string): Promise<void>;
}

/** What backends need of the device: the HTTP client, keys and endpoints, and a store for provider B's cache. */
export interface BackendEnv {
  client: Pick<HttpClient, 'request'>;
  key(provider: ProviderId): string | null;
  customBase(): string;
  customStyle(): CustomStyle;
  /** The Z.ai-style host pinned by the key check (or the first regional host). */
  zaiHost(): string;
  routerHost(): string;
  /** NVS namespace 'agents' (provider B's environment and agent ids). */
  store: Store;
  /** The offline demo endpoint (test builds with no provider) when the job was chosen for it. */
  endpoint: CustomEndpoint | null;
  /** The owner's approved, ready tool servers (src/connectors/); absent: none. Provider A and B jobs only. */
  servers?: ToolServerSource;
  /** A line for the device log (what a backend cannot report in a job's outcome). */
  warn?(message: string): void;
  /** Counts the tokens a job's answers reported (the usage ledger); absent: not counted. */
  usage?(provider: ProviderId, usage: Usage): void;
}
