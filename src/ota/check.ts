// One update check (spec: Update check result): fetch manifest.json of the
// latest release under the update base and settle otaResult. A 404 is up to
// date; a feed that cannot be fetched is unreachable (otaErr=fetch), never up
// to date; a manifest that is reached but rejected is failed with otaErr; a
// newer version whose variant for this device verifies is new-version. An
// untyped device, or one whose type the manifest lacks, is up to date.

import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { P256Api } from '../../modules/p256/p256.ts';
import type { BoardInfo } from '../hal/index.ts';
import type { HttpClient } from '../net/http/client.ts';
import { joinUrl } from '../net/url.ts';
import { decode } from '../util/utf8.ts';
import { compareVersions, parseVersion } from '../util/version.ts';
import type { TypeResolution } from './device-type.ts';
import type { TrustedKey } from './keys.ts';
import { MANIFEST_MAX_BYTES, parseManifest, resolveImageUrl, selectVariant, type Manifest, type Variant } from './manifest.ts';
import { signedMessage } from './signed-message.ts';
import type { OtaError, OtaResult } from './types.ts';
import { verifySignature } from './verify.ts';

export const MANIFEST_PATH = 'latest/manifest.json';
const CHECK_TIMEOUT_MS = 30_000;

/** A release this device could install: checked, signed, and resolved. */
export interface Candidate {
  manifest: Manifest;
  variant: Variant;
  /** The variant key (device type, or build tag for schema 1). */
  key: string;
  imageUrl: string;
  newer: boolean;
}

export interface CheckOutcome {
  result: Exclude<OtaResult, 'pending'>;
  error: OtaError | null;
  /** For the log: what happened, in a sentence fragment. */
  detail: string;
  /** The latest version seen (any valid manifest) and its notes. */
  latest: string | null;
  notes: string | null;
  candidate: Candidate | null;
}

export interface CheckDeps {
  client: HttpClient;
  base: string;
  board: BoardInfo;
  type: TypeResolution;
  running: string;
  slotSize: number;
  keys: readonly TrustedKey[];
  sha256: Sha256Api;
  /** The P-256 hotspot (C when the host has it). */
  p256: P256Api;
}

function settle(result: CheckOutcome['result'], error: OtaError | null, detail: string, extra: Partial<CheckOutcome> = {}): CheckOutcome {
  return { result, error, detail, latest: null, notes: null, candidate: null, ...extra };
}

export function manifestUrl(base: string): string {
  return joinUrl(base, MANIFEST_PATH);
}

export async function runCheck(d: CheckDeps): Promise<CheckOutcome> {
  if (d.type.kind === 'wrong-family') return settle('failed', 'wrong-family', `otaType ${d.type.stored} is not a ${d.board.family} type`);
  const url = manifestUrl(d.base);
  const res = await d.client.request({ method: 'GET', url, timeoutMs: CHECK_TIMEOUT_MS, maxBodyBytes: MANIFEST_MAX_BYTES, headers: { Accept: 'application/json' } });
  if (!res.ok) {
    if (res.error === 'too-large') return settle('failed', 'too-large', `manifest over ${MANIFEST_MAX_BYTES} bytes`);
    return settle('unreachable', 'fetch', `${res.error}: ${res.message}`);
  }
  const status = res.response.status;
  if (status === 404) return settle('up-to-date', null, 'no release published (404)');
  if (status !== 200) return settle('unreachable', 'fetch', `HTTP ${status}`);
  const parsed = parseManifest(decode(res.response.body));
  if (!parsed.ok) return settle('failed', parsed.error, parsed.detail);
  const manifest = parsed.manifest;
  const seen = { latest: manifest.version, notes: manifest.notes };
  // Schema 2 is keyed by device type; schema 1 by the build's tag.
  if (manifest.schema === 2 && d.type.kind === 'untyped') return settle('up-to-date', null, `untyped device (otaType ${d.type.stored}) gets no update`, seen);
  const key = manifest.schema === 2 && d.type.kind === 'typed' ? d.type.type : d.board.type;
  const picked = selectVariant(manifest, key, d.slotSize);
  if (!picked.ok) {
    if (picked.absent) return settle('up-to-date', null, `no ${key} variant in ${manifest.version}`, seen);
    return settle('failed', 'variant', picked.detail, seen);
  }
  const variant = picked.variant;
  const imageUrl = resolveImageUrl(url, variant.url);
  if (imageUrl === null) return settle('failed', 'variant', 'the image url is not http(s)', seen);
  if (!verifySignature(signedMessage(manifest.schema, manifest.version, key, variant.sha256), variant.signature, d.keys, d.sha256, d.p256)) {
    return settle('failed', 'sig', `the ${key} variant of ${manifest.version} is not signed by a trusted key`, seen);
  }
  const running = parseVersion(d.running);
  const newer = running === null || compareVersions(parseVersion(manifest.version)!, running) > 0;
  const candidate: Candidate = { manifest, variant, key, imageUrl, newer };
  if (!newer) return settle('up-to-date', null, `${manifest.version} is not newer than ${d.running}`, { ...seen, candidate });
  return settle('new-version', null, `${manifest.version} available`, { ...seen, candidate });
}
