// Global setup of both suites: a test run leaves the checkout as it found it.
// `git status --porcelain` is read before the run and again after it; a path
// the run added or changed (an untracked file in the project root, a build
// output in a source folder) fails the run, named. Outside a git checkout, or
// without git, it says so and checks nothing.
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The checkout's status lines, or null when this is not a git checkout. */
export function checkoutStatus(root = ROOT): Set<string> | null {
  try {
    const out = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return new Set(out.split('\n').filter(Boolean));
  } catch {
    return null;
  }
}

/** Status lines in after that were not in before: what a run left behind. */
export function leftBehind(before: Set<string>, after: Set<string>): string[] {
  return [...after].filter((line) => !before.has(line)).sort();
}

export default function setup(): () => void {
  const before = checkoutStatus();
  if (!before) {
    console.error('clean-checkout: not a git checkout (or no git): what the run leaves behind is not checked');
    return () => {};
  }
  return () => {
    const after = checkoutStatus();
    if (!after) return;
    const added = leftBehind(before, after);
    if (!added.length) return;
    // vitest reports an error thrown here but still exits 0: the exit code says it too.
    process.exitCode = 1;
    throw new Error(`the test run left the checkout changed (git status --porcelain), each of these should go under build/ or a temporary folder:\n${added.join('\n')}`);
  };
}
