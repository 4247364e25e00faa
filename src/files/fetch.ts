// files.fetch: background downloads into the file store under the owner's
// url policy (spec "Tool server: files.fetch", "Approval-gated objects:
// Download link"):
//
//   off    every download is refused;
//   ask    the download waits for the owner's approval (chat /fetch approve
//          <id>, or the web page's Safety > Downloads), then runs;
//   scan   the download lands in quarantine (/mem/quarantine) and is moved
//          into the store only on a SAFE verdict (src/files/scan.ts);
//   trust  the download goes straight into the store.
//
// Default 'ask'. Pending approvals persist in NVS (files/pend, at most 8,
// oldest dropped); running and finished jobs live in RAM (the last 8). A
// download is written to a part file on the card and renamed into place
// only when complete, so a failure (a pulled card, a cut connection, the
// quota) leaves nothing behind. The owner hears about each outcome through
// the outbox. Plain http is allowed (the owner chose the policy); redirects
// are followed up to 3 times.

import type { Store } from '../core/store.ts';
import type { Clock, SdCard } from '../hal/index.ts';
import { HalError } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { HttpClient } from '../net/http/client.ts';
import { parseUrl } from '../net/url.ts';
import { randomId, type RandomFill } from '../util/ids.ts';
import { errorMessage, isPlainObject, parseJson, stringify } from '../util/json.ts';
import { checkName, checkProject, nameFromUrl } from './names.ts';
import { StaticScanner, type Scanner, type Verdict } from './scan.ts';
import { FilesError, type ArtifactStore, type PartWriter } from './store.ts';

export const URL_POLICIES = ['off', 'ask', 'scan', 'trust'] as const;
export type UrlPolicy = (typeof URL_POLICIES)[number];
export const DEFAULT_POLICY: UrlPolicy = 'ask';
export const PENDING_MAX = 8;
export const JOBS_KEPT = 8;
export const URL_MAX = 1024;
/** Largest single download (also bounded by the quota and the card's free space). */
export const DOWNLOAD_MAX = 32 * 1024 * 1024;
export const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_PROJECT = 'downloads';
const REDIRECTS = 3;
const QUARANTINE = '/mem/quarantine';
/** Where finished-but-unfiled bytes wait (downloads, generated images); cleared at every start and card change. */
export const INCOMING = '/mem/incoming';

export interface PendingFetch {
  id: string;
  url: string;
  project: string;
  name: string;
  person: string | null;
  created: number;
}

export type JobState = 'downloading' | 'scanning' | 'done' | 'failed' | 'rejected';

export interface FetchJob {
  id: string;
  url: string;
  project: string;
  name: string;
  person: string | null;
  policy: UrlPolicy;
  state: JobState;
  bytes: number;
  message: string;
  verdict: Verdict | null;
}

export type FetchOutcome = { ok: true; status: 'started' | 'pending'; id: string; message: string } | { ok: false; code: string; message: string };

export interface DownloadDeps {
  store: ArtifactStore;
  sd: SdCard;
  client: HttpClient;
  clock: Clock;
  log: Log;
  nvs: Store;
  random: RandomFill;
  notify: (key: string, text: string) => void;
}

export class Downloads {
  private jobList: FetchJob[] = [];
  private scanner: Scanner;
  private running = new Map<string, Promise<void>>();

  constructor(private readonly deps: DownloadDeps) {
    this.scanner = new StaticScanner(deps.sd);
  }

  policy(): UrlPolicy {
    const p = this.deps.nvs.str('urlPolicy', DEFAULT_POLICY);
    return (URL_POLICIES as readonly string[]).includes(p) ? (p as UrlPolicy) : DEFAULT_POLICY;
  }

  /** The owner's choice (web page only: no tool or device action sets it). */
  setPolicy(value: string): boolean {
    const v = value.trim().toLowerCase() === 'full' ? 'trust' : value.trim().toLowerCase();
    if (!(URL_POLICIES as readonly string[]).includes(v)) return false;
    this.deps.nvs.set('urlPolicy', v);
    return true;
  }

  /** Replaces the built-in static scanner (scan policy). */
  setScanner(scanner: Scanner): void {
    this.scanner = scanner;
  }

  pending(): PendingFetch[] {
    const r = parseJson(this.deps.nvs.str('pend', '[]'));
    if (!r.ok || !Array.isArray(r.value)) return [];
    return r.value.filter((p): p is PendingFetch => isPlainObject(p) && typeof p['id'] === 'string' && typeof p['url'] === 'string');
  }

