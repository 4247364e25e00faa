// The sub-agent fabric (spec, "Sub-agent job flow"):
//   1. A spawn enqueues a pending spawn (queue depth 12). A pump starts at
//      most one per cycle (about one per 1.5 s) into the in-flight window of
//      4, while a journal slot is free; below 28 KB of free internal heap the
//      dispatch waits for a later cycle.
//   2. Dispatch chooses the provider and model, builds the brief, journals the
//      job and calls the provider; the job is running.
//   3. Running jobs are polled about every 15 s. A terminal poll stores the
//      result as a fresh result (auto-saved to the file store when the job
//      names a project), tells the spawning chat, writes the ev:subresult
//      trace row, and asks for a synthesis turn (synthesis.ts).
//   4. terminate stops a queued or running job; it yields no result.
//   5. An error is told at once as 'Job [<name>] failed: <error>' and stores
//      nothing.
// A spawn that finds the queue full is refused, and its chat is told once per
// batch (the spawns refused in one go, e.g. by one turn, share one message),
// whichever way it came (a session op, session.spawn, POST /api/sessions).
// Notes of a dispatch (the provider asked for has no key, a skill not
// injected, an attachment missing) go to the log and into the spawning
// chat's next turn as [SESSIONS] lines.
// Synchronous backends answer inside the dispatch call; that answer is
// cached and served once, by an immediate terminal poll. At boot the journal
// resumes jobs of the backends that survive a reboot and reports the others
// expired. How spawns and results are named in messages and files is
// labels.ts's.

