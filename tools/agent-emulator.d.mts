// Types for tools/agent-emulator.mjs.

type Rule = string | RegExp;

/** How a scripted sub-agent job behaves (a behaviour's `job` field). */
export interface JobScript {
  /** Polls answered "running" before the terminal one (default 1: done at the first poll). */
  polls?: number;
  /** The result text (default: the offline demo's). */
  result?: string;
  /** The job fails with this message (synchronous: HTTP 500). */
  error?: string;
  /** A partial result (A: incomplete; B: idle with budget_reached after its text). */
  partial?: boolean;
  /** B: the session goes idle with this stop reason (the SDK's). */
  stop?: 'end_turn' | 'requires_action' | 'retries_exhausted' | 'budget_reached' | 'refusal';
  /** B: working events before the result (a long session whose event list pages). */
  events?: number;
  /** B: the session stops to wait for an approval. */
  requiresAction?: boolean;
  /** The start request answers this HTTP status. */
  status?: number;
  /** The start request never answers. */
  hold?: boolean;
  /** The (synchronous) start request answers after this many ms. */
  delayMs?: number;
  /** The first pollErrors polls (default 1) answer this status. */
  pollStatus?: number;
  pollErrors?: number;
}

export interface AgentJob {
  id: string;
  kind: 'session' | 'response' | 'sync-conversations' | 'sync-chat' | 'sync-messages';
  host: string;
  model: string | null;
  brief: string;
  task: string;
  script: JobScript;
  polls: number;
  pollErrors: number;
  cancelled: boolean;
  at: number;
  /** B: event pages served. */
  pagesServed?: number;
}

/** A credential vault (provider B sessions' tool server credentials). */
export interface AgentVault {
  id: string;
  name: string;
  archived: boolean;
  credentials: Array<{ id: string; type: string; mcp_server_url: string; token: string | null }>;
}

export interface AgentJobs {
  handle(
    rec: { method: string; host: string; path: string; body: unknown; query?: string; headers?: Record<string, string | string[] | undefined> },
    queue: Array<{ job?: JobScript; match?: { host?: Rule; path?: Rule } }>,
  ): { status: number; body: unknown; delayMs?: number } | { hold: true } | null;
  list(): AgentJob[];
  created: { environments: number; agents: number; sessions: number };
  /** Vaults made so far, by id. */
  vaults: Map<string, AgentVault>;
  reset(): void;
}

export function createAgentJobs(): AgentJobs;
export function agentKind(method: string, path: string, body: unknown): string | null;
export function taskOf(brief: string): string;
