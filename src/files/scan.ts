// The download scanner behind the 'scan' url policy: a downloaded file waits
// in quarantine and is promoted into the file store only on a SAFE verdict.
//
// The built-in scanner is static (the device runs no antivirus engine): it
// reads the file and says SAFE only when the bytes are what the name claims
// and carry no active content. Executables, scripts and archives (which can
// hide either) are UNSAFE; a type it cannot judge is UNKNOWN, which is not
// promoted either. Another scanner (a provider's moderation, a remote
// service) can replace it with Downloads.setScanner().

import type { SdCard } from '../hal/index.ts';
import { decode } from '../util/utf8.ts';
import { parseJson } from '../util/json.ts';
import { extensionOf, isText } from './names.ts';

export type Verdict = { verdict: 'SAFE'; reason: string } | { verdict: 'UNSAFE' | 'UNKNOWN'; reason: string };

export interface Scanner {
  scan(file: { path: string; name: string; size: number }): Verdict | Promise<Verdict>;
}

/** Text is read whole up to this size; larger text files are UNKNOWN. */
export const SCAN_TEXT_MAX = 256 * 1024;

const ACTIVE_TEXT = /<\s*(script|iframe|object|embed)\b|javascript:|<\?php/i;

function starts(b: Uint8Array, ...sig: number[]): boolean {
  if (b.length < sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (b[i] !== sig[i]) return false;
  return true;
}

function executable(b: Uint8Array): string | null {
  if (starts(b, 0x4d, 0x5a)) return 'a Windows executable';
  if (starts(b, 0x7f, 0x45, 0x4c, 0x46)) return 'an ELF executable';
  if (starts(b, 0xfe, 0xed, 0xfa, 0xce) || starts(b, 0xfe, 0xed, 0xfa, 0xcf) || starts(b, 0xcf, 0xfa, 0xed, 0xfe) || starts(b, 0xca, 0xfe, 0xba, 0xbe)) return 'a Mac executable';
  if (starts(b, 0x23, 0x21)) return 'a script';
  if (starts(b, 0x50, 0x4b, 0x03, 0x04)) return 'an archive';
  if (starts(b, 0x1f, 0x8b) || starts(b, 0x52, 0x61, 0x72, 0x21) || starts(b, 0x37, 0x7a, 0xbc, 0xaf)) return 'an archive';
  return null;
}

/** Valid UTF-8 without NUL or other control characters but tab, CR and LF. */
function plainText(b: Uint8Array): boolean {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      if (c < 0x20 && c !== 9 && c !== 10 && c !== 13) return false;
      if (c === 0x7f) return false;
      i++;
      continue;
    }
    const n = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
    if (n < 0 || i + n >= b.length) return false;
    for (let k = 1; k <= n; k++) if (((b[i + k] ?? 0) & 0xc0) !== 0x80) return false;
    i += n + 1;
  }
  return true;
}

const MAGIC: Record<string, (b: Uint8Array) => boolean> = {
  png: (b) => starts(b, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
  jpg: (b) => starts(b, 0xff, 0xd8, 0xff),
  jpeg: (b) => starts(b, 0xff, 0xd8, 0xff),
  gif: (b) => starts(b, 0x47, 0x49, 0x46, 0x38),
  webp: (b) => starts(b, 0x52, 0x49, 0x46, 0x46) && b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50,
  wav: (b) => starts(b, 0x52, 0x49, 0x46, 0x46) && b[8] === 0x57 && b[9] === 0x41 && b[10] === 0x56 && b[11] === 0x45,
  mp3: (b) => starts(b, 0x49, 0x44, 0x33) || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0),
};

export class StaticScanner implements Scanner {
  constructor(private readonly sd: SdCard) {}

  scan(file: { path: string; name: string; size: number }): Verdict {
    const head = this.sd.read(file.path, 0, 512);
    const exe = executable(head);
    if (exe) return { verdict: 'UNSAFE', reason: `the file is ${exe}` };
    const ext = extensionOf(file.name);
    if (isText(file.name)) {
      if (file.size > SCAN_TEXT_MAX) return { verdict: 'UNKNOWN', reason: `text files over ${SCAN_TEXT_MAX} bytes are not scanned` };
      const bytes = this.sd.read(file.path, 0, file.size);
      if (!plainText(bytes)) return { verdict: 'UNSAFE', reason: 'the file is not plain UTF-8 text' };
      const text = decode(bytes);
      if (ACTIVE_TEXT.test(text)) return { verdict: 'UNSAFE', reason: 'the text carries script or active content' };
      if (ext === 'json' && !parseJson(text).ok) return { verdict: 'UNSAFE', reason: 'the file is not valid JSON' };
      return { verdict: 'SAFE', reason: 'plain text' };
    }
    const magic = MAGIC[ext];
    if (!magic) return { verdict: 'UNKNOWN', reason: `.${ext} files cannot be judged on the device` };
    return magic(head) ? { verdict: 'SAFE', reason: `a well-formed .${ext} file` } : { verdict: 'UNSAFE', reason: `the content is not a .${ext} file` };
  }
}
