// Replacing every match of a module-level regular expression. The device
// preloads the firmware module, which freezes the RegExp objects its top level
// made: a global replace (the g flag) writes their lastIndex and throws there
// ("xsSet lastIndex: not writable"), while the simulator, which does not
// preload, runs on. split() works on its own copy of the expression, so
// splitting on a frozen expression without the g flag and joining with the
// replacement replaces every match and writes nothing. For expressions with no
// capture groups that never match the empty string (what split would put in
// the result, or split between characters). The lint rule
// desk/no-module-global-regexp (eslint.config.js) keeps the g and y flags off
// module-level expressions.

/** s with every match of re (no g flag, no capture groups) replaced by replacement, taken literally. */
export function replaceEvery(s: string, re: RegExp, replacement: string): string {
  return s.split(re).join(replacement);
}

/**
 * s with every match of re (no g flag, `groups` capture groups) replaced by
 * what build makes of its captures: split() puts a match's captures, in order,
 * between the texts around it (undefined for a group that took no part).
 */
export function replaceMatches(s: string, re: RegExp, groups: number, build: (captures: ReadonlyArray<string | undefined>) => string): string {
  const parts = s.split(re);
  let out = parts[0] ?? '';
  for (let i = 1; i < parts.length; i += groups + 1) out += build(parts.slice(i, i + groups)) + (parts[i + groups] ?? '');
  return out;
}

/** s with every match of re (no g flag, one capture group around the whole match) replaced by what fn makes of it. */
export function replaceEachMatch(s: string, re: RegExp, fn: (match: string) => string): string {
  return replaceMatches(s, re, 1, (c) => fn(c[0] ?? ''));
}