  private savePending(list: PendingFetch[]): void {
    this.deps.nvs.set('pend', stringify(list.slice(-PENDING_MAX)));
  }

  jobs(): FetchJob[] {
    return this.jobList.map((j) => ({ ...j }));
  }

  job(id: string): FetchJob | null {
    const j = this.jobList.find((x) => x.id === id);
    return j ? { ...j } : null;
  }

  /** Resolves when the job's download (and scan) has finished. */
  settled(id: string): Promise<void> {
    return this.running.get(id) ?? Promise.resolve();
  }

  /** files.fetch: checks the request, then starts, queues for approval, or refuses. */
  request(person: string | null, url: unknown, project?: unknown, name?: unknown): FetchOutcome {
    if (typeof url !== 'string' || !url.trim()) return { ok: false, code: 'bad-input', message: 'url is required' };
    const u = url.trim();
    if (u.length > URL_MAX) return { ok: false, code: 'bad-input', message: `url may be at most ${URL_MAX} characters` };
    const parsed = parseUrl(u);
    if (!parsed.ok) return { ok: false, code: 'bad-input', message: `url: ${parsed.error}` };
    const proj = project === undefined || project === null || project === '' ? DEFAULT_PROJECT : project;
    const pe = checkProject(proj);
    if (pe) return { ok: false, code: 'bad-input', message: pe };
    const nm = name === undefined || name === null || name === '' ? nameFromUrl(parsed.url.target) : name;
    if (nm === '') return { ok: false, code: 'bad-input', message: 'no file name can be made from the url; give a name' };
    const ne = checkName(nm);
    if (ne) return { ok: false, code: 'bad-input', message: ne };
    try {
      // Probe: a download is long-lived, so a card pulled since the last probe must say so now.
      this.deps.store.requireCard(true);
    } catch (e) {
      return { ok: false, code: (e as FilesError).code, message: (e as FilesError).message };
    }
    const policy = this.policy();
    if (policy === 'off') return { ok: false, code: 'refused', message: 'Downloads are switched off by the owner (url policy off).' };
    const id = randomId(this.deps.random, 'f', 3);
    const item: PendingFetch = { id, url: u, project: proj as string, name: nm as string, person, created: this.deps.clock.wallMs() };
    if (policy === 'ask') {
      this.savePending([...this.pending(), item]);
      this.deps.notify(`fetch-ask:${id}`, `A download waits for your approval: ${u} (to ${item.project}/${item.name}). Reply /fetch approve ${id} or use the web page's Safety > Downloads.`);
      return { ok: true, status: 'pending', id, message: `The download waits for the owner's approval (id ${id}); it runs in the background once approved.` };
    }
    this.start(item, policy);
    return { ok: true, status: 'started', id, message: `Downloading in the background (id ${id}) to ${item.project}/${item.name}${policy === 'scan' ? '; it is kept only if the scan finds it safe' : ''}.` };
  }

  /** The owner approves a pending download (chat /fetch approve <id>, the web page). */
  approve(id: string): FetchOutcome {
    const list = this.pending();
    const item = list.find((p) => p.id === id.trim());
    if (!item) return { ok: false, code: 'not-found', message: `No download waits with id ${id}.` };
    this.savePending(list.filter((p) => p !== item));
    const policy = this.policy();
    if (policy === 'off') return { ok: false, code: 'refused', message: 'Downloads are switched off (url policy off); the request was dropped.' };
    // Approval stands in for 'ask'; the scan policy still scans.
    this.start(item, policy === 'scan' ? 'scan' : 'trust');
    return { ok: true, status: 'started', id, message: `Approved: downloading ${item.url} to ${item.project}/${item.name}.` };
  }

  deny(id: string): FetchOutcome {
    const list = this.pending();
    const item = list.find((p) => p.id === id.trim());
    if (!item) return { ok: false, code: 'not-found', message: `No download waits with id ${id}.` };
    this.savePending(list.filter((p) => p !== item));
    return { ok: true, status: 'pending', id, message: `Denied: ${item.url} will not be downloaded.` };
  }

  private start(item: PendingFetch, policy: UrlPolicy): void {
    const job: FetchJob = { ...item, policy, state: 'downloading', bytes: 0, message: 'downloading', verdict: null };
    this.jobList.push(job);
    while (this.jobList.length > JOBS_KEPT) this.jobList.shift();
    const run = this.run(job)
      .catch((e: unknown) => this.finish(job, 'failed', e instanceof FilesError ? e.message : `The download failed: ${errorMessage(e)}`))
      .finally(() => this.running.delete(job.id));
    this.running.set(job.id, run);
  }

