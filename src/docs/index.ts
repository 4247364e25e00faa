// The docs subsystem's face: docs.list, docs.search and docs.read over the
// documentation pack embedded in this firmware image (src/docs/pack.ts), and
// the pack as docs:// resources for /mcp (src/docs/resources.ts).

import type { ResourceProvider } from '../contracts/index.ts';
import type { Subsystem } from '../core/subsystem.ts';
import { fail, ok, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import { Docs, type DocsAnswer } from './docs.ts';
import { builtInPack, type DocsPack } from './pack.ts';
import { docsResources } from './resources.ts';

/** What docs needs: the pack (the one built into this image unless a test gives another). */
export interface DocsOptions {
  pack?: DocsPack;
}

/** What docs provides: the pack's reader, and its resources for /mcp (none when the image carries no pack). */
export interface DocsFace {
  docs: Docs;
  resources: ResourceProvider[];
}

function answer(a: DocsAnswer): ToolResult {
  return a.ok ? ok(a.text) : fail(a.kind, a.text);
}

function docsTools(docs: Docs): ToolSpec[] {
  return [
    {
      name: 'docs.list',
      description: 'List the device documentation: without file, the files; with file (e.g. readme, decisions), its section ids.',
      schema: {
        type: 'object',
        properties: { file: { type: 'string', minLength: 1, maxLength: 64, description: 'a file slug from the plain listing' } },
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (args) => answer(docs.list(typeof args.file === 'string' ? args.file : undefined)),
    },
    {
      name: 'docs.search',
      description: 'Search the device documentation: sections containing every keyword of query (case-insensitive), best first, with their ids.',
      schema: {
        type: 'object',
        properties: { query: { type: 'string', minLength: 1, maxLength: 200, description: 'keywords, all of which must occur' } },
        required: ['query'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (args) => answer(docs.search(args.query as string)),
    },
    {
      name: 'docs.read',
      description: 'Read one documentation section by id, <file-slug>#<heading-slug> (from docs.list or docs.search). An unknown id answers with near-miss ids.',
      schema: {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1, maxLength: 200, description: 'e.g. readme#set-up-and-run' } },
        required: ['id'],
        additionalProperties: false,
      },
      access: 'open',
      where: 'both',
      handler: (args) => answer(docs.read(args.id as string)),
    },
  ];
}

export const docs: Subsystem<DocsOptions, DocsFace> = {
  name: 'docs',
  needs: [],
  provides: { docResources: (f) => f.resources },
  start(_k, o) {
    const d = new Docs(o.pack ?? builtInPack());
    return { provides: { docs: d, resources: d.empty() ? [] : [docsResources(d)] }, tools: docsTools(d) };
  },
};
