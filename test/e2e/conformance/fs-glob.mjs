// node:fs with the globSync of Node 22 (what the conformance suite imports),
// for Node 20: the patterns the suite uses (`**/checks.json` under a cwd)
// and the usual glob syntax around them: `**` for any depth of folders, `*`
// and `?` within one name, `{a,b}` alternatives. Paths are relative to cwd,
// with the platform's separator, as Node's answers them.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

function toRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      // '**/' matches zero or more folders; a trailing '**' anything.
      const slash = pattern[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const end = pattern.indexOf('}', i);
      re += `(?:${pattern.slice(i + 1, end).split(',').map((a) => a.replace(/[.+^$()|[\]\\]/g, '\\$&')).join('|')})`;
      i = end;
    } else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd === undefined ? process.cwd() : String(options.cwd);
  const patterns = (Array.isArray(pattern) ? pattern : [pattern]).map((p) => toRegExp(p.split(path.sep).join('/')));
  let entries;
  try {
    entries = fs.readdirSync(cwd, { recursive: true });
  } catch {
    return [];
  }
  return entries.map(String).filter((rel) => patterns.some((re) => re.test(rel.split(path.sep).join('/'))));
}
