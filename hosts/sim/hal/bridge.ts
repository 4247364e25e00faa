// The firmware's end of the pipe to the simulated board: synchronous calls
// (storage-like operations) and one-way sends, JSON plus optional bytes, and
// the dispatch of the board's events to whichever service registered for them.

import { HalError, type HalErrorCode } from '../../../src/hal/index.ts';

export type Json = Record<string, unknown>;
export type EventHandler = (event: Json, bin: Uint8Array | undefined) => void;

const handlers = new Map<string, EventHandler>();

function toBytes(bin: ArrayBuffer | undefined): Uint8Array | undefined {
  return bin === undefined ? undefined : new Uint8Array(bin);
}

/** A synchronous call; throws HalError when the board answers ok:false. */
export function call(op: string, args: Json = {}, bin?: Uint8Array): { reply: Json; bin: Uint8Array | undefined } {
  const [text, out] = __sim.call(JSON.stringify({ op, ...args }), bin);
  const reply = JSON.parse(text) as Json;
  if (reply['ok'] !== true) {
    throw new HalError((reply['code'] as HalErrorCode | undefined) ?? 'EIO', String(reply['message'] ?? `${op} failed`));
  }
  return { reply, bin: toBytes(out) };
}

export function send(op: string, args: Json = {}, bin?: Uint8Array): void {
  __sim.send(JSON.stringify({ op, ...args }), bin);
}

/** Routes board events of one type (e.g. 'tcp.data') to a handler. */
export function on(type: string, handler: EventHandler): void {
  handlers.set(type, handler);
}

export function installEventDispatch(log: (line: string) => void): void {
  __sim.onEvent = (json, bin) => {
    const event = JSON.parse(json) as Json;
    const handler = handlers.get(String(event['type']));
    if (!handler) {
      log(`sim: no handler for event ${String(event['type'])}`);
      return;
    }
    handler(event, toBytes(bin));
  };
}
