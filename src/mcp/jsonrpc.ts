// JSON-RPC 2.0 framing for the tool server: telling a request from a
// notification, a client's response and an invalid message, and building
// response objects. Knows nothing of MCP methods.

import { isPlainObject } from '../util/json.ts';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** MCP 2026-07-28: HTTP headers disagree with the body, or a required one is missing. */
export const HEADER_MISMATCH = -32020;
/** MCP 2026-07-28: the request needs a client capability its _meta did not declare. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** MCP 2026-07-28: the requested protocol version is not supported. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** MCP 2025-06-18 and 2025-11-25: resources/read of a resource the server does not have (2026-07-28 uses -32602). */
export const RESOURCE_NOT_FOUND = -32002;
/** This server's own code (the implementation-defined range): a Mcp-Session-Id it does not know (HTTP 404). */
export const SESSION_NOT_FOUND = -32001;
/** This server's own code: a request refused before it is read (HTTP 403, a foreign Origin). */
export const FORBIDDEN = -32000;

export type RpcId = string | number;

export type RpcMessage =
  | { kind: 'request'; id: RpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  /** A response sent by the client to a request this server made (sampling, elicitation). */
  | { kind: 'response'; id: RpcId | null; result?: unknown; error?: unknown }
  /** Not a valid message; id is the request's when it could be read. */
  | { kind: 'invalid'; id: RpcId | null; reason: string };

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcResponse = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId | null; error: RpcError };

function isId(v: unknown): v is RpcId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

/** Classifies one parsed JSON value as a JSON-RPC 2.0 message. */
export function classify(v: unknown): RpcMessage {
  if (!isPlainObject(v)) return { kind: 'invalid', id: null, reason: 'a JSON-RPC message must be an object' };
  const id = 'id' in v && isId(v.id) ? v.id : null;
  if (v.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' };
  if (!('method' in v)) {
    if ('id' in v && ('result' in v || 'error' in v)) return { kind: 'response', id, ...('result' in v ? { result: v.result } : { error: v.error }) };
    return { kind: 'invalid', id, reason: 'a request needs a method' };
  }
  if (typeof v.method !== 'string' || v.method.length === 0) return { kind: 'invalid', id, reason: 'method must be a non-empty string' };
  if ('params' in v && !isPlainObject(v.params) && !Array.isArray(v.params)) {
    return { kind: 'invalid', id, reason: 'params must be an object' };
  }
  if (!('id' in v)) return { kind: 'notification', method: v.method, params: v.params };
  // MCP forbids a null id (JSON-RPC merely discourages it).
  if (!isId(v.id)) return { kind: 'invalid', id: null, reason: 'id must be a string or a number' };
  return { kind: 'request', id: v.id, method: v.method, params: v.params };
}

export function rpcResult(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, result };
}

/** A server-to-client message: a request (sampling, elicitation) or a notification (progress). */
export function rpcMessage(method: string, params: Record<string, unknown>, id?: RpcId): Record<string, unknown> {
  return id === undefined ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params };
}

export function rpcError(id: RpcId | null, code: number, message: string, data?: unknown): RpcResponse {
  const error: RpcError = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}
