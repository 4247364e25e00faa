// Types for tools/doc-links.mjs, for the TypeScript that imports it (tests).
export const ROOT: string;
export function repositoryFiles(root?: string): string[];
export function anchorsOf(text: string): Set<string>;
export function linksOf(text: string): Array<{ target: string; line: number }>;
export function checkLinks(root?: string, files?: string[]): Array<{ file: string; line: number; target: string; problem: string }>;
export function mentions(needle: string, root?: string, files?: string[]): Array<{ file: string; line: number }>;
