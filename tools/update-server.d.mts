// Types for tools/update-server.mjs.
export const UPDATE_HOST: string;
export interface UpdateServer {
  port: number;
  faults: Map<string, { kind: 'truncate' | 'stall'; after: number }>;
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}
export function startUpdateServer(options: { root: string; names?: string[]; port?: number; log?: (line: string) => void }): Promise<UpdateServer>;
