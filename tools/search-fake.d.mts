// Types for tools/search-fake.mjs.

export const BRAVE_HOST: string;
export const SEARCH_PATH: string;

export interface FakeAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface SearchApi {
  queries: Array<{ q: string; count: number; at: number }>;
  rateLimit(n?: number): void;
  answer(method: string, url: string, headers: Record<string, string | string[] | undefined>): FakeAnswer;
}

export function createSearchApi(options?: { key?: string; results?: (q: string) => Array<{ title: string; url: string; description: string }> }): SearchApi;
