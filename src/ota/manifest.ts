// The release manifest (spec: Firmware manifest (schema 2)): parsing and
// checking it, and picking this device's variant. Schema 2 is keyed by
// device type; schema 1 (the one-time transition release) is keyed by build
// tag and signed with the legacy v1 message. Nothing here trusts the
// manifest: the signature check (verify.ts) is the gate.

import { capBytes } from '../util/cap.ts';
import { isLowerHex } from '../util/encoding.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { parseVersion } from '../util/version.ts';
import type { ManifestSchema } from './signed-message.ts';
import type { OtaError } from './types.ts';
import { decodeSignature } from './verify.ts';

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const ABSOLUTE_HTTP = /^https?:\/\//i;
const OTHER_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const ORIGIN_AND_PATH = /^(https?:\/\/[^/?#]+)([^?#]*)/i;
const BEFORE_QUERY = /(?=[?#])/;

/** Largest manifest body read (a real one with four variants is under 2 KB). */
export const MANIFEST_MAX_BYTES = 16 * 1024;
/** otaNotes is kept to this many UTF-8 bytes (cut on a character boundary). */
export const NOTES_MAX_BYTES = 1000;

export interface Manifest {
  schema: ManifestSchema;
  version: string;
  notes: string;
  /** The raw variants object; each entry is checked only when selected. */
  variants: Record<string, unknown>;
}

export interface Variant {
  /** The image address as written (absolute, or relative to the manifest). */
  url: string;
  size: number;
  /** Lowercase hex. */
  sha256: string;
  signature: Uint8Array;
}

export type ManifestResult = { ok: true; manifest: Manifest } | { ok: false; error: OtaError; detail: string };

export function parseManifest(text: string): ManifestResult {
  const parsed = parseJson(text);
  if (!parsed.ok) return { ok: false, error: 'json', detail: parsed.error };
  const m = parsed.value;
  if (!isPlainObject(m)) return { ok: false, error: 'json', detail: 'not a JSON object' };
  if (m['schema'] !== 1 && m['schema'] !== 2) return { ok: false, error: 'schema', detail: `schema ${stringify(m['schema'])} is not 1 or 2` };
  const version = m['version'];
  if (typeof version !== 'string' || parseVersion(version) === null) return { ok: false, error: 'version', detail: 'version is not vX.Y.Z' };
  if (!isPlainObject(m['variants'])) return { ok: false, error: 'variants', detail: 'variants is not an object' };
  const notes = typeof m['notes'] === 'string' ? capBytes(m['notes'], NOTES_MAX_BYTES) : '';
  return { ok: true, manifest: { schema: m['schema'], version, notes, variants: m['variants'] } };
}

export type VariantResult = { ok: true; variant: Variant } | { ok: false; absent: true } | { ok: false; absent: false; detail: string };

/** This device's entry: absent (settled as up to date), malformed, or checked. */
export function selectVariant(manifest: Manifest, key: string, slotSize: number): VariantResult {
  if (!Object.prototype.hasOwnProperty.call(manifest.variants, key)) return { ok: false, absent: true };
  const v = manifest.variants[key];
  if (!isPlainObject(v)) return { ok: false, absent: false, detail: `variants.${key} is not an object` };
  const { url, size, sha256, sig } = v;
  if (typeof url !== 'string' || url.length === 0 || url.length > 1024) return { ok: false, absent: false, detail: 'url missing' };
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size <= 0) return { ok: false, absent: false, detail: 'size is not a positive integer' };
  if (size > slotSize) return { ok: false, absent: false, detail: `size ${size} exceeds the ${slotSize}-byte slot` };
  if (!isLowerHex(sha256, 64)) return { ok: false, absent: false, detail: 'sha256 is not 64 lowercase hex digits' };
  const signature = decodeSignature(sig);
  if (!signature) return { ok: false, absent: false, detail: 'sig is not a base64 ECDSA signature' };
  return { ok: true, variant: { url, size, sha256: sha256 as string, signature } };
}

/**
 * Resolves a variant url against the manifest's address: absolute http(s)
 * as is, '/path' on the manifest's origin, anything else relative to the
 * manifest's folder ('./' and '../' segments resolved). Null when it cannot.
 */
export function resolveImageUrl(manifestUrl: string, ref: string): string | null {
  if (ABSOLUTE_HTTP.test(ref)) return ref;
  if (OTHER_SCHEME.test(ref) || ref.startsWith('//')) return null; // another scheme
  const m = ORIGIN_AND_PATH.exec(manifestUrl);
  if (!m) return null;
  const origin = m[1]!;
  const [refPath, ...rest] = ref.split(BEFORE_QUERY);
  const base = ref.startsWith('/') ? [] : m[2]!.split('/').slice(1, -1);
  const segments = [...base];
  for (const s of refPath!.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  return `${origin}/${segments.join('/')}${rest.join('')}`;
}
