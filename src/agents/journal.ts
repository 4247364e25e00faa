// The job journal: 6 slots in NVS (namespace 'agents', keys j0..j5), one
// job per slot, each record a JSON string carrying its own checksum.
//
// Why NVS and not the card: sub-agents must work without an SD card, the
// records are small (a few hundred bytes), and an NVS key write is atomic
// (ESP-IDF, and the simulator's write-new-then-rename), so a power cut at
// any moment leaves every slot with its old record, its new one, or
// nothing. The checksum (FNV-1a over the record's text) catches anything
// else; a slot that does not check is dropped at load and reported.
//
// A slot is written when dispatch begins (state starting), rewritten once
// the provider has the job (running, with its id), and freed when the job
// ends. At boot, running jobs of the backends that survive a reboot
// (provider A background responses, provider B sessions) are resumed;
// every other record is reported expired and freed.

import type { Store } from '../core/store.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { PROVIDERS, type ProviderId } from '../contracts/index.ts';
import { JOURNAL_SLOTS } from './limits.ts';
import type { Job } from './types.ts';

export const AGENTS_NS = 'agents';
const VERSION = 1;

/** What a slot keeps of a job. */
export interface JournalRecord {
  tag: string;
  name: string;
  project: string;
  provider: ProviderId;
  model: string;
  jobId: string | null;
  chat: string;
  person: string | null;
  admin: boolean;
  state: 'starting' | 'running';
  startedWall: number;
}

/** FNV-1a, 32 bits, over the code points of the text. */
export function checksum(text: string): string {
  let h = 0x811c9dc5;
  for (const ch of text) {
    let c = ch.codePointAt(0) ?? 0;
    // Each code point as up to three bytes, so any character changes the sum.
    for (let i = 0; i < 3; i++) {
      h = Math.imul(h ^ (c & 0xff), 16777619) >>> 0;
      c >>>= 8;
    }
  }
  return h.toString(16).padStart(8, '0');
}

function slotKey(slot: number): string {
  return `j${slot}`;
}

function encode(r: JournalRecord): string {
  const body = stringify({ v: VERSION, ...r });
  return stringify({ r: body, c: checksum(body) });
}

function decode(text: string): JournalRecord | null {
  const outer = parseJson(text);
  if (!outer.ok || !isPlainObject(outer.value)) return null;
  const { r, c } = outer.value;
  if (typeof r !== 'string' || typeof c !== 'string' || checksum(r) !== c) return null;
  const inner = parseJson(r);
  if (!inner.ok || !isPlainObject(inner.value)) return null;
  const v = inner.value;
  const str = (k: string): string | null => (typeof v[k] === 'string' ? (v[k] as string) : null);
  if (v['v'] !== VERSION) return null;
  const provider = str('provider');
  const state = str('state');
  const tag = str('tag');
  const chat = str('chat');
  if (!tag || !chat || !provider || !(PROVIDERS as readonly string[]).includes(provider)) return null;
  if (state !== 'starting' && state !== 'running') return null;
  if (typeof v['startedWall'] !== 'number') return null;
  return {
    tag,
    name: str('name') ?? '',
    project: str('project') ?? '',
    provider: provider as ProviderId,
    model: str('model') ?? '',
    jobId: str('jobId'),
    chat,
    person: str('person'),
    admin: v['admin'] === true,
    state,
    startedWall: v['startedWall'] as number,
  };
}

export function recordOf(job: Job, state: 'starting' | 'running'): JournalRecord {
  return {
    tag: job.tag,
    name: job.name,
    project: job.project,
    provider: job.provider,
    model: job.model,
    jobId: job.jobId,
    chat: job.chat,
    person: job.person,
    admin: job.admin,
    state,
    startedWall: job.startedWall,
  };
}

export class Journal {
  private used = new Set<number>();

  constructor(private readonly store: Store) {}

  /** Reads every slot; slots that do not check are freed and counted in `dropped`. */
  load(): { records: Array<{ slot: number; record: JournalRecord }>; dropped: number } {
    const records: Array<{ slot: number; record: JournalRecord }> = [];
    let dropped = 0;
    this.used.clear();
    for (let slot = 0; slot < JOURNAL_SLOTS; slot++) {
      const raw = this.store.strOrNull(slotKey(slot));
      if (raw === null) continue;
      const record = decode(raw);
      if (record) {
        records.push({ slot, record });
        this.used.add(slot);
      } else {
        dropped++;
        this.store.delete(slotKey(slot));
      }
    }
    return { records, dropped };
  }

  /** A free slot, or null when all six are taken. */
  free(): number | null {
    for (let slot = 0; slot < JOURNAL_SLOTS; slot++) if (!this.used.has(slot)) return slot;
    return null;
  }

  inUse(): number {
    return this.used.size;
  }

  /** Writes a slot; throws (HalError) when NVS refuses, and then nothing changed. */
  write(slot: number, record: JournalRecord): void {
    this.store.set(slotKey(slot), encode(record));
    this.used.add(slot);
  }

  release(slot: number): void {
    this.used.delete(slot);
    try {
      this.store.delete(slotKey(slot));
    } catch {
      // Left behind, it is reported expired (or resumed and finished) at the next boot.
    }
  }
}
