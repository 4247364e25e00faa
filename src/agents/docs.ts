// The file store behind the fabric's AgentDocs port (src/files/store.ts):
// attachments are read as the spawning person sees them (another person's
// file is not found), window by window up to the attachment budget; a
// project's result is saved as the person's text file. Failures come back
// as the store's own sentences.

import type { ArtifactStore } from '../files/index.ts';
import { errorMessage } from '../util/json.ts';
import { encode } from '../util/utf8.ts';
import { ATTACH_TOTAL_BYTES } from './limits.ts';
import type { AgentDocs } from './ports.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const TRAILING_DOT = /\.$/;

function reason(e: unknown): string {
  // The store's sentences end with a period; the brief adds its own.
  return errorMessage(e).replace(TRAILING_DOT, '');
}

export function filesDocs(store: Pick<ArtifactStore, 'readText' | 'save'>): AgentDocs {
  return {
    read(person, project, name) {
      try {
        const parts: string[] = [];
        let offset: number | null = 0;
        let bytes = 0;
        // One window more than the budget is never needed: the brief cuts at the budget.
        while (offset !== null && bytes <= ATTACH_TOTAL_BYTES) {
          const w = store.readText(person, project, name, offset);
          parts.push(w.text);
          bytes += (w.next ?? w.meta.size) - offset;
          offset = w.next;
        }
        return { ok: true, text: parts.join('') };
      } catch (e) {
        return { ok: false, reason: reason(e) };
      }
    },
    save(person, project, name, text) {
      try {
        const meta = store.save(person, project, name, encode(text), { kind: 'markdown' });
        return { ok: true, path: `${meta.project}/${meta.name}` };
      } catch (e) {
        return { ok: false, reason: reason(e) };
      }
    },
  };
}
