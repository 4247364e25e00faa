// One install (spec: Install and rollback): stream the image into the
// inactive slot while hashing it with the SHA-256 hotspot, check its size,
// its digest (sha-fail) and the signature over the message rebuilt from what
// was downloaded (sig-fail), then arm the guard and flip the boot slot. The
// caller restarts. Every failure abandons the slot and leaves the running
// firmware and the boot slot as they were. A dry run stops after verifying.

import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { P256Api } from '../../modules/p256/p256.ts';
import type { Hal, SlotWriter, Timer } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { HttpClient } from '../net/http/client.ts';
import { toHex } from '../util/encoding.ts';
import type { Candidate } from './check.ts';
import type { GuardStore } from './guard.ts';
import type { TrustedKey } from './keys.ts';
import { signedMessage } from './signed-message.ts';
import type { InstallOutcome, OtaError } from './types.ts';
import { verifySignature } from './verify.ts';

/** No byte for this long ends the download. */
export const STALL_MS = 30_000;
/** The whole download may take this long (6.5 MB at 8 KB/s). */
export const DOWNLOAD_MS = 15 * 60_000;

/** Test builds can stop a real install at a stage and hold it there (OTASIM hold). */
export type HoldStage = 'armed' | 'flipped';

export interface InstallDeps {
  hal: Hal;
  client: HttpClient;
  sha256: Sha256Api;
  p256: P256Api;
  keys: readonly TrustedKey[];
  guard: GuardStore;
  log: Log;
  onPhase(phase: 'downloading' | 'verifying'): void;
  onProgress(pct: number): void;
  /** Resolves when the install may go on past `stage` (never, while held). */
  hold(stage: HoldStage): Promise<void>;
}

/** Why an install stopped: the lastOta it records, the error code (null for sha-fail and sig-fail), the detail for the log. */
interface Failure {
  ok: false;
  lastOta: string;
  error: OtaError | null;
  detail: string;
}

type SlotHash = ReturnType<Sha256Api['create']>;

export async function runInstall(d: InstallDeps, c: Candidate, dry: boolean): Promise<InstallOutcome> {
  const { hal, guard, log } = d;
  const version = c.manifest.version;
  const fail = (lastOta: string, error: OtaError | null, detail: string): InstallOutcome => {
    guard.setLastOta(lastOta);
    log.error('ota', `${dry ? 'dry run' : 'install'} of ${version} failed: ${lastOta}${error ? ` (${error})` : ''}: ${detail}`);
    return { kind: 'failed', lastOta, error, detail };
  };
  guard.setLastOta(`${dry ? 'dry-run' : 'installing'} ${version}`);
  const running = hal.flash.runningSlot();
  const slot = (running ^ 1) as 0 | 1;
  let writer: SlotWriter;
  try {
    writer = hal.flash.beginWrite(slot);
  } catch (e) {
    return fail(`failed ${version}`, 'flash', `slot ${slot} cannot be written: ${String(e)}`);
  }
  const abandon = (): void => {
    try {
      writer.abort();
    } catch {
      // the slot stays unbootable either way: it is not selected
    }
  };
  const got = await download(d, c, writer, slot);
  const checked = got.ok ? verify(d, c, writer, got.hash) : got;
  if (!checked.ok) {
    abandon();
    return fail(checked.lastOta, checked.error, checked.detail);
  }
  log.info('ota', `${version} verified (sha256 ${checked.digest.slice(0, 16)}..., signed by ${checked.key.id})`);
  if (dry) {
    guard.setLastOta(`verified ${version}`);
    return { kind: 'verified', version };
  }
  return flip(d, version, running, slot);
}

