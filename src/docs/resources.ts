// The documentation pack as MCP resources (served by /mcp; the provider contract is src/contracts/mcp-sources.ts):
//   docs://<file>            a file's outline: its title and each section's
//                            id, URI and title (what docs.list shows)
//   docs://<file>/<section>  one section's Markdown, whole (docs.read's id
//                            <file>#<section>; docs.read cuts at 8000
//                            characters for a model, a resource is read by
//                            the client, and the longest section is ~30 KB)
// The pack ships in the firmware image, so every caller reads the same
// text, and a client may keep it for DOCS_TTL_MS (2026-07-28 ttlMs).

import { ResourceError, type ResourceInfo, type ResourceProvider, type ResourceRead } from '../contracts/index.ts';
import { utf8Length } from '../util/utf8.ts';
import type { Docs } from './docs.ts';
import type { DocSection } from './pack.ts';

export const DOCS_TTL_MS = 60 * 60_000;
const MARKDOWN = 'text/markdown';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const DOCS_URI = /^docs:\/\/([^/]+)(?:\/([^/]+))?$/;

function sectionUri(s: DocSection): string {
  const [, heading = ''] = s.id.split('#');
  return `docs://${encodeURIComponent(s.file)}/${encodeURIComponent(heading)}`;
}

function decodeSegment(s: string | undefined): string | null {
  if (s === undefined) return null;
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export function docsResources(docs: Docs): ResourceProvider {
  const { files, sections } = docs.pack;
  const inFile = (slug: string): DocSection[] => sections.filter((s) => s.file === slug);
  return {
    scheme: 'docs',
    list(): ResourceInfo[] {
      const out: ResourceInfo[] = [];
      for (const f of files) {
        out.push({ uri: `docs://${encodeURIComponent(f.slug)}`, name: f.slug, title: `${f.title} (outline)`, description: `The sections of ${f.path} in this firmware's documentation.`, mimeType: MARKDOWN });
        for (const s of inFile(f.slug)) {
          out.push({ uri: sectionUri(s), name: s.id, title: s.title, description: `A section of ${f.path}.`, mimeType: MARKDOWN, size: utf8Length(s.text) });
        }
      }
      return out;
    },
    templates: () => [
      { uriTemplate: 'docs://{file}', name: 'docs-outline', title: 'Documentation file outline', description: 'The sections of one documentation file (file: readme, decisions, ...).', mimeType: MARKDOWN },
      { uriTemplate: 'docs://{file}/{section}', name: 'docs-section', title: 'Documentation section', description: 'One section of the device documentation (docs.read id <file>#<section>).', mimeType: MARKDOWN },
    ],
    read(uri): ResourceRead {
      const m = DOCS_URI.exec(uri);
      const file = decodeSegment(m?.[1]);
      const heading = m?.[2] === undefined ? undefined : decodeSegment(m[2]);
      const f = file === null ? undefined : files.find((x) => x.slug === file);
      if (!m || !f || heading === null) throw new ResourceError(`No documentation resource ${uri.slice(0, 120)}.${files.length ? ` Files: ${files.map((x) => x.slug).join(', ')}.` : ' This firmware build carries no documentation pack.'}`);
      if (heading === undefined) {
        const lines = inFile(f.slug).map((s) => `${'  '.repeat(Math.max(0, s.level - 1))}- [${s.title}](${sectionUri(s)}) \`${s.id}\``);
        return { contents: [{ uri, mimeType: MARKDOWN, text: `# ${f.title}\n\n${f.path}\n\n${lines.join('\n')}\n` }], ttlMs: DOCS_TTL_MS };
      }
      const s = sections.find((x) => x.id === `${f.slug}#${heading}`);
      if (!s) {
        const near = docs.nearMisses(`${f.slug}#${heading}`);
        throw new ResourceError(`No section ${f.slug}#${heading.slice(0, 80)}.${near.length ? ` Did you mean: ${near.join(', ')}?` : ''}`);
      }
      return { contents: [{ uri, mimeType: MARKDOWN, text: `${'#'.repeat(Math.max(1, s.level))} ${s.title}\n\n${s.text}` }], ttlMs: DOCS_TTL_MS };
    },
  };
}
