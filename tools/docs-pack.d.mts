// Types for tools/docs-pack.mjs, for the TypeScript that imports it (tests).
import type { DocsPack } from '../src/docs/pack.ts';

export function docsFiles(root: string): string[];
export function slugify(heading: string): string;
export function parseMarkdown(text: string): Array<{ level: number; title: string; text: string }>;
export function docsPack(root: string): DocsPack;
