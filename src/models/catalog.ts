// The model catalog (spec: GET /api/models; Limits: model catalog refresh
// 24 hours): compiled-in knowledge (known.ts) merged with what each keyed
// provider's models endpoint lists, refreshed every 24 hours on the HAL
// clock (and on request). Per provider it answers the models with their
// roles, size class and flags.
//
// The probe decides what is shown. Once a provider's list is read:
//   - a known model the list names (exactly, or as a dated snapshot of it:
//     Anthropic lists claude-sonnet-4-5-20250929 for claude-sonnet-4-5) is
//     shown, flagged listed;
//   - a known model the list does not name is hidden (unlisted: this key
//     cannot reach it);
//   - a listed model the firmware does not know is hidden (unknown; its
//     roles and size are guessed from its name, or from Mistral's
//     capabilities), and so are dated snapshots of a shown alias
//     (snapshot) and fine-tunes (fine-tune). The custom endpoint is the
//     exception: whatever its server lists is what the owner runs, so it
//     is shown.
// Before a provider's first successful read (no key, or the endpoint
// failed) its known models are shown flagged unverified. all=1 adds the
// hidden ones, each with why. The lists live in RAM (a few KB): a reboot
// reads them again at the first refresh, two minutes after boot.

import type { Clock } from '../hal/index.ts';
import type { VerifyResult } from '../providers/index.ts';
import { PROVIDERS, type ProviderId } from '../contracts/index.ts';
import { utf8Length } from '../util/utf8.ts';
import { decode } from '../util/utf8.ts';
import { isPlainObject, parseJson } from '../util/json.ts';
import { guessRoles, guessSize, KNOWN, ROLE_DEFAULTS, type Flag, type KnownModel, type Role, type Size } from './known.ts';

export const REFRESH_EVERY_MS = 24 * 60 * 60_000;
/** The first refresh after boot (the station has joined; the update check waits as long). */
export const FIRST_REFRESH_MS = 2 * 60_000;
/** At most this many ids are kept per provider list. */
const LIST_MAX = 300;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const SNAPSHOT = /-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$/;
/** What follows an alias in a dated snapshot's id, whole. */
const SNAPSHOT_SUFFIX = /^-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$/;
const USABLE_ID = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/;

export type Hidden = 'unlisted' | 'unknown' | 'snapshot' | 'fine-tune';

export interface CatalogEntry {
  id: string;
  roles: Role[];
  size: Size;
  /** Capability flags, plus default (a role's default), listed, unverified, hidden. */
  flags: string[];
  /** Roles this model is the provider's default for. */
  defaultFor: Role[];
  /** Whether the provider's last list named it (null: no list read yet). */
  listed: boolean | null;
  /** Why the probe hides it (null: shown). */
  hidden: Hidden | null;
}

interface Probe {
  ok: boolean;
  /** Wall-clock ms of the read. */
  at: number;
  ids: string[];
  /** Mistral's per-model capabilities. */
  caps: Map<string, Record<string, unknown>>;
  error: string | null;
}

export interface CatalogWire {
  keyed(p: ProviderId): boolean;
  verifyKey(p: ProviderId, list?: boolean): Promise<VerifyResult>;
}

/** Reads the ids (and Mistral's capabilities) of a models answer in any provider's shape. */
export function parseModelList(body: Uint8Array): { ids: string[]; caps: Map<string, Record<string, unknown>> } | null {
  const doc = parseJson(decode(body));
  if (!doc.ok) return null;
  const data = isPlainObject(doc.value) ? doc.value['data'] : Array.isArray(doc.value) ? doc.value : null;
  if (!Array.isArray(data)) return null;
  const ids: string[] = [];
  const caps = new Map<string, Record<string, unknown>>();
  for (const m of data) {
    if (ids.length >= LIST_MAX) break;
    const id = isPlainObject(m) ? m['id'] : null;
    if (typeof id !== 'string' || !USABLE_ID.test(id) || utf8Length(id) > 64 || ids.includes(id)) continue;
    ids.push(id);
    if (isPlainObject(m) && isPlainObject(m['capabilities'])) caps.set(id, m['capabilities']);
  }
  return { ids, caps };
}

export class ModelCatalog {
  private probes = new Map<ProviderId, Probe>();
  private running: Promise<void> | null = null;
  /** Monotonic ms of the last refresh (null: none yet). */
  lastRefreshMono: number | null = null;
  nextRefreshMono: number;

  constructor(
    private readonly wire: CatalogWire,
    private readonly clock: Clock,
  ) {
    this.nextRefreshMono = clock.monoMs() + FIRST_REFRESH_MS;
  }

  /** Reads every keyed provider's list (one at a time); concurrent calls share one run. */
  refresh(): Promise<void> {
    if (!this.running) {
      this.running = this.run().finally(() => {
        this.running = null;
        this.lastRefreshMono = this.clock.monoMs();
        this.nextRefreshMono = this.lastRefreshMono + REFRESH_EVERY_MS;
      });
    }
    return this.running;
  }

