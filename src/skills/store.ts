// The skill capsule store. Capsules are up to 4 KB of markdown, too big for
// the 24 KB NVS partition, so their text lives on the card under
// /mem/skills/<id>.md (written new, synced, renamed over), and their index
// (author, approval, title, inject, size and a content hash) in NVS
// (namespace 'skills', key 'idx', one atomic write).
//
// Approval binds to content: the index keeps the SHA-256 (first 64 bits) of
// the text the owner approved, and a capsule whose file no longer matches it
// (a torn save, another card) reads as not approved and is not injected until
// approved again. Without a card, stored capsules are unavailable (the
// built-ins still work) and saving or approving is refused.
//
// Rules (spec, "Approval-gated objects" and the skill.* tools): skill.save
// stores an inert capsule (approved false), at most 4 agent-authored ones
// awaiting approval; a built-in id cannot be shadowed; an owner-written
// capsule cannot be replaced by the assistant; replacing an agent-authored
// capsule makes it inert again. The owner approves (web, /skill approve) or
// deletes (web, /skill deny) any stored capsule; skill.delete deletes
// agent-authored ones only. A capsule the owner writes on the web page is
// approved as written.

import type { Store } from '../core/store.ts';
import type { Clock, SdCard } from '../hal/index.ts';
import type { Log } from '../log/log.ts';
import type { Sha256Api } from '../../modules/sha256/sha256.ts';
import type { SkillCapsule } from '../agents/index.ts';
import { capBytes } from '../util/cap.ts';
import { toHex } from '../util/encoding.ts';
import { errorMessage, isPlainObject, parseJson, stringify } from '../util/json.ts';
import { decode, encode, utf8Length } from '../util/utf8.ts';
import { BUILTIN_SKILLS, SKILL_ID, SKILL_MD_MAX_BYTES, TITLE_MAX_BYTES, builtin, injects, parseCapsule } from './capsule.ts';
import { replaceEvery } from '../util/replace.ts';

export const SKILLS_NS = 'skills';
export const SKILLS_DIR = '/mem/skills';
const K_INDEX = 'idx';
// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const NEWLINES = /\r\n?/;
/** Stored capsules (the built-ins not counted). */
export const SKILLS_MAX = 16;
/** Spec: at most 4 agent-authored capsules await approval. */
export const PENDING_MAX = 4;

export type Author = 'owner' | 'model' | 'mcp';
export type SkillFail = 'bad-input' | 'not-found' | 'reserved' | 'limit' | 'refused' | 'no-card' | 'storage';
export type SkillOutcome<T> = { ok: true; value: T; message: string } | { ok: false; code: SkillFail; message: string };

interface Entry {
  id: string;
  by: Author;
  ok: boolean;
  /** Content hash of the saved (and, when ok, approved) text. */
  h: string;
  n: number;
  t: string;
  i: string;
  p: string;
  at: number;
}

export interface SkillInfo {
  id: string;
  title: string;
  inject: string;
  approved: boolean;
  created_by: Author | 'builtin';
  bytes: number;
  /** The text can be read now (a built-in, or a stored capsule on a present card). */
  available: boolean;
}

function fail<T>(code: SkillFail, message: string): SkillOutcome<T> {
  return { ok: false, code, message };
}

export interface SkillStoreDeps {
  store: Store;
  sd: SdCard;
  cardLive(): boolean;
  sha256: Sha256Api;
  clock: Clock;
  log: Log;
}

export class SkillStore {
  private entries: Entry[];

  constructor(private readonly d: SkillStoreDeps) {
    this.entries = this.load();
  }

  private load(): Entry[] {
    const r = parseJson(this.d.store.str(K_INDEX, '[]'));
    if (!r.ok || !Array.isArray(r.value)) {
      this.d.log.warn('skills', 'the skill index did not read back; starting empty');
      return [];
    }
    const out: Entry[] = [];
    for (const v of r.value) {
      if (!isPlainObject(v) || typeof v['id'] !== 'string' || !SKILL_ID.test(v['id']) || typeof v['h'] !== 'string') continue;
      out.push({
        id: v['id'],
        by: v['by'] === 'owner' || v['by'] === 'mcp' ? v['by'] : 'model',
        ok: v['ok'] === true,
        h: v['h'],
        n: typeof v['n'] === 'number' ? v['n'] : 0,
        t: typeof v['t'] === 'string' ? v['t'] : '',
        i: typeof v['i'] === 'string' ? v['i'] : '',
        p: typeof v['p'] === 'string' ? v['p'] : '',
        at: typeof v['at'] === 'number' ? v['at'] : 0,
      });
    }
    return out;
  }