import type { Hal, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { CustomEndpoint, SpawnSpec } from '../contracts/index.ts';
import { randomId, type RandomFill } from '../util/ids.ts';
import { errorMessage } from '../util/json.ts';
import type { AgentBackend, StartOutcome } from './backends/types.ts';
import type { Brief } from './brief.ts';
import type { Choice } from './choose.ts';
import { recordOf, type Journal } from './journal.ts';
import {
  DISPATCH_HEAP_FLOOR,
  ENDED_MAX,
  EXCERPT_CHARS,
  IN_FLIGHT,
  JOB_MAX_MS,
  MESSAGES_MAX,
  POLL_FAILURES_MAX,
  POLL_MS,
  PUMP_MS,
  QUEUE_DEPTH,
  SPAWN_PER_TURN,
} from './limits.ts';
import type { AgentDocs, AgentMessenger, MessageAuthor } from './ports.ts';
import { visibleTo, type ResultStore } from './results.ts';
import { capChars, oneLine } from './text.ts';
import { displayName, newJob, type Job, type JobOrigin, type PendingSpawn } from './types.ts';
import { queueFullText, resultFileName, spawnLabel } from './labels.ts';

export { queueFullText, resultFileName, spawnLabel } from './labels.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const TRAILING_STOPS = /[.\s]+$/;

export interface FabricDeps {
  hal: Pick<Hal, 'clock' | 'system'>;
  log: Log;
  random: RandomFill;
  journal: Journal;
  results: ResultStore;
  choose(spec: SpawnSpec): Choice;
  brief(spec: SpawnSpec & JobOrigin): Brief;
  backend(provider: Job['provider'], endpoint: CustomEndpoint | null): AgentBackend;
  resumable(provider: Job['provider']): boolean;
  messenger(): AgentMessenger;
  docs(): AgentDocs;
  /** An episodic trace row in the chat's session (ev:spawn, ev:subresult); the caller checks the card. */
  trace(chat: string, ev: 'ev:spawn' | 'ev:subresult', tag: string, text: string): void;
  /** A fresh result landed for the chat: the synthesis coalesces from here. */
  landed(origin: JobOrigin): void;
  /** A line for the chat's next turn input (the dispatch's notes for the model). */
  note(chat: string, line: string): void;
}

export type Enqueued = { ok: true; tag: string; position: number } | { ok: false; reason: 'queue-full' | 'bad-task'; message: string };

export interface SentMessage {
  chat: string;
  text: string;
  atWall: number;
}

export class Fabric {
  private queue: PendingSpawn[] = [];
  private live = new Map<string, Job>();
  private ended: Job[] = [];
  private sent: SentMessage[] = [];
  private backends = new Map<string, AgentBackend>();
  private pollTimers = new Map<string, Timer>();
  private cancels = new Map<string, { onCancel: (() => void) | null }>();
  /** Synchronous answers waiting for their one terminal poll. */
  private cache = new Map<string, StartOutcome>();
  private pumpTimer: Timer | null = null;
  private lastDispatch = Number.NEGATIVE_INFINITY;
  private heapDeferred = false;
  /** Spawns refused for a full queue, per chat, told together once the current batch is over. */
  private refused = new Map<string, string[]>();
  /** Dispatches deferred for heap, for GET /api/sessions. */
  deferrals = 0;

  constructor(private readonly d: FabricDeps) {}

  // --- reading ----------------------------------------------------------------

  queued(): number {
    return this.queue.length;
  }
  inFlight(): number {
    return this.live.size;
  }
  /** Spawns a turn may still start (spec: min(6, 12 minus queued)). */
  capacity(): number {
    return Math.max(0, Math.min(SPAWN_PER_TURN, QUEUE_DEPTH - this.queue.length));
  }
  pending(person: string | null): PendingSpawn[] {
    return this.queue.filter((p) => visibleTo(p, person));
  }
  running(person: string | null): Job[] {
    return [...this.live.values()].filter((j) => visibleTo(j, person));
  }
  recent(person: string | null): Job[] {
    return this.ended.filter((j) => visibleTo(j, person)).reverse();
  }
  messages(): SentMessage[] {
    return [...this.sent].reverse();
  }
  job(tag: string): Job | null {
    return this.live.get(tag) ?? this.ended.find((j) => j.tag === tag) ?? null;
  }

  // --- boot -------------------------------------------------------------------

  /** Reads the journal: resumable running jobs are polled again, the rest reported expired. */
  resume(): void {
    const { records, dropped } = this.d.journal.load();
    if (dropped) this.d.log.warn('agents', `${dropped} journal slot(s) did not check and were dropped`);
    const { clock } = this.d.hal;
    for (const { slot, record } of records) {
      const age = clock.synced() ? Math.max(0, clock.wallMs() - record.startedWall) : 0;
      const job: Job = {
        ...record,
        state: 'running',
        startedMono: clock.monoMs() - age,
        polls: 0,
        failures: 0,
        slot,
        error: null,
        endedWall: null,
      };
      if (record.state === 'running' && record.jobId && this.d.resumable(record.provider)) {
        this.live.set(job.tag, job);
        this.backends.set(job.tag, this.d.backend(job.provider, null));
        this.schedulePoll(job, POLL_MS);
        this.d.log.info('agents', `resumed ${job.tag} on ${job.provider} after the restart`);
        continue;
      }
      const why =
        record.state === 'starting'
          ? 'the device restarted before the job reached the provider'
          : `the device restarted while it ran, and a ${record.provider} job cannot be resumed`;
      this.live.set(job.tag, job);
      this.finish(job, 'expired', why);
      this.tell(job, `Job [${displayName(job)}] expired: ${why}.`, `job:${job.tag}:expired`);
    }
  }

  // --- spawning -----------------------------------------------------------------

  /**
   * Queues a spawn. A full queue refuses it and tells its chat (spawns refused
   * in the same batch, e.g. one turn's, share one message); the refusal's
   * message is that text for the caller's own answer.
   */
  enqueue(spec: SpawnSpec, origin: JobOrigin): Enqueued {
    if (!spec.task.trim()) return { ok: false, reason: 'bad-task', message: 'a spawn needs a task' };
    if (this.queue.length >= QUEUE_DEPTH) {
      const label = spawnLabel(spec);
      this.refuseFull(origin.chat, label);
      return { ok: false, reason: 'queue-full', message: queueFullText([label]) };
    }
    const tag = this.newTag();
    this.queue.push({ ...spec, ...origin, tag, queuedAt: this.d.hal.clock.monoMs() });
    this.schedulePump();
    return { ok: true, tag, position: this.queue.length };
  }

  private refuseFull(chat: string, label: string): void {
    const batch = this.refused.get(chat);
    if (batch) {
      batch.push(label);
      return;
    }
    this.refused.set(chat, [label]);
    // After the current synchronous batch (a turn's session ops run in one go).
    void Promise.resolve().then(() => {
      const labels = this.refused.get(chat) ?? [label];
      this.refused.delete(chat);
      this.send(chat, queueFullText(labels), `queue-full:${randomId(this.d.random, '', 4)}`, 'device');
    });
  }

  private newTag(): string {
    for (;;) {
      const tag = randomId(this.d.random, 'j', 4);
      if (!this.live.has(tag) && !this.queue.some((p) => p.tag === tag) && !this.d.results.has(tag)) return tag;
    }
  }

  private schedulePump(): void {
    if (!this.queue.length) {
      this.pumpTimer?.cancel();
      this.pumpTimer = null;
      return;
    }
    if (this.pumpTimer) return;
    const wait = Math.max(0, this.lastDispatch + PUMP_MS - this.d.hal.clock.monoMs());
    this.pumpTimer = this.d.hal.clock.setTimeout(() => {
      this.pumpTimer = null;
      this.cycle();
    }, wait);
  }

  /** One pump cycle: at most one dispatch. */
  private cycle(): void {
    if (!this.queue.length) return;
    const { clock, system } = this.d.hal;
    const full = this.live.size >= IN_FLIGHT || this.d.journal.free() === null;
    const lowHeap = !full && system.heap().freeInternal < DISPATCH_HEAP_FLOOR;
    if (lowHeap) {
      this.deferrals++;
      if (!this.heapDeferred) this.d.log.warn('agents', 'dispatch deferred: free internal heap below 28 KB');
      this.heapDeferred = true;
    }
    if (full || lowHeap) {
      // Look again next cycle.
      this.pumpTimer = clock.setTimeout(() => {
        this.pumpTimer = null;
        this.cycle();
      }, PUMP_MS);
      return;
    }
    this.heapDeferred = false;
    const next = this.queue.shift()!;
    this.lastDispatch = clock.monoMs();
    void this.dispatch(next).catch((e: unknown) => this.d.log.error('agents', `dispatch of ${next.tag} failed: ${errorMessage(e)}`));
    this.schedulePump();
  }

  private async dispatch(p: PendingSpawn): Promise<void> {
    const { clock } = this.d.hal;
    const choice = this.d.choose(p);
    const job = newJob(p, choice.ok ? choice.provider : 'custom', choice.ok ? choice.model : '', clock.wallMs(), clock.monoMs());
    this.live.set(job.tag, job);
    if (!choice.ok) return this.fail(job, choice.reason, false);
    const slot = this.d.journal.free();
    if (slot === null) return this.fail(job, 'no journal slot is free', false);
    try {
      this.d.journal.write(slot, recordOf(job, 'starting'));
      job.slot = slot;
    } catch (e) {
      return this.fail(job, `the job could not be journaled (${errorMessage(e)})`, false);
    }
    const brief = this.d.brief(p);
    const notes = [...(choice.note ? [choice.note] : []), ...brief.notes].map((n) => n.replace(TRAILING_STOPS, ''));
    if (notes.length) {
      // For the model (its next turn in that chat) and the log.
      this.d.log.info('agents', `${job.tag} notes: ${notes.join('; ')}`);
      this.d.note(job.chat, `[SESSIONS] ${job.tag} [${displayName(job)}] went to ${job.provider} ${job.model} with notes: ${notes.join('; ')}.`);
    }
    this.d.trace(job.chat, 'ev:spawn', job.tag, `ev:spawn ${job.tag} [${displayName(job)}] ${job.provider} ${job.model}: ${capChars(oneLine(p.task), 200).text}`);
    const backend = this.d.backend(job.provider, choice.endpoint);
    this.backends.set(job.tag, backend);
    const cancel = { onCancel: null as (() => void) | null };
    this.cancels.set(job.tag, cancel);
    if (!backend.resumable) this.markRunning(job);
    this.d.log.info('agents', `dispatching ${job.tag} to ${job.provider} ${job.model} (${brief.text.length} characters of brief)`);
    const out = await backend.start({ tag: job.tag, model: job.model, brief: brief.text, cancel, admin: job.admin });
    this.cancels.delete(job.tag);
    if (job.state !== 'starting' && job.state !== 'running') {
      // Terminated while the call was out: a job the provider now runs is stopped there too.
      if (out.kind === 'running') void backend.cancel(out.jobId).catch(() => undefined);
      return;
    }
    if (out.kind === 'failed') return this.fail(job, out.error, out.timeout);
    if (out.kind === 'running') {
      job.jobId = out.jobId;
      this.markRunning(job);
      this.schedulePoll(job, POLL_MS);
      return;
    }
    // Synchronous: cached, and served once by a terminal poll right away.
    this.markRunning(job);
    this.cache.set(job.tag, out);
    await this.poll(job);
  }

  private markRunning(job: Job): void {
    job.state = 'running';
    if (job.slot === null) return;
    try {
      this.d.journal.write(job.slot, recordOf(job, 'running'));
    } catch (e) {
      // The job runs on; without its record a restart would lose it silently, so say so in the log.
      this.d.log.warn('agents', `journal write for ${job.tag} failed: ${errorMessage(e)}`);
    }
  }

  // --- polling ------------------------------------------------------------------

  private schedulePoll(job: Job, ms: number): void {
    this.pollTimers.get(job.tag)?.cancel();
    this.pollTimers.set(
      job.tag,
      this.d.hal.clock.setTimeout(() => {
        this.pollTimers.delete(job.tag);
        void this.poll(job).catch((e: unknown) => this.d.log.error('agents', `poll of ${job.tag} failed: ${errorMessage(e)}`));
      }, ms),
    );
  }

  private async poll(job: Job): Promise<void> {
    if (job.state !== 'running') return;
    const cached = this.cache.get(job.tag);
    if (cached) {
      this.cache.delete(job.tag);
      job.polls++;
      if (cached.kind === 'done') return this.complete(job, cached.text, cached.partial);
      return this.fail(job, cached.kind === 'failed' ? cached.error : 'no answer', cached.kind === 'failed' && cached.timeout);
    }
    const backend = this.backends.get(job.tag);
    if (!backend || !job.jobId) return this.fail(job, 'the job has no provider id to poll', false);
    const out = await backend.poll(job.jobId);
    if (job.state !== 'running') return;
    job.polls++;
    switch (out.kind) {
      case 'done':
        return this.complete(job, out.text, out.partial);
      case 'failed':
        return this.fail(job, out.error, false);
      case 'retry':
        job.failures++;
        this.d.log.warn('agents', `poll of ${job.tag} failed (${out.error}); ${job.failures} in a row`);
        if (job.failures >= POLL_FAILURES_MAX) return this.fail(job, `lost contact with the provider (${out.error})`, false);
        break;
      case 'running':
        job.failures = 0;
        break;
    }
    if (this.d.hal.clock.monoMs() - job.startedMono > JOB_MAX_MS) {
      void backend.cancel(job.jobId).catch(() => undefined);
      return this.fail(job, `it ran longer than ${JOB_MAX_MS / 3_600_000} hours and was stopped`, false);
    }
    this.schedulePoll(job, POLL_MS);
  }

  // --- endings ------------------------------------------------------------------

  private complete(job: Job, text: string, partial: boolean): void {
    if (this.d.results.has(job.tag)) {
      // A restart between storing the result and freeing the slot: it was told already.
      this.finish(job, 'done', null);
      return;
    }
    const saved = job.project ? this.d.docs().save(job.person, job.project, resultFileName(job.name, job.tag), text) : null;
    this.d.results.add({
      tag: job.tag,
      kind: partial ? 'partial' : 'result',
      name: displayName(job),
      chat: job.chat,
      person: job.person,
      provider: job.provider,
      model: job.model,
      atWall: this.d.hal.clock.wallMs(),
      saved,
      text,
    });
    this.finish(job, 'done', null);
    const where = saved === null ? '' : saved.ok ? ` Saved as ${saved.path}.` : ` It could not be saved to ${job.project}: ${saved.reason}.`;
    this.tell(job, `Job [${displayName(job)}] is done${partial ? ' (partial result)' : ''}.${where} A summary follows.`, `job:${job.tag}:done`);
    this.d.trace(job.chat, 'ev:subresult', job.tag, `ev:subresult ${job.tag} [${displayName(job)}]: ${capChars(text, EXCERPT_CHARS).text}`);
    this.d.landed(job);
  }

  private fail(job: Job, error: string, timeout: boolean): void {
    this.finish(job, 'failed', error);
    this.tell(job, `Job [${displayName(job)}] failed: ${error}`, `job:${job.tag}:failed`);
    this.d.trace(job.chat, 'ev:subresult', job.tag, `ev:subresult ${job.tag} [${displayName(job)}] failed${timeout ? ' (timeout)' : ''}: ${error}`);
  }

  /** Ends a live job: frees its slot and timers, keeps it among the recent, wakes the pump. */
  private finish(job: Job, state: 'done' | 'failed' | 'terminated' | 'expired', error: string | null): void {
    job.state = state;
    job.error = error;
    job.endedWall = this.d.hal.clock.wallMs();
    this.pollTimers.get(job.tag)?.cancel();
    this.pollTimers.delete(job.tag);
    this.backends.delete(job.tag);
    this.cache.delete(job.tag);
    if (job.slot !== null) this.d.journal.release(job.slot);
    job.slot = null;
    this.live.delete(job.tag);
    this.ended.push(job);
    while (this.ended.length > ENDED_MAX) this.ended.shift();
    this.d.log.info('agents', `${job.tag} ${state}${error ? `: ${error}` : ''}`);
    this.schedulePump();
  }

  private tell(job: JobOrigin, text: string, key: string): void {
    this.send(job.chat, text, key, 'device');
  }

  /** Sends a message to a chat and remembers it for GET /api/sessions. */
  send(chat: string, text: string, key: string, author: MessageAuthor): void {
    this.sent.push({ chat, text, atWall: this.d.hal.clock.wallMs() });
    while (this.sent.length > MESSAGES_MAX) this.sent.shift();
    try {
      this.d.messenger().send(chat, text, key, author);
    } catch (e) {
      this.d.log.warn('agents', `a message to chat ${chat} was not sent: ${errorMessage(e)}`);
    }
  }

  /**
   * Stops a queued or running job of the person (the owner may stop any).
   * Yields no result. Returns what happened.
   */
  terminate(tag: string, person: string | null): 'terminated' | 'not-found' | 'ended' {
    const qi = this.queue.findIndex((p) => p.tag === tag && visibleTo(p, person));
    if (qi >= 0) {
      const [p] = this.queue.splice(qi, 1);
      const clock = this.d.hal.clock;
      this.ended.push({ ...newJob(p!, 'custom', '', clock.wallMs(), clock.monoMs()), state: 'terminated', error: 'stopped before it started', endedWall: clock.wallMs() });
      while (this.ended.length > ENDED_MAX) this.ended.shift();
      this.schedulePump();
      return 'terminated';
    }
    const job = this.live.get(tag);
    if (!job || !visibleTo(job, person)) return this.ended.some((j) => j.tag === tag && visibleTo(j, person)) ? 'ended' : 'not-found';
    const backend = this.backends.get(tag);
    this.cancels.get(tag)?.onCancel?.();
    this.cancels.delete(tag);
    if (backend && job.jobId) {
      const id = job.jobId;
      void backend.cancel(id).catch((e: unknown) => this.d.log.warn('agents', `cancelling ${tag} at the provider failed: ${errorMessage(e)}`));
    }
    this.finish(job, 'terminated', 'stopped by terminate');
    return 'terminated';
  }

  stop(): void {
    this.pumpTimer?.cancel();
    for (const t of this.pollTimers.values()) t.cancel();
    this.pollTimers.clear();
  }
}
