// The SHA-256 hotspot's API: streaming init/update/final. The C in sha256.c
// (through __native on XS) and the pure TypeScript fallback here give the
// same digests. (Skeleton: the helper completing modules/ fills in bodies.)

export interface Sha256Hash {
  update(bytes: Uint8Array): void;
  /** Returns the 32-byte digest and resets the hash for reuse. */
  digest(): Uint8Array;
}

export interface Sha256Api {
  readonly native: boolean;
  create(): Sha256Hash;
}
