// People (tenants): who may talk to the device in chat and with what rights.
// A person is a chat id on the allowlist, with a role (admin: the
// manageTenants permission and the owner commands; user and guest: may
// converse; unknown: revoked) and memory quota overrides (vectors, bytes,
// ttl_hours, pins; 0 restores the role's default). The allowlist itself is
// the owner's, set on the web page only: a tool can revoke a chat (role
// unknown) but never admit one. The allowlist's first chat is the owner's:
// its namespace is the owner's (person null), shared with the web page and
// the console. The last admin chat cannot be demoted.
//
// Persisted in NVS (namespace people, one JSON document under 4000 bytes),
// and handed to memory as its People (roles and quotas).

import type { Store } from '../core/store.ts';
import { quotaFor, ROLE_QUOTAS, type MemoryQuota, type People, type Role } from '../memory/index.ts';
import { capBytes } from '../util/cap.ts';
import { isPlainObject, parseJson, stringify } from '../util/json.ts';
import { isChatId, type ChatSettings } from './settings.ts';

export const PEOPLE_NS = 'people';
export const ROLES: readonly Role[] = ['admin', 'user', 'guest', 'unknown'];
/** Records kept: the allowlist's chats first, then the most recently seen others. */
const RECORDS_MAX = 40;
const NAME_MAX = 48;

/** The quota fields as tools and the web name them. */
export const QUOTA_FIELDS = ['vectors', 'bytes', 'ttl_hours', 'pins'] as const;
export type QuotaField = (typeof QUOTA_FIELDS)[number];
/** Largest override accepted per field (ttl_hours also takes -1: no limit). */
export const QUOTA_MAX: Record<QuotaField, number> = { vectors: 6000, bytes: 16 * 1024 * 1024, ttl_hours: 87600, pins: 64 };

interface PersonRecord {
  chat: string;
  role?: Role;
  name?: string;
  quota?: Partial<MemoryQuota>;
}

export interface PersonView {
  chat: string;
  name: string | null;
  role: Role;
  owner: boolean;
  /** The overrides as set (0 or absent: the role default). */
  overrides: Record<QuotaField, number>;
  /** What applies now. null: unlimited. */
  quotas: Record<QuotaField, number | null>;
}

export type PeopleResult = { ok: true; person: PersonView } | { ok: false; code: 'not-allowed' | 'last-admin' | 'bad-role' | 'bad-quota'; message: string };

function toField(q: Partial<MemoryQuota>, f: QuotaField): number | undefined {
  return f === 'ttl_hours' ? q.ttlHours : q[f];
}

export class PeopleRegistry implements People {
  private records: PersonRecord[];

  constructor(
    private readonly store: Store,
    private readonly settings: ChatSettings,
  ) {
    this.records = this.load();
  }

  private load(): PersonRecord[] {
    const r = parseJson(this.store.str('list', ''));
    if (!r.ok || !Array.isArray(r.value)) return [];
    const out: PersonRecord[] = [];
    for (const v of r.value) {
      if (!isPlainObject(v) || typeof v['chat'] !== 'string') continue;
      const rec: PersonRecord = { chat: v['chat'] };
      if (typeof v['role'] === 'string' && (ROLES as readonly string[]).includes(v['role'])) rec.role = v['role'] as Role;
      if (typeof v['name'] === 'string') rec.name = v['name'];
      if (isPlainObject(v['quota'])) {
        const q: Partial<MemoryQuota> = {};
        for (const k of ['vectors', 'bytes', 'ttlHours', 'pins'] as const) if (typeof v['quota'][k] === 'number') q[k] = v['quota'][k] as number;
        rec.quota = q;
      }
      out.push(rec);
    }
    return out;
  }

  private save(next: PersonRecord[]): void {
    // Bounded: records of chats still on the allowlist are kept first.
    const allow = new Set(this.settings.allowlist());
    const kept = [...next.filter((r) => allow.has(r.chat)), ...next.filter((r) => !allow.has(r.chat)).slice(-(RECORDS_MAX - allow.size))].slice(0, RECORDS_MAX);
    this.store.set('list', stringify(kept));
    this.records = kept;
  }

  private record(chat: string): PersonRecord | null {
    return this.records.find((r) => r.chat === chat) ?? null;
  }

  ownerChat(): string | null {
    return this.settings.ownerChat();
  }

  onAllowlist(chat: string): boolean {
    return this.settings.allowlist().includes(chat);
  }

  /** A chat's role: not on the allowlist reads as unknown; the owner's chat defaults to admin, others to user. */
  roleOfChat(chat: string): Role {
    if (!this.onAllowlist(chat)) return 'unknown';
    return this.record(chat)?.role ?? (chat === this.ownerChat() ? 'admin' : 'user');
  }

  /** May this chat talk to the device (on the allowlist and not revoked)? */
  mayChat(chat: string): boolean {
    return this.roleOfChat(chat) !== 'unknown';
  }

  /** The memory and file namespace of a chat: the owner's chat is the owner's (null). */
  personOf(chat: string): string | null {
    return chat === this.ownerChat() ? null : chat;
  }