/** Streams the image into the slot while hashing it; fails on a stall, a refusal, a size that is not the manifest's. */
async function download(d: InstallDeps, c: Candidate, writer: SlotWriter, slot: 0 | 1): Promise<{ ok: true; hash: SlotHash } | Failure> {
  const { hal, log } = d;
  const version = c.manifest.version;
  const size = c.variant.size;
  d.onPhase('downloading');
  d.onProgress(0);
  const hash = d.sha256.create();
  let received = 0;
  let status = 0;
  let problem: { error: OtaError; detail: string } | null = null;
  let lastPct = -1;
  const cancel: { onCancel: (() => void) | null } = { onCancel: null };
  let stall: Timer | null = null;
  const armStall = (): void => {
    stall?.cancel();
    stall = hal.clock.setTimeout(() => {
      problem = { error: 'download', detail: `no data for ${STALL_MS / 1000} s` };
      cancel.onCancel?.();
    }, STALL_MS);
  };
  armStall();
  log.info('ota', `downloading ${version} (${size} bytes) into slot ${slot} from ${c.imageUrl}`);
  const res = await d.client.request({
    method: 'GET',
    url: c.imageUrl,
    timeoutMs: DOWNLOAD_MS,
    cancel,
    onHead: (s) => {
      status = s;
      return s === 200;
    },
    onBody: (chunk) => {
      armStall();
      if (received + chunk.length > size) {
        problem = { error: 'size', detail: `the image is larger than the manifest's ${size} bytes` };
        return false;
      }
      hash.update(chunk);
      try {
        writer.write(chunk);
      } catch (e) {
        problem = { error: 'flash', detail: `flash write at ${received}: ${String(e)}` };
        return false;
      }
      received += chunk.length;
      const pct = Math.floor((received * 100) / size);
      if (pct !== lastPct) {
        lastPct = pct;
        d.onProgress(pct);
      }
      return true;
    },
  });
  (stall as Timer | null)?.cancel();
  const failure = problem as { error: OtaError; detail: string } | null;
  if (failure) return { ok: false, lastOta: `failed ${version}`, error: failure.error, detail: failure.detail };
  if (!res.ok || status !== 200) {
    const detail = status !== 0 && status !== 200 ? `HTTP ${status}` : res.ok ? 'no answer' : `${res.error}: ${res.message}`;
    return { ok: false, lastOta: `failed ${version}`, error: 'download', detail };
  }
  if (received !== size) return { ok: false, lastOta: `failed ${version}`, error: 'size', detail: `${received} bytes received, the manifest says ${size}` };
  return { ok: true, hash };
}

/** Checks the digest (sha-fail) and the signature over it (sig-fail), then closes the slot. */
function verify(d: InstallDeps, c: Candidate, writer: SlotWriter, hash: SlotHash): { ok: true; digest: string; key: TrustedKey } | Failure {
  const version = c.manifest.version;
  d.onPhase('verifying');
  const digest = toHex(hash.digest());
  if (digest !== c.variant.sha256) return { ok: false, lastOta: 'sha-fail', error: null, detail: `SHA-256 ${digest} is not the manifest's ${c.variant.sha256}` };
  // The signature covers the digest of what we downloaded, not the manifest's claim.
  const key = verifySignature(signedMessage(c.manifest.schema, version, c.key, digest), c.variant.signature, d.keys, d.sha256, d.p256);
  if (!key) return { ok: false, lastOta: 'sig-fail', error: null, detail: `no trusted key signed ${version} for ${c.key}` };
  try {
    writer.end();
  } catch (e) {
    return { ok: false, lastOta: `failed ${version}`, error: 'flash', detail: `the flash refused the image: ${String(e)}` };
  }
  return { ok: true, digest, key };
}

/** Arms the guard and selects the new slot; the caller restarts. */
async function flip(d: InstallDeps, version: string, running: 0 | 1, slot: 0 | 1): Promise<InstallOutcome> {
  const { hal, guard, log } = d;
  guard.arm(version, running);
  await d.hold('armed');
  try {
    hal.flash.setBootSlot(slot);
  } catch (e) {
    guard.clear(`failed ${version}`);
    log.error('ota', `could not select slot ${slot}: ${String(e)}`);
    return { kind: 'failed', lastOta: `failed ${version}`, error: 'flash', detail: String(e) };
  }
  guard.flipped();
  await d.hold('flipped');
  return { kind: 'restarting', version };
}
