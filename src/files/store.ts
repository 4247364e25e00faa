// The artifact file store (spec "Artifact file", "Limits: file store,
// artifact save", Authentication 18): files under /mem/files/<project>/<name>
// on the SD card, each with its metadata (project, name, kind, size, created,
// provider file id, owner, share flag), a quota of card capacity minus
// 512 MB, and per-person visibility.
//
// Persistence: metadata first, then the data, each written to a '.part'
// file, synced, and renamed over the old one. A power cut or a pulled card
// leaves the old file or the new one, never a partial file: '.part' files
// are removed when the store next opens, and metadata without data is
// dropped then. A save keeps the original creation time and owner. The
// metadata written first holds for the old bytes as well as the new: a
// replaced download keeps its fetched mark (source) until the new bytes
// have landed, so text fetched from the web is never left unmarked.
//
// Visibility: the device owner (person null) sees every file; anyone else
// sees their own and shared ones. Another person's file is invisible
// (answered as not found, exactly as a name nobody has) and never
// overwritten: every owner has their own namespace (names.ts, homeDir), so a
// save lands among the caller's own files whatever anyone else holds, and
// neither its success nor its answer says whether the name exists elsewhere
// (docs/decisions.md, "Another person's file is not found, writes
// included"). A caller naming project/name gets their own file first, then
// a visible one of someone else's: the device owner's, then by owner id; an
// owner argument picks one owner's.
//
// An in-RAM index (built by one scan when a live card is first used, and
// again after every tier change) keeps listing and the quota cheap.
//
// This file owns the store's operations (list, stat, read, save, adopt,
// share, search, the quota); the scan and the index's keys are
// card-index.ts's, the part files part-file.ts's, the metadata and the
// store's error file-meta.ts's.

import type { Clock, SdCard } from '../hal/index.ts';
import { HalError } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import { decode, encode } from '../util/utf8.ts';
import { errorMessage, stringify } from '../util/json.ts';
import { key, order, fileKey, scanCard, type CardIndex, type Entry } from './card-index.ts';
import { FilesError, type CardView, type FileMeta } from './file-meta.ts';
import { META_DIR, checkName, checkProject, filePath, homeDir, isText, kindOf, projectDir } from './names.ts';
import { openPart, type PartWriter } from './part-file.ts';
import type { FilePeople } from './people.ts';

export type { CardState } from '../storage/index.ts';
export { FilesError, type CardView, type FileMeta, type FilesErrorCode } from './file-meta.ts';
export { WRITE_CHUNK, type PartWriter } from './part-file.ts';

export interface StoreDeps {
  sd: SdCard;
  card: CardView;
  clock: Clock;
  log: Log;
  people: () => FilePeople;
}

/** files.read returns at most this many bytes per call. */
export const READ_WINDOW = 8192;
/** files.search reads at most this much of each file. */
export const SEARCH_READ_MAX = 64 * 1024;

