// Types for tools/lan-attacks.mjs.

export const KINDS: string[];
export const CONNECTION_ATTACKS: ReadonlyArray<readonly [string, number]>;

export interface AttackStats {
  kind: string;
  opened: number;
  closedByDevice: number;
  bytesSent: number;
  answers: Record<string, number>;
  errors: number;
  kept?: number;
}

export interface Attack {
  ready: Promise<{ kind: string }>;
  stats: AttackStats;
  live(): number;
  stop(): Promise<AttackStats>;
  release(): void;
}

export function startAttack(kind: string, options: { port: number; connections?: number; dribbleMs?: [number, number] }): Attack;

export interface ProbeResult {
  status: number;
  ms: number;
  error: string | null;
}

export function probe(options: { port: number; token: string; path?: string; timeoutMs?: number }): Promise<ProbeResult>;

export interface ProbeSummary {
  n: number;
  ok: number;
  failures: string[];
  p50: number;
  p99: number;
  max: number;
  results: ProbeResult[];
}

export function summarize(results: ProbeResult[], timeoutMs?: number): ProbeSummary;

export function probes(options: { port: number; token: string; n?: number; gapMs?: number; timeoutMs?: number; path?: string }): Promise<ProbeSummary>;

export interface SpawnedAttack {
  stop(): Promise<{ stats: AttackStats }>;
  release(): Promise<void>;
  kill(): void;
}

export function spawnAttack(kind: string, options: { port: number; connections?: number; seconds?: number }): Promise<SpawnedAttack>;