  private async run(): Promise<void> {
    for (const p of PROVIDERS) {
      if (!this.wire.keyed(p)) {
        this.probes.delete(p);
        continue;
      }
      const v = await this.wire.verifyKey(p, true);
      const at = this.clock.wallMs();
      if (!v.ok) {
        const old = this.probes.get(p);
        // A failed read keeps the last good list (marked with the error): a network blip hides nothing.
        this.probes.set(p, old?.ok ? { ...old, error: `${v.error}: ${v.message}` } : { ok: false, at, ids: [], caps: new Map(), error: `${v.error}: ${v.message}` });
        continue;
      }
      const list = v.body ? parseModelList(v.body) : null;
      if (!list) {
        this.probes.set(p, { ok: false, at, ids: [], caps: new Map(), error: 'malformed: the models list could not be read' });
        continue;
      }
      this.probes.set(p, { ok: true, at, ids: list.ids, caps: list.caps, error: null });
    }
  }

  private defaultsOf(p: ProviderId, id: string): Role[] {
    const d = ROLE_DEFAULTS[p] ?? {};
    return (Object.keys(d) as Role[]).filter((r) => d[r] === id);
  }

  private entry(p: ProviderId, k: KnownModel, listed: boolean | null, hidden: Hidden | null): CatalogEntry {
    const defaultFor = this.defaultsOf(p, k.id);
    const flags: string[] = [...k.flags];
    if (defaultFor.length) flags.push('default');
    if (listed === true) flags.push('listed');
    if (listed === null) flags.push('unverified');
    if (hidden) flags.push(`hidden: ${hidden}`);
    return { id: k.id, roles: [...k.roles], size: k.size, flags, defaultFor, listed, hidden };
  }

  /** The provider's models; all adds the probe-hidden ones. */
  models(p: ProviderId, all = false): CatalogEntry[] {
    const probe = this.probes.get(p);
    const known = KNOWN[p];
    if (!probe || !probe.ok) return known.map((k) => this.entry(p, k, null, null));
    const out: CatalogEntry[] = [];
    const claimed = new Set<string>();
    for (const k of known) {
      const hits = probe.ids.filter((id) => id === k.id || (id.startsWith(`${k.id}-`) && SNAPSHOT_SUFFIX.test(id.slice(k.id.length))));
      for (const h of hits) claimed.add(h);
      const listed = hits.length > 0 || (p === 'custom' && k.id === 'default');
      out.push(this.entry(p, k, listed, listed ? null : 'unlisted'));
    }
    for (const id of probe.ids) {
      if (claimed.has(id) && known.some((k) => k.id === id)) continue;
      const snapshotOf = known.find((k) => id.startsWith(`${k.id}-`) && SNAPSHOT_SUFFIX.test(id.slice(k.id.length)));
      const hidden: Hidden | null = p === 'custom' ? null : id.startsWith('ft:') ? 'fine-tune' : snapshotOf || SNAPSHOT.test(id) ? 'snapshot' : 'unknown';
      const caps = probe.caps.get(id);
      let roles: Role[] = snapshotOf ? [...snapshotOf.roles] : guessRoles(id);
      const flags: Flag[] = snapshotOf ? [...snapshotOf.flags] : [];
      if (caps && !snapshotOf) {
        roles = caps['completion_chat'] === true && caps['function_calling'] === true ? ['orchestrator', 'sub-agent'] : caps['completion_chat'] === true ? ['sub-agent'] : guessRoles(id).filter((r) => r !== 'orchestrator' && r !== 'sub-agent');
        if (caps['function_calling'] === true) flags.push('tools');
        if (caps['vision'] === true) flags.push('vision');
      }
      const e: CatalogEntry = { id, roles, size: snapshotOf?.size ?? guessSize(id), flags: [...flags, 'listed', ...(snapshotOf ? [] : ['unknown']), ...(hidden ? [`hidden: ${hidden}`] : [])], defaultFor: [], listed: true, hidden };
      out.push(e);
    }
    return all ? out : out.filter((e) => e.hidden === null);
  }

  /** The model of a role for a provider: its default when the probe did not hide it, else the first shown one of that role. */
  /** The model an alternate provider runs a turn on: null where the catalog has nothing to add (its list keeps the default). */
  alternateModel(p: ProviderId): string | null {
    const m = this.modelFor(p, 'orchestrator');
    return m === ROLE_DEFAULTS[p]?.orchestrator ? null : m;
  }

  modelFor(p: ProviderId, role: Role): string | null {
    const shown = this.models(p).filter((e) => e.roles.includes(role));
    return shown.find((e) => e.defaultFor.includes(role))?.id ?? shown[0]?.id ?? null;
  }

  /** One model's entry (hidden ones included). */
  find(p: ProviderId, id: string): CatalogEntry | null {
    return this.models(p, true).find((e) => e.id === id) ?? null;
  }

  view(all: boolean): Record<string, unknown> {
    const now = this.clock.monoMs();
    const providers: Record<string, unknown> = {};
    for (const p of PROVIDERS) {
      const probe = this.probes.get(p);
      providers[p] = {
        keyed: this.wire.keyed(p),
        listed: probe?.ok === true,
        checkedAt: probe?.at ?? null,
        error: probe?.error ?? null,
        models: this.models(p, all),
      };
    }
    return {
      all,
      refreshEveryMs: REFRESH_EVERY_MS,
      lastRefreshAgoMs: this.lastRefreshMono === null ? null : now - this.lastRefreshMono,
      nextRefreshInMs: Math.max(0, this.nextRefreshMono - now),
      providers,
    };
  }
}
