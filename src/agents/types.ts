// The fabric's records: a spawn waiting in the queue, a job from dispatch
// to its end, and where a job came from (the spawning chat and person).
// Per-job states (the spec leaves them unnamed; docs/decisions.md):
//   queued      in the pending queue (RAM only: nothing has been spent yet)
//   starting    dispatch is building the brief and calling the provider
//               (journaled, so a restart in the middle is reported, not lost)
//   running     the provider has the job; polled about every 15 s
//   done        a terminal poll stored the result (fresh) and told the chat
//   failed      the provider or the device gave up; told at once, no fresh result
//   terminated  stopped by terminate; no fresh result
//   expired     a restart found it and it cannot be resumed (synchronous backends)

import type { ProviderId, SpawnSpec } from '../contracts/index.ts';

export type JobState = 'queued' | 'starting' | 'running' | 'done' | 'failed' | 'terminated' | 'expired';

/** Who spawned a job: the chat its results go back to, and on whose behalf it runs. */
export interface JobOrigin {
  chat: string;
  /** The person (chat id) for a chat member; null for the owner. */
  person: string | null;
  admin: boolean;
}

export interface PendingSpawn extends SpawnSpec, JobOrigin {
  tag: string;
  /** Monotonic ms when queued. */
  queuedAt: number;
}

export interface Job extends JobOrigin {
  tag: string;
  name: string;
  project: string;
  provider: ProviderId;
  model: string;
  /** The provider's id for the job (response id, session id); null for synchronous backends. */
  jobId: string | null;
  state: JobState;
  /** Wall-clock ms at dispatch (for people) and monotonic ms (for limits). */
  startedWall: number;
  startedMono: number;
  polls: number;
  /** Failed polls in a row. */
  failures: number;
  /** Journal slot (0-5) while it holds one. */
  slot: number | null;
  /** Why it failed, expired or was stopped. */
  error: string | null;
  endedWall: number | null;
}

/** A job as dispatch starts it (state starting, nothing polled, no slot yet). */
export function newJob(p: PendingSpawn, provider: ProviderId, model: string, startedWall: number, startedMono: number): Job {
  return {
    tag: p.tag,
    name: p.name,
    project: p.project,
    provider,
    model,
    jobId: null,
    chat: p.chat,
    person: p.person,
    admin: p.admin,
    state: 'starting',
    startedWall,
    startedMono,
    polls: 0,
    failures: 0,
    slot: null,
    error: null,
    endedWall: null,
  };
}

export function displayName(j: { name: string; tag: string }): string {
  return j.name || j.tag;
}
