// The file store's in-RAM index of the card: one scan of the files root
// (every person's home folder, and the files root's own project folders:
// the device owner's, and people's files saved before per-person folders),
// removing on the way what an interrupted save left (part files, metadata
// whose data never landed); the index's keys and the listing order.

import type { SdCard } from '../hal/index.ts';
import { isPlainObject, parseJson } from '../util/json.ts';
import { decode } from '../util/utf8.ts';
import type { FileMeta } from './file-meta.ts';
import { FILES_ROOT, META_DIR, checkName, checkProject, kindOf, personOfDir, projectDir } from './names.ts';

/** The suffix of a file being written (write-new, sync, rename). */
export const PART = '.part';

export function fileKey(project: string, name: string): string {
  return `${project.toLowerCase()}/${name.toLowerCase()}`;
}

/** One owner's file: owner '' is the device owner (chat ids are never empty). */
export function key(owner: string | null, project: string, name: string): string {
  return `${owner ?? ''}|${fileKey(project, name)}`;
}

/** Listing order: project, name, then owner (the device owner's first). */
export function order(a: FileMeta, b: FileMeta): number {
  const ka = fileKey(a.project, a.name);
  const kb = fileKey(b.project, b.name);
  if (ka !== kb) return ka < kb ? -1 : 1;
  const oa = a.owner ?? '';
  const ob = b.owner ?? '';
  return oa === ob ? 0 : oa < ob ? -1 : 1;
}

/** A file in the index: its metadata and the folder it is in on the card. */
export interface Entry {
  meta: FileMeta;
  /** The project folder's path (home folder and project as written on the card). */
  dir: string;
}

/** What a scan found: the files by key, the project folders as written, the bytes they hold. */
export interface CardIndex {
  index: Map<string, Entry>;
  /** Project folders as written on the card, by home folder and project (case folded). */
  projects: Map<string, string>;
  used: number;
}

/** Reads the files root into an index; throws the HAL's error when the card fails. */
export function scanCard(sd: SdCard): CardIndex {
  const index = new Map<string, Entry>();
  const projects = new Map<string, string>();
  let used = 0;
  // One project folder: owner is the person whose folder holds it, or undefined in the
  // files root (the device owner's, and people's files saved before per-person folders:
  // their metadata names the owner).
  const scanProject = (home: string, project: string, owner: string | null | undefined): void => {
    const dir = projectDir(project, home);
    projects.set(`${home}|${project.toLowerCase()}`, project);
    const metas = new Map<string, Record<string, unknown>>();
    const mdir = `${dir}/${META_DIR}`;
    if (sd.stat(mdir)) {
      for (const m of sd.list(mdir)) {
        if (m.isDir) continue;
        const path = `${mdir}/${m.name}`;
        if (m.name.endsWith(PART)) {
          sd.remove(path);
          continue;
        }
        const r = parseJson(decode(sd.read(path, 0, 4096)));
        if (r.ok && isPlainObject(r.value)) metas.set(m.name.slice(0, -'.json'.length).toLowerCase(), r.value);
      }
    }
    const seen = new Set<string>();
    for (const f of sd.list(dir)) {
      if (f.isDir) continue;
      const path = `${dir}/${f.name}`;
      if (f.name.endsWith(PART)) {
        sd.remove(path); // the leftover of an interrupted save
        continue;
      }
      if (checkName(f.name) !== null) continue;
      const m = metas.get(f.name.toLowerCase()) ?? {};
      seen.add(f.name.toLowerCase());
      const meta: FileMeta = {
        project,
        name: f.name,
        kind: typeof m['kind'] === 'string' ? m['kind'] : kindOf(f.name),
        size: f.size,
        created: typeof m['created'] === 'number' ? m['created'] : (sd.stat(path)?.mtimeMs ?? 0),
        providerFileId: typeof m['providerFileId'] === 'string' ? m['providerFileId'] : null,
        owner: owner !== undefined ? owner : typeof m['owner'] === 'string' ? m['owner'] : null,
        share: m['share'] === true,
        ...(typeof m['source'] === 'string' ? { source: m['source'] } : {}),
      };
      const k = key(meta.owner, project, f.name);
      const had = index.get(k);
      // An owner's file in their own folder wins over one of theirs left in the files root.
      if (had && owner === undefined) continue;
      if (had) used -= had.meta.size;
      index.set(k, { meta, dir });
      used += f.size;
    }
    // Metadata whose data never landed (a save cut between the two): drop it.
    for (const name of metas.keys()) if (!seen.has(name)) for (const m of sd.list(mdir)) if (m.name.toLowerCase() === `${name}.json`) sd.remove(`${mdir}/${m.name}`);
  };
  if (sd.stat(FILES_ROOT)) {
    for (const p of sd.list(FILES_ROOT)) {
      if (!p.isDir) continue;
      const person = personOfDir(p.name);
      if (person !== null) {
        const home = `${FILES_ROOT}/${p.name}`;
        for (const q of sd.list(home)) if (q.isDir && checkProject(q.name) === null) scanProject(home, q.name, person);
      } else if (checkProject(p.name) === null) scanProject(FILES_ROOT, p.name, undefined);
    }
  }
  return { index, projects, used };
}
