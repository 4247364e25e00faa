// The prompt's documentation of the turn fields, generated from contract.ts:
// one line per field, children indented under their parent, in contract
// order. Deterministic (same contract, same text) and compact, since it is
// sent with every turn. Retired fields are not documented.

import type { Field } from '../contracts/index.ts';
import { TURN, onWire } from '../contracts/index.ts';
import { stringify } from '../util/json.ts';

const HEADER =
  'Answer with one JSON object, the turn. Every key below must be present; use null for a value you do not set ' +
  '(reply, memory and ask are always strings). Limits are UTF-8 bytes; longer text is cut. Fields:';

function bytes(n: number | undefined): string {
  return n === undefined ? '' : ` max ${n} bytes`;
}

function summary(f: Field): string {
  switch (f.type) {
    case 'string': {
      let t = f.enum ? f.enum.join('|') : 'string' + bytes(f.capBytes);
      if (f.default !== undefined) t += `, default ${stringify(f.default)}`;
      if (f.required) t += ', required';
      return t;
    }
    case 'number':
    case 'integer': {
      let t = f.type;
      if (f.min !== undefined && f.max !== undefined) t += ` ${f.min} to ${f.max}`;
      if (f.default !== undefined) t += `, default ${f.default}`;
      return t;
    }
    case 'boolean':
      return 'true|false' + (f.default !== undefined ? `, default ${f.default}` : '');
    case 'array': {
      const n = f.maxItems !== undefined ? `at most ${f.maxItems} ` : '';
      if (f.items.type === 'object') return `list of ${n}objects`;
      if (f.items.type === 'string' && !f.items.enum) {
        return `list of ${n}strings` + (f.items.capBytes !== undefined ? `, each${bytes(f.items.capBytes)}` : '');
      }
      return `list of ${n}${summary(f.items)} values`;
    }
    case 'object':
      return 'object';
  }
}

function lines(name: string, f: Field, depth: number, out: string[]): void {
  if (!onWire(f)) return;
  out.push(`${'  '.repeat(depth)}${name}: ${summary(f)}. ${f.doc}`);
  const obj = f.type === 'object' ? f : f.type === 'array' && f.items.type === 'object' ? f.items : null;
  if (obj === null) return;
  if (f.type === 'array') out.push(`${'  '.repeat(depth + 1)}each: ${obj.doc}`);
  for (const [sub, sf] of Object.entries(obj.fields)) lines(sub, sf, depth + 1, out);
}

function build(): string {
  const out = [HEADER];
  for (const [name, f] of Object.entries(TURN.fields)) lines(name, f, 0, out);
  return out.join('\n');
}

/** Built when the module loads: on the device that is the preload, so the text is in flash. */
const DOC = build();

/** The field documentation block for the prompt. */
export function turnPromptDoc(): string {
  return DOC;
}
