// Types for tools/release.mjs.
import type { LicenseInventory } from './licenses.mjs';
export const DEVICE_TYPES: string[];
export const SLOT_BYTES: number;
export function imageVersion(bytes: Buffer): string | null;
export interface ReleaseManifest {
  schema: 1 | 2;
  version: string;
  notes: string;
  variants: Record<string, { url: string; size: number; sha256: string; sig: string }>;
}
export function release(options: {
  image: string;
  version: string;
  keyPem: string;
  out: string;
  notes?: string;
  types?: string[];
  baseUrl?: string | null;
  schema?: 1 | 2;
  /** The licence inventory of a type (default: tools/licenses.mjs's, for a device image; null: none). */
  licenses?: ((type: string) => LicenseInventory) | null;
}): ReleaseManifest;
export function isDeviceImage(bytes: Buffer): boolean;
