// Types for tools/web-page.mjs, for the TypeScript that imports it (tests).
export const WEB_PAGE_GZIP_BUDGET: number;
export function buildWebPage(options?: { minify?: boolean; inputs?: string[] | null }): Promise<string>;
export function webPageSizes(html: string): { raw: number; gzip: number };
export function webPageDefine(html: string): { chunks: string[]; bytes: number; etag: string };
