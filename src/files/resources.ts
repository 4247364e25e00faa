// The caller's text artifacts as MCP resources (served by /mcp; the
// provider contract is src/contracts/mcp-sources.ts): artifact://<project>/<name> for every text file
// (.md .txt .csv .json .log) the caller may read. Visibility is the store's
// own (ArtifactStore.list and readText with the caller's person, as
// files.list and files.read use them): the /mcp token holder is the owner,
// who sees every file; another person sees theirs and shared ones, and a
// file they may not see does not exist. A downloaded file's text goes
// through the same injection screen files.read applies.
//
// A read returns the text from the start, at most TEXT_MAX bytes, in the
// store's read windows; a longer file ends with a line saying where
// files.read continues. Without a usable card the list is empty and a read
// says why.

import { ResourceError, type ResourceInfo, type ResourceProvider, type ResourceRead } from '../contracts/index.ts';
import type { ToolCaller } from '../core/tools/types.ts';
import { errorMessage } from '../util/json.ts';
import { utf8Length } from '../util/utf8.ts';
import type { Files } from './files.ts';
import { extensionOf, isText } from './names.ts';
import type { FileMeta } from './store.ts';

/** Most bytes of text one read returns. */
export const TEXT_MAX = 32 * 1024;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const ARTIFACT_URI = /^artifact:\/\/([^/]+)\/([^/]+)$/;

const MIME: Record<string, string> = { md: 'text/markdown', txt: 'text/plain', log: 'text/plain', csv: 'text/csv', json: 'application/json' };

export function artifactUri(m: Pick<FileMeta, 'project' | 'name'>): string {
  return `artifact://${encodeURIComponent(m.project)}/${encodeURIComponent(m.name)}`;
}

function mimeOf(name: string): string {
  return MIME[extensionOf(name)] ?? 'text/plain';
}

export function fileResources(files: Files): ResourceProvider {
  const store = files.store;
  return {
    scheme: 'artifact',
    list(caller: ToolCaller): ResourceInfo[] {
      let metas: FileMeta[];
      try {
        metas = store.list(caller.person);
      } catch {
        return []; // no usable card: nothing to read (a read says why)
      }
      return metas
        .filter((m) => isText(m.name))
        .map((m) => ({
          uri: artifactUri(m),
          name: `${m.project}/${m.name}`,
          title: m.name,
          description: `A ${m.kind} file in project ${m.project}${m.owner ? `, owned by ${m.owner}` : ''}${m.share ? ', shared' : ''}${m.source ? ', downloaded' : ''}.`,
          mimeType: mimeOf(m.name),
          size: m.size,
        }));
    },
    templates: () => [
      { uriTemplate: 'artifact://{project}/{name}', name: 'artifact', title: 'Saved text file', description: 'A text file of the device\'s file store (files.read reads it in windows).' },
    ],
    read(uri: string, caller: ToolCaller): ResourceRead {
      const m = ARTIFACT_URI.exec(uri);
      let project = '';
      let name = '';
      try {
        project = decodeURIComponent(m?.[1] ?? '');
        name = decodeURIComponent(m?.[2] ?? '');
      } catch {
        // an undecodable name is no file
      }
      if (!m || !project || !name) throw new ResourceError(`No file resource ${uri.slice(0, 120)}: artifact://<project>/<name>.`);
      try {
        const parts: string[] = [];
        let bytes = 0;
        let offset: number | null = 0;
        let meta: FileMeta | null = null;
        while (offset !== null && bytes < TEXT_MAX) {
          const r = store.readText(caller.person, project, name, offset);
          meta = r.meta;
          parts.push(r.text);
          bytes += utf8Length(r.text);
          offset = r.next;
        }
        let text = parts.join('');
        // Downloaded text is fetched content: the injection screen (owner opt-in) sees it, as in files.read.
        if (meta?.source) text = files.screenFetched(text, caller);
        if (offset !== null && meta) text += `\n[cut at ${offset} of ${meta.size} bytes: files.read continues from offset ${offset}]`;
        return { contents: [{ uri, mimeType: mimeOf(name), text }], ttlMs: 0 };
      } catch (e) {
        throw new ResourceError(errorMessage(e));
      }
    },
  };
}