  private finish(job: FetchJob, state: JobState, message: string): void {
    job.state = state;
    job.message = message;
    this.deps.log.info('files', `fetch ${job.id}: ${state}: ${message}`);
    this.deps.notify(`fetch:${job.id}`, message);
  }

  private async run(job: FetchJob): Promise<void> {
    const { store, sd } = this.deps;
    const room = Math.min(DOWNLOAD_MAX, store.room());
    const path = `${job.policy === 'scan' ? QUARANTINE : INCOMING}/${job.id}`;
    const writer = store.beginPart(path);
    const outcome = await this.download(job, writer, room);
    if (outcome) {
      writer.abort();
      return this.finish(job, 'failed', outcome);
    }
    writer.commit();
    if (job.policy === 'scan') {
      job.state = 'scanning';
      let verdict: Verdict;
      try {
        verdict = await this.scanner.scan({ path, name: job.name, size: job.bytes });
      } catch (e) {
        verdict = { verdict: 'UNKNOWN', reason: `the scan failed: ${errorMessage(e)}` };
      }
      job.verdict = verdict;
      if (verdict.verdict !== 'SAFE') {
        removeQuietly(sd, path);
        return this.finish(job, 'rejected', `The download of ${job.url} was not kept: the scan said ${verdict.verdict} (${verdict.reason}).`);
      }
    }
    try {
      const meta = store.adopt(job.person, job.project, job.name, path, { source: job.url });
      this.finish(job, 'done', `Downloaded ${job.url} to ${meta.project}/${meta.name} (${meta.size} bytes)${job.verdict ? `; the scan said SAFE (${job.verdict.reason})` : ''}.`);
    } catch (e) {
      removeQuietly(sd, path);
      throw e;
    }
  }

  /** Streams the body into writer; returns null on success, else why it failed. */
  private async download(job: FetchJob, writer: PartWriter, room: number): Promise<string | null> {
    let url = job.url;
    for (let hop = 0; hop <= REDIRECTS; hop++) {
      let why: string | null = null;
      let location: string | null = null;
      const r = await this.deps.client.request({
        method: 'GET',
        url,
        timeoutMs: DOWNLOAD_TIMEOUT_MS,
        onHead: (status, headers) => {
          if (status >= 300 && status < 400 && headers.get('location')) {
            location = headers.get('location')!;
            return false;
          }
          if (status !== 200) {
            why = `The server answered ${status} for ${url}.`;
            return false;
          }
          const len = Number(headers.get('content-length') ?? NaN);
          if (Number.isFinite(len) && len > room) {
            why = `The file (${len} bytes) does not fit: ${room} bytes are left in the file store.`;
            return false;
          }
          return true;
        },
        onBody: (chunk) => {
          if (job.bytes + chunk.length > room) {
            why = `The download outgrew the room left (${room} bytes) and was stopped.`;
            return false;
          }
          try {
            writer.write(chunk);
          } catch (e) {
            why = e instanceof FilesError ? e.message : e instanceof HalError ? `The SD card failed: ${e.message}` : errorMessage(e);
            return false;
          }
          job.bytes += chunk.length;
          return true;
        },
      });
      if (why) return why;
      if (location) {
        url = resolveLocation(url, location);
        continue;
      }
      if (!r.ok) return `The download of ${job.url} failed (${r.error}): ${r.message}`;
      return null;
    }
    return `Too many redirects for ${job.url}.`;
  }
}

function removeQuietly(sd: SdCard, path: string): void {
  try {
    sd.remove(path);
  } catch {
    // a pulled card: leftovers under /mem/incoming and /mem/quarantine are cleared at the next start
  }
}

/** Resolves a Location header against the URL it came from. */
function resolveLocation(from: string, location: string): string {
  if (location.startsWith('http://') || location.startsWith('https://')) return location;
  const p = parseUrl(from);
  if (!p.ok) return location;
  const origin = `${p.url.scheme}://${p.url.authority}`;
  if (location.startsWith('/')) return origin + location;
  const dir = p.url.target.split('?')[0]!.replace(LAST_SEGMENT, '/');
  return origin + dir + location;
}

const LAST_SEGMENT = /\/[^/]*$/;

/** Clears the download folders (leftovers of a reset or a pulled card). */
export function clearIncoming(sd: SdCard): void {
  for (const dir of [QUARANTINE, INCOMING]) {
    try {
      if (!sd.stat(dir)) continue;
      for (const e of sd.list(dir)) if (!e.isDir) sd.remove(`${dir}/${e.name}`);
    } catch {
      // no card
    }
  }
}
