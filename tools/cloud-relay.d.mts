// Types for tools/cloud-relay.mjs.

export const RELAY_HOST: string;
export const DEFAULT_ACCOUNT: string;
export const PROTOCOL_VERSION: number;
export const PROTOCOL_VERSIONS: number[];
export const F: Record<'HELLO' | 'PAIR' | 'PAIRCODE' | 'PAIRED' | 'WELCOME' | 'DENIED' | 'REQ' | 'RES' | 'BODY' | 'END' | 'RESET' | 'DONE' | 'PING' | 'PONG' | 'LOOP' | 'LOOPRES' | 'BYE', number>;
export const MAX_PAYLOAD: number;
/** Where the relay reads its frame table from: the firmware's own. */
export const FRAME_TABLE_MODULE: string;

export interface RelayFrame {
  type: number;
  stream: number;
  payload: Buffer;
}

export function encodeFrame(type: number, stream: number, payload?: Uint8Array | string | Record<string, unknown>): Buffer;
export class Decoder {
  error: string | null;
  feed(chunk: Uint8Array): RelayFrame[];
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(t: unknown): void;
}

/** A device connection as the relay core sees it. */
export interface Link {
  write(bytes: Buffer): void;
  end(): void;
}

export interface Attached {
  data(chunk: Uint8Array): void;
  closed(): void;
}

export interface RelayResponse {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer;
}

export interface RelayRequest {
  method?: string;
  /** The request target, forwarded byte for byte. */
  target?: string;
  headers?: Array<[string, string]>;
  body?: Uint8Array;
}

export interface Relay {
  stats: { frames: number; requests: number; loops: number; connections: number; replays: number };
  attach(link: Link): Attached;
  claim(account: string, code: string): { ok: true; deviceId: string } | { ok: false; error: string };
  devices(account?: string): Array<{ id: string; owner: string; online: boolean; fw: string; board: string }>;
  revoke(id: string): void;
  /** Closes the device's connection from the relay's side (a network cut, a relay restart). */
  cut(id: string): void;
  /** The device's connection goes dark without closing (nothing read or written on it any more). */
  darken(id: string): void;
  request(account: string, id: string, req: RelayRequest): Promise<RelayResponse>;
}

export function createRelay(options?: { timers?: Timers; pairMs?: number; log?: (line: string) => void }): Relay;

export interface RelayServer {
  relay: Relay;
  devicePort: number;
  ownerPort: number;
  ownerUrl: string;
  close(): Promise<void>;
}

export function start(options?: { devicePort?: number; ownerPort?: number; untrusted?: boolean; accounts?: string[]; log?: (line: string) => void }): Promise<RelayServer>;
export function routeArgs(devicePort: number): string[];