  /** Whose namespace a conversation's compaction writes to: a messenger chat's person; console, web and /mcp conversations are the owner's (null). */
  conversationPerson(conversation: string): string | null {
    return isChatId(conversation) ? this.personOf(conversation) : null;
  }

  /** The chat a person is reached at (the owner: the owner's chat). */
  chatOf(person: string | null): string | null {
    return person === null ? this.ownerChat() : person;
  }

  // --- memory's People --------------------------------------------------------

  roleOf(person: string | null): Role {
    // The owner (the web page, the console, /mcp with the device token, and the owner's chat) is always an admin.
    return person === null ? 'admin' : this.roleOfChat(person);
  }

  quotaOverride(person: string | null): Partial<MemoryQuota> | null {
    if (person === null) return null;
    return this.record(person)?.quota ?? null;
  }

  // --- the tenant tools and the web -------------------------------------------

  nameOf(chat: string): string | null {
    return this.record(chat)?.name ?? null;
  }

  /** Remembers the name a chat goes by (written only when it changed). */
  noteName(chat: string, name: string): void {
    const clean = capBytes(name.trim(), NAME_MAX);
    if (!clean || !this.onAllowlist(chat) || this.record(chat)?.name === clean) return;
    const next = this.records.filter((r) => r.chat !== chat);
    next.push({ ...(this.record(chat) ?? { chat }), name: clean });
    this.save(next);
  }

  view(chat: string): PersonView {
    const person = this.personOf(chat);
    const rec = this.record(chat);
    const role = this.roleOfChat(chat);
    const overrides = {} as Record<QuotaField, number>;
    for (const f of QUOTA_FIELDS) overrides[f] = (rec?.quota && toField(rec.quota, f)) || 0;
    // The owner's chat writes into the owner's namespace, whose quota is the owner's.
    const q = person === null ? ROLE_QUOTAS.admin : quotaFor({ roleOf: () => role, quotaOverride: () => rec?.quota ?? null }, chat);
    const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);
    return {
      chat,
      name: rec?.name ?? null,
      role,
      owner: chat === this.ownerChat(),
      overrides,
      quotas: { vectors: finite(q.vectors), bytes: finite(q.bytes), ttl_hours: q.ttlHours < 0 ? null : q.ttlHours, pins: finite(q.pins) },
    };
  }

  /** Everyone on the allowlist, in its order. */
  list(): PersonView[] {
    return this.settings.allowlist().map((c) => this.view(c));
  }

  private admins(): string[] {
    return this.settings.allowlist().filter((c) => this.roleOfChat(c) === 'admin');
  }

  setRole(chat: string, role: string): PeopleResult {
    if (!(ROLES as readonly string[]).includes(role)) return { ok: false, code: 'bad-role', message: `role must be one of ${ROLES.join(', ')}` };
    if (!this.onAllowlist(chat)) return { ok: false, code: 'not-allowed', message: `chat ${capBytes(chat, 24)} is not on the allowlist; the owner adds chats on the web page` };
    const admins = this.admins();
    if (role !== 'admin' && admins.length === 1 && admins[0] === chat) {
      return { ok: false, code: 'last-admin', message: `chat ${chat} is the last admin and cannot be demoted; make another chat an admin first` };
    }
    const next = this.records.filter((r) => r.chat !== chat);
    next.push({ ...(this.record(chat) ?? { chat }), role: role as Role });
    this.save(next);
    return { ok: true, person: this.view(chat) };
  }

  /**
   * Sets quota overrides; fields not given are unchanged, 0 restores the role
   * default. Every field is checked before anything is written.
   */
  setQuota(chat: string, fields: Partial<Record<QuotaField, unknown>>): PeopleResult {
    if (!this.onAllowlist(chat)) return { ok: false, code: 'not-allowed', message: `chat ${capBytes(chat, 24)} is not on the allowlist; the owner adds chats on the web page` };
    if (chat === this.ownerChat()) return { ok: false, code: 'bad-quota', message: `chat ${chat} is the owner's chat: it uses the owner's memory, which has no quota` };
    const quota: Partial<MemoryQuota> = { ...(this.record(chat)?.quota ?? {}) };
    for (const f of QUOTA_FIELDS) {
      const v = fields[f];
      if (v === undefined || v === null) continue;
      const min = f === 'ttl_hours' ? -1 : 0;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > QUOTA_MAX[f]) {
        return { ok: false, code: 'bad-quota', message: `${f} must be a whole number from ${min} to ${QUOTA_MAX[f]} (0 restores the role default${f === 'ttl_hours' ? ', -1 means no limit' : ''})` };
      }
      const key = f === 'ttl_hours' ? 'ttlHours' : f;
      if (v === 0) delete quota[key];
      else quota[key] = v;
    }
    const next = this.records.filter((r) => r.chat !== chat);
    const rec: PersonRecord = { ...(this.record(chat) ?? { chat }) };
    if (Object.keys(quota).length) rec.quota = quota;
    else delete rec.quota;
    next.push(rec);
    this.save(next);
    return { ok: true, person: this.view(chat) };
  }
}
