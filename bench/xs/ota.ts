// Runs ON XS (build/sim/xsim --standalone): the cost of verifying a 6.5 MB
// update image as the firmware does it (src/ota/verify.ts): SHA-256 of the
// image with the C hotspot and with the TypeScript fallback, and the P-256
// signature check over the rebuilt message (cold, i.e. the first in a run as
// on a device, and warm) on the P-256 hotspot the firmware picks (the SDK's C
// arithmetic when the runtime has it) and on the @noble/curves fallback. The image bytes and the signature come from
// bench/ota.mjs through __OTA_BENCH__. Prints JSON lines.

import { sha256Fallback, sha256Native, type NativeSha256, type Sha256Api } from '../../modules/sha256/sha256.ts';
import { hasNativeEc, p256Fallback, p256Native, type P256Api } from '../../modules/p256/p256.ts';
import { signedMessage } from '../../src/ota/signed-message.ts';
import { decodeSignature, verifySignature } from '../../src/ota/verify.ts';
import { toHex } from '../../src/util/encoding.ts';

declare const __sim: { print(text: string): void; monoMs(): number };
declare const __native: NativeSha256;
declare const __OTA_BENCH__: { bytes: number; publicKeyHex: string; sig: string; version: string; type: string; fallback: boolean };

const emit = (o: Record<string, unknown>): void => __sim.print(JSON.stringify(o));
const cfg = __OTA_BENCH__;

// The same bytes bench/ota.mjs signed: byte i = top byte of i * 2654435761 (mod 2^32).
const image = new Uint8Array(cfg.bytes);
for (let i = 0; i < image.length; i++) image[i] = Math.imul(i, 2654435761) >>> 24;

function hashMs(api: Sha256Api, chunk: number): { ms: number; hex: string } {
  const t0 = __sim.monoMs();
  const h = api.create();
  for (let o = 0; o < image.length; o += chunk) h.update(image.subarray(o, Math.min(image.length, o + chunk)));
  const hex = toHex(h.digest());
  return { ms: __sim.monoMs() - t0, hex };
}

const C = sha256Native(__native);
// What the firmware's hotspots pick (src/core/hotspots.ts): the C when the runtime linked it.
const P: P256Api = hasNativeEc(__native) ? p256Native(__native) : p256Fallback;
const keys = [{ id: 'bench', publicKeyHex: cfg.publicKeyHex }];
const sig = decodeSignature(cfg.sig)!;

// As an install does it: the digest streamed in network-sized chunks, then the
// signature; the first check in the process is the one a device pays. The hash
// is repeated (best of 3) because a loaded machine makes single runs noisy.
let hashC = hashMs(C, 16384);
const t0 = __sim.monoMs();
const ok = verifySignature(signedMessage(2, cfg.version, cfg.type, hashC.hex), sig, keys, C, P) !== null;
const coldMs = __sim.monoMs() - t0;
for (let i = 0; i < 2; i++) {
  const again = hashMs(C, 16384);
  if (again.ms < hashC.ms) hashC = again;
}
function warmMs(curve: P256Api): number {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = __sim.monoMs();
    if (!verifySignature(signedMessage(2, cfg.version, cfg.type, hashC.hex), sig, keys, C, curve)) throw new Error('the signature did not verify');
    times.push(__sim.monoMs() - t);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}
const warm = warmMs(P);
// The fallback after the hotspot: its first check here pays @noble/curves' cold start.
const t1 = __sim.monoMs();
const okTs = verifySignature(signedMessage(2, cfg.version, cfg.type, hashC.hex), sig, keys, C, p256Fallback) !== null;
const coldTsMs = __sim.monoMs() - t1;
const warmTs = warmMs(p256Fallback);
emit({ what: 'ota-hash-c', ms: hashC.ms, hex: hashC.hex });
emit({ what: 'ota-verify', ok: ok && okTs, native: P.native, coldMs, warmMs: warm, tsColdMs: coldTsMs, tsWarmMs: warmTs });
if (cfg.fallback) {
  const hashTs = hashMs(sha256Fallback, 16384);
  emit({ what: 'ota-hash-ts', ms: hashTs.ms, same: hashTs.hex === hashC.hex });
}