const WORD_SPLIT = /[\s.,;:!?()[\]{}"'`<>|/\\*#=+~^&%$@_-]+/;

/** Where a save goes: the project and name as written, the project folder, the file it replaces. */
interface Target {
  project: string;
  name: string;
  dir: string;
  existing: FileMeta | null;
}

export class ArtifactStore {
  private index: Map<string, Entry> | null = null;
  /** Project folders as written on the card, by home folder and project (case folded). */
  private projects = new Map<string, string>();
  private used = 0;
  /** STORAGE <pct> (test console): pretend this many bytes of the quota are used. */
  private simulated: number | null = null;

  constructor(private readonly deps: StoreDeps) {}

  /** The card changed tier: the next use rescans. */
  reset(): void {
    this.index = null;
    this.projects.clear();
    this.used = 0;
  }

  /** Throws the legible reason files cannot be used now (no card, unsupported card). */
  requireCard(probe = false): void {
    const tier = (probe ? this.deps.card.probe() : this.deps.card.get()).tier;
    if (tier === 'none') throw new FilesError('no-card', 'No SD card is inserted: files need a card of 1 GB or more. Insert one and try again.');
    if (tier === 'unsupported') throw new FilesError('unsupported', 'The SD card is smaller than 1 GB, which is not supported: nothing can be saved on it. Use a card of 1 GB or more.');
  }

  /** Wraps card failures into a clear error, re-probing when the card vanished. */
  private cardFailure(e: unknown, what: string): FilesError {
    if (e instanceof FilesError) return e;
    if (e instanceof HalError) {
      if (e.code === 'ENOCARD') {
        this.deps.card.probe();
        return new FilesError('card-removed', `The SD card was removed during ${what}; nothing was saved and no partial file was left.`);
      }
      if (e.code === 'ENOSPC') return new FilesError('card-full', `The SD card is full: ${what} did not fit. Free some space and try again.`);
      return new FilesError('io', `The SD card failed during ${what} (${e.code}): ${e.message}`);
    }
    return new FilesError('io', `${what} failed: ${errorMessage(e)}`);
  }

  private load(): Map<string, Entry> {
    this.requireCard();
    if (this.index) return this.index;
    let found: CardIndex;
    try {
      found = scanCard(this.deps.sd);
    } catch (e) {
      throw this.cardFailure(e, 'reading the file store');
    }
    const { index, projects, used } = found;
    this.index = index;
    this.projects = projects;
    this.used = used;
    this.deps.log.info('files', `file store: ${index.size} files, ${used} bytes`);
    return index;
  }

  /** Files and bytes in the store (0 without a usable card). */
  summary(): { count: number; bytes: number } {
    if (!this.deps.card.live()) return { count: 0, bytes: 0 };
    try {
      const index = this.load();
      return { count: index.size, bytes: this.usedBytes() };
    } catch {
      return { count: 0, bytes: 0 };
    }
  }

  /** Bytes counted against the quota (the STORAGE test override included). */
  usedBytes(): number {
    return this.simulated === null ? this.used : Math.max(this.used, this.simulated);
  }

  quota(): number {
    return this.deps.card.get().quota;
  }

  /** STORAGE <pct>: pretend pct % of the quota is used (null: off). */
  simulateUse(pct: number | null): void {
    this.simulated = pct === null ? null : Math.floor((this.quota() * pct) / 100);
  }

  private visibleTo(meta: FileMeta, person: string | null): boolean {
    if (person === null) return true;
    if (this.deps.people().roleOf(person) === 'unknown') return false;
    return meta.owner === person || meta.share;
  }

  private validate(project: unknown, name: unknown): { project: string; name: string } {
    const pe = checkProject(project);
    if (pe) throw new FilesError('bad-input', pe);
    const ne = checkName(name);
    if (ne) throw new FilesError('bad-input', ne);
    return { project: project as string, name: name as string };
  }

  /** Visible files, sorted by project, name, then owner. */
  list(person: string | null, project?: string): FileMeta[] {
    const index = this.load();
    const p = project?.toLowerCase();
    return [...index.values()]
      .map((e) => e.meta)
      .filter((m) => this.visibleTo(m, person) && (p === undefined || m.project.toLowerCase() === p))
      .sort(order)
      .map((m) => ({ ...m }));
  }

  /**
   * The entry a person means by project/name: their own, else a visible one
   * of someone else's (the device owner's, then by owner id); with owner
   * given, that owner's only (undefined: any). Another person's file that is
   * not visible is not found, in the same words as a name nobody has.
   */
  private resolve(person: string | null, project: unknown, name: unknown, owner?: string | null): Entry {
    const v = this.validate(project, name);
    const index = this.load();
    const notFound = (): FilesError => new FilesError('not-found', `No file ${v.project}/${v.name}.`);
    if (owner !== undefined) {
      const e = index.get(key(owner, v.project, v.name));
      if (!e || !this.visibleTo(e.meta, person)) throw notFound();
      return e;
    }
    for (const who of person === null ? [null] : [person, null]) {
      const e = index.get(key(who, v.project, v.name));
      if (e && this.visibleTo(e.meta, person)) return e;
    }
    const k = fileKey(v.project, v.name);
    let best: Entry | null = null;
    for (const e of index.values()) {
      if (e.meta.owner === null || e.meta.owner === person || fileKey(e.meta.project, e.meta.name) !== k || !this.visibleTo(e.meta, person)) continue;
      if (!best || order(e.meta, best.meta) < 0) best = e;
    }
    if (!best) throw notFound();
    return best;
  }

  /** One visible file's metadata; another person's file is not found (owner: pick one owner's file). */
  stat(person: string | null, project: unknown, name: unknown, owner?: string | null): FileMeta {
    return { ...this.resolve(person, project, name, owner).meta };
  }

  /** Where a file is on the card (its entry's folder; its owner's home when it is not indexed). */
  private pathOf(meta: FileMeta): string {
    const e = this.index?.get(key(meta.owner, meta.project, meta.name));
    return e ? `${e.dir}/${e.meta.name}` : filePath(meta.project, meta.name, homeDir(meta.owner));
  }

  /** Raw bytes of a visible file (the download route streams through this). */
  readBytes(meta: FileMeta, offset: number, length: number): Uint8Array {
    try {
      return this.deps.sd.read(this.pathOf(meta), offset, length);
    } catch (e) {
      throw this.cardFailure(e, 'reading the file');
    }
  }

  /** A text window of a visible text file, cut on a character boundary; next is the offset to continue from. */
  readText(person: string | null, project: unknown, name: unknown, offset = 0, owner?: string | null): { meta: FileMeta; text: string; next: number | null } {
    const meta = this.stat(person, project, name, owner);
    if (!isText(meta.name)) throw new FilesError('not-text', `${meta.project}/${meta.name} is not a text file; files.read reads .md, .txt, .csv, .json and .log files.`);
    if (!Number.isInteger(offset) || offset < 0) throw new FilesError('bad-input', 'offset must be a whole number of bytes, 0 or more');
    if (offset >= meta.size) return { meta, text: '', next: null };
    let bytes = this.readBytes(meta, offset, READ_WINDOW);
    // Never end inside a UTF-8 sequence: drop a trailing incomplete one (it starts the next window).
    let end = bytes.length;
    if (offset + end < meta.size) {
      let i = end - 1;
      while (i > 0 && end - i < 4 && (bytes[i]! & 0xc0) === 0x80) i--;
      const lead = bytes[i]!;
      const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (end - i < need) end = i;
      bytes = bytes.subarray(0, end);
    }
    const next = offset + end < meta.size ? offset + end : null;
    return { meta, text: decode(bytes), next };
  }

  /** The folder of a project in a home folder, with its actual (case-kept) name. */
  private dirFor(home: string, project: string): { project: string; dir: string } {
    const existing = this.projects.get(`${home}|${project.toLowerCase()}`) ?? project;
    return { project: existing, dir: projectDir(existing, home) };
  }

  /**
   * Checks a save of `size` bytes under project/name by person against
   * names, quota and free space; returns where it goes. A person's own file
   * of that name is replaced where it is; otherwise the file is new in the
   * person's own home folder, whatever anyone else holds.
   */
  private prepare(person: string | null, project: unknown, name: unknown, size: number): Target {
    const v = this.validate(project, name);
    const index = this.load();
    if (person !== null && this.deps.people().roleOf(person) === 'unknown') throw new FilesError('forbidden', 'This person may not save files.');
    const existing = index.get(key(person, v.project, v.name)) ?? null;
    let target: { project: string; dir: string };
    if (existing) target = { project: existing.meta.project, dir: existing.dir };
    else {
      target = this.dirFor(homeDir(person), v.project);
      // The one place two owners can meet on the card: a person's file from before per-person
      // folders, in the files root where the device owner's new file would go. Only the device
      // owner, who sees every file, can meet it, so saying whose it is reveals nothing.
      const there = [...index.values()].find((e) => e.dir.toLowerCase() === target.dir.toLowerCase() && e.meta.name.toLowerCase() === v.name.toLowerCase());
      if (there) throw new FilesError('name-taken', `The name ${v.project}/${v.name} is taken by a file of chat ${there.meta.owner ?? 'the owner'} saved before each person had their own folder; choose another name.`);
    }
    const quota = this.quota();
    const before = existing?.meta.size ?? 0;
    const after = this.usedBytes() - before + size;
    if (after > quota)
      throw new FilesError('quota', `The file store is full: ${size} bytes would bring it to ${after} of its ${quota}-byte quota. Remove files or use a larger card.`);
    const free = this.deps.card.get().freeBytes;
    if (free !== null && size > free + before) throw new FilesError('card-full', `The SD card has ${free} bytes free; ${size} bytes do not fit.`);
    return { project: target.project, name: existing ? existing.meta.name : v.name, dir: target.dir, existing: existing?.meta ?? null };
  }

  /**
   * Throws what a save of `size` bytes as project/name by person would be
   * refused for (names, the card, ownership, quota, free space), changing
   * nothing: an upload streamed to a temporary file asks before it moves in.
   */
  check(person: string | null, project: unknown, name: unknown, size: number): void {
    this.prepare(person, project, name, size);
  }

  /** A part-file writer for path (created with its folder); nothing replaces path until commit(). */
  beginPart(path: string): PartWriter {
    return openPart(this.deps.sd, path, (e) => this.cardFailure(e, 'the save'));
  }

  private writeMeta(meta: FileMeta, dir: string): void {
    const w = this.beginPart(`${dir}/${META_DIR}/${meta.name}.json`);
    w.write(encode(stringify({ kind: meta.kind, created: meta.created, providerFileId: meta.providerFileId, owner: meta.owner, share: meta.share, ...(meta.source ? { source: meta.source } : {}) })));
    w.commit();
  }

  private removeMeta(dir: string, name: string): void {
    try {
      this.deps.sd.remove(`${dir}/${META_DIR}/${name}.json`);
    } catch {
      // dropped when the store next opens
    }
  }

  /** Saves bytes as project/name for person (overwriting their own file of that name; another's is never touched). */
  save(person: string | null, project: unknown, name: unknown, bytes: Uint8Array, options: { kind?: string; providerFileId?: string | null } = {}): FileMeta {
    const t = this.prepare(person, project, name, bytes.length);
    const meta = this.metaFor(person, t, bytes.length, options);
    const interim = this.interimMeta(meta, t.existing);
    this.writeMeta(interim, t.dir);
    let w: PartWriter | null = null;
    try {
      w = this.beginPart(`${t.dir}/${t.name}`);
      w.write(bytes);
      w.commit();
    } catch (e) {
      w?.abort();
      if (!t.existing) this.removeMeta(t.dir, t.name);
      throw this.cardFailure(e, 'the save');
    }
    this.landed(this.settleMeta(meta, interim, t.dir), t);
    return { ...meta };
  }

  /**
   * The metadata written before the data: it must hold for the old bytes
   * too, since a pulled card or a power cut can leave them. So a replaced
   * download's fetched mark (source) stays until the new bytes have landed:
   * the old text, if it survives, is still screened as fetched content.
   */
  private interimMeta(meta: FileMeta, existing: FileMeta | null): FileMeta {
    return existing?.source && !meta.source ? { ...meta, source: existing.source } : meta;
  }

  /**
   * After the data landed: drops the interim mark. If that write fails the
   * new bytes keep the old mark, which only makes reading them more careful.
   */
  private settleMeta(meta: FileMeta, interim: FileMeta, dir: string): FileMeta {
    if (interim === meta) return meta;
    try {
      this.writeMeta(meta, dir);
      return meta;
    } catch (e) {
      this.deps.log.warn('files', `${meta.project}/${meta.name} saved; its metadata keeps the replaced download's mark (${errorMessage(e)})`);
      return interim;
    }
  }

  private metaFor(person: string | null, t: Target, size: number, options: { kind?: string; providerFileId?: string | null; source?: string }): FileMeta {
    return {
      project: t.project,
      name: t.name,
      kind: options.kind ?? kindOf(t.name),
      size,
      created: t.existing?.created ?? this.deps.clock.wallMs(),
      providerFileId: options.providerFileId ?? t.existing?.providerFileId ?? null,
      owner: person,
      share: t.existing?.share ?? false,
      // New bytes: the source is this save's (a download's URL), never the replaced file's.
      ...(options.source ? { source: options.source } : {}),
    };
  }

  private landed(meta: FileMeta, t: Target): void {
    const index = this.index;
    if (!index) return;
    index.set(key(meta.owner, meta.project, meta.name), { meta: { ...meta }, dir: t.dir });
    this.projects.set(`${t.dir.slice(0, t.dir.lastIndexOf('/'))}|${meta.project.toLowerCase()}`, meta.project);
    this.used += meta.size - (t.existing?.size ?? 0);
  }

  /**
   * Moves a finished file (a download or a promoted quarantine file) into the
   * store as project/name for person. The source must be on the card.
   */
  adopt(person: string | null, project: unknown, name: unknown, source: string, options: { kind?: string; source?: string } = {}): FileMeta {
    const { sd } = this.deps;
    let size: number;
    try {
      const st = sd.stat(source);
      if (!st) throw new FilesError('not-found', 'the downloaded file vanished');
      size = st.size;
    } catch (e) {
      throw this.cardFailure(e, 'storing the download');
    }
    const t = this.prepare(person, project, name, size);
    const meta = this.metaFor(person, t, size, options);
    const interim = this.interimMeta(meta, t.existing);
    this.writeMeta(interim, t.dir);
    try {
      sd.mkdir(t.dir);
      sd.rename(source, `${t.dir}/${t.name}`);
    } catch (e) {
      if (!t.existing) this.removeMeta(t.dir, t.name);
      throw this.cardFailure(e, 'storing the download');
    }
    this.landed(this.settleMeta(meta, interim, t.dir), t);
    return { ...meta };
  }

  /** Quota check for a download of unknown size so far: bytes still allowed. */
  room(): number {
    this.load();
    const free = this.deps.card.get().freeBytes;
    const byQuota = Math.max(0, this.quota() - this.usedBytes());
    return free === null ? byQuota : Math.min(byQuota, free);
  }

  /** Sets the share flag: the file's owner only (or the device owner); guests cannot share. */
  share(person: string | null, project: unknown, name: unknown, share: boolean, owner?: string | null): FileMeta {
    const e = this.resolve(person, project, name, owner);
    const meta = e.meta;
    if (person !== null && meta.owner !== person) throw new FilesError('forbidden', `Only the owner of ${meta.project}/${meta.name} can change its sharing.`);
    if (person !== null && share && this.deps.people().roleOf(person) === 'guest') throw new FilesError('forbidden', 'Guests cannot share files.');
    const next = { ...meta, share };
    try {
      this.writeMeta(next, e.dir);
    } catch (e2) {
      throw this.cardFailure(e2, 'changing the share flag');
    }
    e.meta = next;
    return { ...next };
  }

  /**
   * Text files ranked by term frequency: each query word (case folded)
   * counts its occurrences in the name and the first 64 KB of text; files
   * missing every word are left out. At most `limit` hits.
   */
  search(person: string | null, query: string, project?: string, limit = 8): Array<{ meta: FileMeta; score: number; snippet: string }> {
    const terms = [...new Set(query.toLowerCase().split(WORD_SPLIT).filter((w) => w.length > 1))];
    if (!terms.length) throw new FilesError('bad-input', 'query needs at least one word');
    const hits: Array<{ meta: FileMeta; score: number; snippet: string }> = [];
    for (const meta of this.list(person, project)) {
      if (!isText(meta.name)) continue;
      const text = decode(this.readBytes(meta, 0, SEARCH_READ_MAX));
      const lower = text.toLowerCase();
      const name = meta.name.toLowerCase();
      let score = 0;
      let first = -1;
      for (const t of terms) {
        for (let at = lower.indexOf(t); at >= 0; at = lower.indexOf(t, at + t.length)) {
          score++;
          if (first < 0 || at < first) first = at;
        }
        if (name.includes(t)) score += 2;
      }
      if (!score) continue;
      const from = Math.max(0, first - 40);
      const snippet = first < 0 ? '' : text.slice(from, from + 160).split('\n').join(' ').trim();
      hits.push({ meta, score, snippet });
    }
    hits.sort((a, b) => b.score - a.score || order(a.meta, b.meta));
    return hits.slice(0, limit);
  }
}
