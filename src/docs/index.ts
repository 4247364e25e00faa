// The docs subsystem: docs.list, docs.search and docs.read over the
// documentation pack embedded in this firmware image (src/docs/pack.ts).

import type { Context } from '../core/context.ts';
import { fail, ok, type ToolResult, type ToolSpec } from '../core/tools/types.ts';
import { Docs, type DocsAnswer } from './docs.ts';
import { builtInPack, type DocsPack } from './pack.ts';

function answer(a: DocsAnswer): ToolResult {
  return a.ok ? ok(a.text) : fail(a.kind, a.text);
}

export function docsTools(docs: Docs): ToolSpec[] {
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

export function installDocs(ctx: Context, pack: DocsPack = builtInPack()): Docs {
  const docs = new Docs(pack);
  for (const t of docsTools(docs)) ctx.tools.register(t);
  return docs;
}
