// Per-person limits on long-term memory (spec: a person's quotas vectors,
// bytes, ttl_hours, pins). The people and roles subsystem comes later: it
// will implement People (roles, and tenant.set_quota overrides where 0
// restores the role default). Until then everyone but the owner is a 'user'.

export type Role = 'admin' | 'user' | 'guest' | 'unknown';

export interface MemoryQuota {
  /** Vectors the person may keep. */
  vectors: number;
  /** UTF-8 bytes of content the person may keep. */
  bytes: number;
  /** Longest time to live the person's memories may have, in hours (-1: no limit, permanent allowed). */
  ttlHours: number;
  /** Pinned memories the person may keep. */
  pins: number;
}

/** Role defaults. The owner (person null) is an admin. 'unknown' (revoked) may not write. */
export const ROLE_QUOTAS: Record<Role, MemoryQuota> = {
  admin: { vectors: Infinity, bytes: Infinity, ttlHours: -1, pins: 64 },
  user: { vectors: 500, bytes: 256 * 1024, ttlHours: 2160, pins: 16 },
  guest: { vectors: 50, bytes: 16 * 1024, ttlHours: 168, pins: 2 },
  unknown: { vectors: 0, bytes: 0, ttlHours: 0, pins: 0 },
};

export interface People {
  roleOf(person: string | null): Role;
  /** Per-person overrides (tenant.set_quota); a 0 or absent field means the role default. */
  quotaOverride(person: string | null): Partial<MemoryQuota> | null;
}

export const DEFAULT_PEOPLE: People = {
  roleOf: (person) => (person === null ? 'admin' : 'user'),
  quotaOverride: () => null,
};

export function quotaFor(people: People, person: string | null): MemoryQuota {
  const base = ROLE_QUOTAS[people.roleOf(person)];
  const o = people.quotaOverride(person);
  if (!o) return base;
  const pick = (v: number | undefined, d: number): number => (v === undefined || v === 0 ? d : v);
  return { vectors: pick(o.vectors, base.vectors), bytes: pick(o.bytes, base.bytes), ttlHours: pick(o.ttlHours, base.ttlHours), pins: pick(o.pins, base.pins) };
}
