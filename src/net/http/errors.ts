// The one shape of every HTTP error body (docs/decisions.md, "HTTP errors"):
// {"error": "<stable-code>", "message": "<human sentence>"} as JSON.

import type { HttpResponse } from './types.ts';
import { stringify } from '../../util/json.ts';

export function errorResponse(status: number, code: string, message: string, headers: Record<string, string> = {}): HttpResponse {
  return {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: stringify({ error: code, message }),
  };
}

export function jsonResponse(value: unknown, status = 200, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers }, body: stringify(value) };
}
