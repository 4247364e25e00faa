// The embedded documentation pack as this build carries it. tools/build.mjs
// generates it from README.md and docs/*.md (tools/docs-pack.mjs) and injects
// it as the define __DOCS_PACK__, so it ships in, and updates with, the
// firmware image. A build without it (a host that did not run the generator)
// gets an empty pack, which the docs tools report as such.

export interface DocFile {
  /** File name without .md, lowercased: readme, decisions, ... */
  slug: string;
  /** Path in the repository, e.g. docs/decisions.md. */
  path: string;
  /** The file's first heading. */
  title: string;
}

export interface DocSection {
  /** <file-slug>#<heading-slug> */
  id: string;
  file: string;
  /** Heading level 1-6 (0 for text before the first heading). */
  level: number;
  title: string;
  /** The Markdown between this heading and the next. */
  text: string;
}

export interface DocsPack {
  files: DocFile[];
  sections: DocSection[];
}

declare const __DOCS_PACK__: DocsPack | undefined;

export const EMPTY_PACK: DocsPack = { files: [], sections: [] };

export function builtInPack(): DocsPack {
  return typeof __DOCS_PACK__ === 'object' && __DOCS_PACK__ !== null ? __DOCS_PACK__ : EMPTY_PACK;
}
