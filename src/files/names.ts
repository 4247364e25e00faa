// Artifact file names: what a project and a file name may be, the kind a
// name's extension gives, and the card paths of the store. One place, so the
// tools, the routes and downloads judge a name alike.
//
// A project is 1-24 bytes of letters, digits, '-' and '_' (the spec's
// session_ops project cap); a name is 1-48 bytes of letters, digits, '-',
// '_', '.' and spaces with an extension, so '<project>/<name>' fits the
// spec's 73-byte attach ref. FAT folds case, so two names that differ only
// in case are one file: lookups compare without case.
//
// Where a file lives depends on its owner (docs/decisions.md, "Another
// person's file is not found, writes included"): the device owner's under
// /mem/files/<project>/<name> (the spec's path), a person's under their own
// folder /mem/files/@<person>/<project>/<name>, so two people's files of one
// name never meet. '@' is not a project character, so the two never mix.

import { decode, encode } from '../util/utf8.ts';

export const FILES_ROOT = '/mem/files';
export const PROJECT_MAX = 24;
export const NAME_MAX = 48;
/** Where metadata lives inside a project folder (hidden from listings). */
export const META_DIR = '.meta';

/** Text extensions artifact.save writes (spec: .md .txt .csv .json). */
export const SAVE_EXTENSIONS = ['md', 'txt', 'csv', 'json'] as const;
/** Text extensions files.read and files.search read (.log too). */
export const TEXT_EXTENSIONS = ['md', 'txt', 'csv', 'json', 'log'] as const;

const PROJECT_RE = /^[A-Za-z0-9_-]{1,24}$/;
const NAME_RE = /^[A-Za-z0-9_-][A-Za-z0-9 ._-]{0,46}[A-Za-z0-9_-]$|^[A-Za-z0-9_-]$/;
const EXT_RE = /\.([A-Za-z0-9]{1,8})$/;
const SAFE_CHAR = /[A-Za-z0-9._-]/;
const LEADING_DOTS = /^[._]+/;

const KINDS: Record<string, string> = {
  md: 'markdown',
  txt: 'text',
  csv: 'csv',
  json: 'json',
  log: 'log',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  pdf: 'pdf',
  wav: 'audio',
  mp3: 'audio',
};

export function extensionOf(name: string): string {
  const m = EXT_RE.exec(name);
  return m ? m[1]!.toLowerCase() : '';
}

export function kindOf(name: string): string {
  return KINDS[extensionOf(name)] ?? 'binary';
}

export function isText(name: string): boolean {
  return (TEXT_EXTENSIONS as readonly string[]).includes(extensionOf(name));
}

/** null when fine, else why not. */
export function checkProject(project: unknown): string | null {
  if (typeof project !== 'string' || !PROJECT_RE.test(project)) return `project must be 1-${PROJECT_MAX} letters, digits, '-' or '_'`;
  return null;
}

/** null when fine, else why not. Any extension passes here; callers narrow it. */
export function checkName(name: unknown): string | null {
  if (typeof name !== 'string' || name.length > NAME_MAX || !NAME_RE.test(name) || name.includes('..'))
    return `name must be 1-${NAME_MAX} letters, digits, spaces, '.', '-' or '_', starting and ending with a letter, digit, '-' or '_'`;
  if (!extensionOf(name)) return 'name needs an extension, e.g. notes.md';
  return null;
}

/** A person's folder name starts with this (never a project's first character). */
export const PERSON_MARK = '@';
const PERSON_SAFE = /^[A-Za-z0-9_-]$/;
const PERSON_DIR = /^@(?:[A-Za-z0-9_-]|~[0-9a-f]{2}){1,64}$/;

/**
 * The folder holding one owner's projects: the files root for the device
 * owner (null), /mem/files/@<person> for a person, the person's id kept
 * where FAT takes the character and written ~xx (hex) where it does not.
 */
export function homeDir(owner: string | null): string {
  if (owner === null) return FILES_ROOT;
  let out = '';
  for (const ch of owner) {
    if (PERSON_SAFE.test(ch)) out += ch;
    else for (const b of encode(ch)) out += `~${b < 16 ? '0' : ''}${b.toString(16)}`;
  }
  return `${FILES_ROOT}/${PERSON_MARK}${out}`;
}

/** The person a folder of the files root belongs to, or null when it is not a person's folder. */
export function personOfDir(name: string): string | null {
  if (!PERSON_DIR.test(name)) return null;
  const bytes: number[] = [];
  for (let i = 1; i < name.length; i++) {
    if (name[i] === '~') {
      bytes.push(parseInt(name.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(name.charCodeAt(i));
  }
  return decode(new Uint8Array(bytes));
}

export function projectDir(project: string, home: string = FILES_ROOT): string {
  return `${home}/${project}`;
}

export function filePath(project: string, name: string, home: string = FILES_ROOT): string {
  return `${home}/${project}/${name}`;
}


/** A safe file name from the last segment of a URL path ('' when none can be made). */
export function nameFromUrl(path: string): string {
  const last = path.split('?')[0]!.split('#')[0]!.split('/').filter((s) => s !== '').pop() ?? '';
  let decoded = last;
  try {
    decoded = decodeURIComponent(last);
  } catch {
    // keep the raw segment
  }
  const out: string[] = [];
  for (const ch of decoded) out.push(SAFE_CHAR.test(ch) ? ch : '_');
  let name = out.join('').replace(LEADING_DOTS, '').slice(-NAME_MAX);
  if (name && !extensionOf(name)) name = `${name.slice(0, NAME_MAX - 4)}.bin`;
  return checkName(name) === null ? name : '';
}
