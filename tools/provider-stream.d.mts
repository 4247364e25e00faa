// Types for tools/provider-stream.mjs.

export interface StreamEvent {
  event?: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  token?: boolean;
}
export function tokensOf(text: string): string[];
export function streamEvents(dialect: string, family: string, answer: unknown, request?: Record<string, unknown>): StreamEvent[];
export function errorEvents(dialect: string, family: string, response?: unknown): StreamEvent[];
export function tokenCount(events: StreamEvent[]): number;
export function sendStream(res: import('node:http').ServerResponse, events: StreamEvent[], later: (fn: () => void, ms: number) => void, options?: Record<string, unknown>): void;
