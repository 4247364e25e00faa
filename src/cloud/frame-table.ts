// The relay protocol's frame table (docs/cloud-relay.md, protocol v2): the
// version, the frame types and the sizes. Its one source: the firmware's
// framing (./frames.ts) and the fake relay (tools/cloud-relay.mjs, which
// loads this file through esbuild) both read it, so they cannot drift
// (test/unit/cloud/relay.test.ts checks the relay's exports against it).
// Data only, importing nothing.

export const PROTOCOL_VERSION = 2;

/** Frame types. */
export const F = {
  /** d→r: a paired device: {v, id, cred, fw, board, boot, streams} (boot and streams: v2) */
  HELLO: 0x01,
  /** d→r: pair me: {v, fw, board} */
  PAIR: 0x02,
  /** r→d: {code, expiresInMs} */
  PAIRCODE: 0x03,
  /** r→d: the owner claimed the code: {id, cred} */
  PAIRED: 0x04,
  /** r→d: the device is online: {limits?} */
  WELCOME: 0x05,
  /** r→d: refused: {reason}; the relay closes next */
  DENIED: 0x06,
  /** r→d: a request head: {method, target, headers: [[name, value]...], length, rid?, replay?} (rid, replay: v2) */
  REQ: 0x10,
  /** d→r: a response head: {status, headers: [[name, value]...]} */
  RES: 0x20,
  /** either way: body bytes of the stream's request or response */
  BODY: 0x21,
  /** either way: the stream's body is complete */
  END: 0x22,
  /** either way: abandon the stream: {reason} */
  RESET: 0x23,
  /** r→d (v2): the relay has the whole answer of request {rid}: the device forgets it */
  DONE: 0x24,
  /** either way on stream 0: keepalive, payload echoed in PONG */
  PING: 0x30,
  PONG: 0x31,
  /** d→r: replay this request to me as the owner would (CLOUDLOOP): {tag, method, target} */
  LOOP: 0x40,
  /** r→d: what came back: {tag, status, headers, bytes, body (base64 of at most 4 KB)} */
  LOOPRES: 0x41,
  /** d→r: {unpair: true}: forget this device; the device closes next */
  BYE: 0x50,
} as const;

/** Header bytes before the payload: length (4), type (1), stream (4). */
export const FRAME_HEADER = 9;
/** The largest payload either side sends or accepts. */
export const MAX_PAYLOAD = 32 * 1024;
/** Body bytes per BODY frame the device sends. */
export const BODY_CHUNK = 8 * 1024;