  private saveIndex(next: Entry[]): void {
    this.d.store.set(K_INDEX, stringify(next));
    this.entries = next;
  }

  private path(id: string): string {
    return `${SKILLS_DIR}/${id}.md`;
  }

  private hash(md: string): string {
    const h = this.d.sha256.create();
    h.update(encode(md));
    return toHex(h.digest().subarray(0, 8));
  }

  /** The stored text, or null (no card, no file, unreadable). */
  private readFile(id: string): string | null {
    if (!this.d.cardLive()) return null;
    try {
      const st = this.d.sd.stat(this.path(id));
      if (!st || st.isDir) return null;
      return decode(this.d.sd.read(this.path(id), 0, Math.min(st.size, SKILL_MD_MAX_BYTES + 16)));
    } catch {
      return null;
    }
  }

  private info(e: Entry, text: string | null): SkillInfo {
    return { id: e.id, title: e.t, inject: e.i, approved: e.ok && text !== null && this.hash(text) === e.h, created_by: e.by, bytes: e.n, available: text !== null };
  }

  /** Every capsule: the built-ins, then the stored ones by id. */
  list(): SkillInfo[] {
    const builtins = BUILTIN_SKILLS.map((b): SkillInfo => {
      const fm = parseCapsule(b.md);
      return { id: b.id, title: fm.title, inject: fm.inject, approved: true, created_by: 'builtin', bytes: utf8Length(b.md), available: true };
    });
    const stored = [...this.entries].sort((a, b) => (a.id < b.id ? -1 : 1)).map((e) => this.info(e, this.readFile(e.id)));
    return [...builtins, ...stored];
  }

  /** One capsule with its text. */
  get(id: string): SkillOutcome<SkillInfo & { md: string }> {
    const b = builtin(id);
    if (b) return { ok: true, value: { ...this.list().find((s) => s.id === id)!, md: b.md }, message: '' };
    const e = this.entries.find((x) => x.id === id);
    if (!e) return fail('not-found', `No skill capsule has id ${id}.`);
    const text = this.readFile(id);
    if (text === null) return fail(this.d.cardLive() ? 'not-found' : 'no-card', this.d.cardLive() ? `Skill ${id}'s text is missing from the card.` : `Skill ${id} is kept on the storage card, which is not in the device.`);
    return { ok: true, value: { ...this.info(e, text), md: text }, message: '' };
  }

  storedCount(): number {
    return this.entries.length;
  }

  pendingAgent(): number {
    return this.entries.filter((e) => e.by !== 'owner' && !e.ok).length;
  }

  /** Saves a capsule; the assistant's (model, mcp) are inert until approved, the owner's are approved. */
  save(id: string, md: string, by: Author): SkillOutcome<SkillInfo> {
    if (!SKILL_ID.test(id)) return fail('bad-input', 'id must be 1 to 23 characters of a-z, 0-9, - and _');
    if (builtin(id)) return fail('reserved', `${id} is a built-in skill; its id is reserved and cannot be replaced. Choose another id.`);
    const text = replaceEvery(md, NEWLINES, '\n').trim();
    if (!text) return fail('bad-input', 'md is empty');
    if (utf8Length(text) > SKILL_MD_MAX_BYTES) return fail('bad-input', `md is longer than ${SKILL_MD_MAX_BYTES} bytes (the most a sub-agent brief carries)`);
    const existing = this.entries.find((e) => e.id === id) ?? null;
    const agent = by !== 'owner';
    if (existing && agent && existing.by === 'owner') return fail('refused', `Skill ${id} was written by the owner; the assistant cannot replace it. Choose another id.`);
    if (!existing && this.entries.length >= SKILLS_MAX) return fail('limit', `${SKILLS_MAX} skills are stored already; delete one first.`);
    const addsPending = agent && (!existing || existing.ok || existing.by === 'owner');
    if (addsPending && this.pendingAgent() >= PENDING_MAX) return fail('limit', `${PENDING_MAX} skills saved by the assistant already wait for the owner's approval; nothing was saved.`);
    if (!this.d.cardLive()) return fail('no-card', 'Skills are kept on the storage card, and no usable card is in the device; nothing was saved.');
    const fm = parseCapsule(text);
    const entry: Entry = { id, by, ok: !agent, h: this.hash(text), n: utf8Length(text), t: capBytes(fm.title, TITLE_MAX_BYTES), i: fm.inject, p: fm.provider, at: this.d.clock.synced() ? this.d.clock.wallMs() : 0 };
    const tmp = `${SKILLS_DIR}/${id}.tmp`;
    try {
      this.d.sd.mkdir(SKILLS_DIR);
      const f = this.d.sd.open(tmp, 'w');
      try {
        f.write(encode(text));
        f.sync();
      } finally {
        f.close();
      }
      this.d.sd.rename(tmp, this.path(id));
    } catch (e) {
      try {
        this.d.sd.remove(tmp);
      } catch {
        // gone with the card
      }
      return fail('storage', `the skill was not saved: ${errorMessage(e)}`);
    }
    try {
      this.saveIndex([...this.entries.filter((e) => e.id !== id), entry]);
    } catch (e) {
      // The file is new but the index is not: an old entry's hash no longer matches, so nothing unapproved is injected.
      return fail('storage', `the skill's index was not saved: ${errorMessage(e)}`);
    }
    this.d.log.info('skills', `skill ${id} saved by ${by}${agent ? ', waiting for approval' : ''}`);
    const info = this.info(entry, text);
    return {
      ok: true,
      value: info,
      message: agent ? `Saved skill ${id}. It stays inert until the owner approves it (web Skills, or /skill approve ${id}).` : `Saved skill ${id}.`,
    };
  }

