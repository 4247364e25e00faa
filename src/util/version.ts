// Firmware versions (spec Versioning 1): 'vX.Y.Z', optionally ending '-rcN'
// for a pre-release. Strict: each number is a non-negative decimal without
// leading zeros and at most 9 digits (so comparison stays exact), N likewise;
// nothing else (no '+build', no other pre-release words) is a version.

export interface Version {
  major: number;
  minor: number;
  patch: number;
  /** N of '-rcN', or null for a release. */
  rc: number | null;
}

const NUM = '(0|[1-9][0-9]{0,8})';
const VERSION_RE = new RegExp(`^v${NUM}\\.${NUM}\\.${NUM}(?:-rc${NUM})?$`);

export function parseVersion(s: unknown): Version | null {
  if (typeof s !== 'string') return null;
  const m = VERSION_RE.exec(s);
  if (m === null) return null;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    rc: m[4] === undefined ? null : Number(m[4]),
  };
}

export function formatVersion(v: Version): string {
  return `v${v.major}.${v.minor}.${v.patch}` + (v.rc === null ? '' : `-rc${v.rc}`);
}

/** -1, 0 or 1. A pre-release sorts before its release; rcN orders by N. */
export function compareVersions(a: Version, b: Version): -1 | 0 | 1 {
  const d =
    a.major - b.major ||
    a.minor - b.minor ||
    a.patch - b.patch ||
    (a.rc === null ? (b.rc === null ? 0 : 1) : b.rc === null ? -1 : a.rc - b.rc);
  return d < 0 ? -1 : d > 0 ? 1 : 0;
}

/** True only for a valid version string ending -rcN. */
export function isPreRelease(v: string | Version): boolean {
  const p = typeof v === 'string' ? parseVersion(v) : v;
  return p !== null && p.rc !== null;
}
