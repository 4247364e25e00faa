// How spawns and their results are named: a spawn in chat messages (its name,
// else the start of its task), the queue-full message for the spawns refused
// in one go, and the file a project's result is saved as.

import type { SpawnSpec } from '../contracts/index.ts';
import { replaceEvery } from '../util/replace.ts';
import { QUEUE_DEPTH } from './limits.ts';
import { capChars, oneLine } from './text.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const UNSAFE_NAME_CHARS = /[^A-Za-z0-9_-]+/;
const EDGE_DASHES = /^-+|-+$/;

/** How a spawn is named in messages: its name, else the start of its task. */
export function spawnLabel(spec: Pick<SpawnSpec, 'name' | 'task'>): string {
  return spec.name || `"${capChars(oneLine(spec.task), 40).text}"`;
}

/** The spec's spawn-queue-full chat message for the spawns refused in one go. */
export function queueFullText(labels: readonly string[]): string {
  return `The sub-agent queue is full (${QUEUE_DEPTH} waiting), so ${labels.join(', ')} ${labels.length === 1 ? 'was' : 'were'} not queued. The queued jobs start as running ones finish; ask again then.`;
}

/** The file a project's result is saved as: <name>-<tag>.md (name made safe; 'result' when it has none). */
export function resultFileName(name: string, tag: string): string {
  const safe = replaceEvery(replaceEvery(name, UNSAFE_NAME_CHARS, '-'), EDGE_DASHES, '').slice(0, 35) || 'result';
  return `${safe}-${tag}.md`;
}