  approve(id: string): SkillOutcome<SkillInfo> {
    if (builtin(id)) return { ok: true, value: this.list().find((s) => s.id === id)!, message: `${id} is a built-in skill, approved already.` };
    const e = this.entries.find((x) => x.id === id);
    if (!e) return fail('not-found', `No skill capsule has id ${id}.`);
    const text = this.readFile(id);
    if (text === null) return fail(this.d.cardLive() ? 'not-found' : 'no-card', this.d.cardLive() ? `Skill ${id}'s text is missing from the card; it cannot be approved.` : 'The storage card with the skills is not in the device.');
    const h = this.hash(text);
    if (e.ok && e.h === h) return { ok: true, value: this.info(e, text), message: `Skill ${id} is approved already.` };
    const fm = parseCapsule(text);
    const next: Entry = { ...e, ok: true, h, n: utf8Length(text), t: capBytes(fm.title, TITLE_MAX_BYTES), i: fm.inject, p: fm.provider };
    try {
      this.saveIndex(this.entries.map((x) => (x.id === id ? next : x)));
    } catch (err) {
      return fail('storage', `nothing was changed: ${errorMessage(err)}`);
    }
    this.d.log.info('skills', `skill ${id} approved`);
    const inject = injects(next.i) ? ' It is injected into sub-agent briefs that name it.' : ' Its front matter has no inject: spawn (or both), so briefs will not carry it.';
    return { ok: true, value: this.info(next, text), message: `Approved skill ${id}.${inject}` };
  }

  /** Deletes a stored capsule (the owner: any; agentOnly: only one the assistant wrote). */
  remove(id: string, agentOnly: boolean): SkillOutcome<{ id: string }> {
    if (builtin(id)) return fail('reserved', `${id} is a built-in skill and cannot be deleted.`);
    const e = this.entries.find((x) => x.id === id);
    if (!e) return fail('not-found', `No skill capsule has id ${id}.`);
    if (agentOnly && e.by === 'owner') return fail('refused', `Skill ${id} was written by the owner; only the owner can delete it.`);
    try {
      this.saveIndex(this.entries.filter((x) => x.id !== id));
    } catch (err) {
      return fail('storage', `nothing was deleted: ${errorMessage(err)}`);
    }
    if (this.d.cardLive()) {
      try {
        this.d.sd.remove(this.path(id));
      } catch {
        // an orphan file is harmless: it has no index entry, and a new save replaces it
      }
    }
    this.d.log.info('skills', `skill ${id} deleted`);
    return { ok: true, value: { id }, message: `Deleted skill ${id}.` };
  }

  /** For the sub-agent brief: the capsule's body, approval (bound to its content) and inject. */
  capsule(id: string): SkillCapsule | null {
    const b = builtin(id);
    if (b) {
      const fm = parseCapsule(b.md);
      return { md: fm.body, approved: true, inject: fm.inject };
    }
    const e = this.entries.find((x) => x.id === id);
    if (!e) return null;
    const text = this.readFile(id);
    if (text === null) return null;
    const fm = parseCapsule(text);
    return { md: fm.body, approved: e.ok && this.hash(text) === e.h, inject: fm.inject };
  }

  /** The provider an approved capsule names in its front matter (null: none). */
  provider(id: string): string | null {
    const e = this.entries.find((x) => x.id === id);
    if (!e || !e.ok || !e.p) return null;
    const c = this.capsule(id);
    return c && c.approved ? e.p : null;
  }
}
