// Types for tools/oauth-fake.mjs.

export const OAUTH_HOST: string;
export const DEFAULT_CLIENT: string;

export interface OAuthClient {
  id: string;
  secret?: string;
  redirectUris?: string[];
}

export interface FakeAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface OAuthProvider {
  handle(method: string, url: string, headers: Record<string, string | string[] | undefined>, body: Uint8Array): FakeAnswer;
  issued: Array<{ grant: string; access: string; refresh: string; at: number }>;
  calls: Array<{ method: string; path: string; query: Record<string, string>; form: Record<string, string> }>;
  setConsent(v: 'allow' | 'deny'): void;
  revokeAll(): void;
}

export function createOAuthProvider(options?: { clients?: OAuthClient[]; tokenTtl?: number; now?: () => number }): OAuthProvider;
export function start(options?: { port?: number; clients?: OAuthClient[] }): Promise<{ port: number; provider: OAuthProvider; close(): Promise<void> }>;
export function routeArgs(port: number): string[];
