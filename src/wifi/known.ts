// The known Wi-Fi networks: up to KNOWN_MAX saved networks (name and
// passphrase), most recently joined first, kept as one JSON list in NVS
// wifi/known and replaced in one write (all or nothing). A device saved by an
// older build (wifi/ssid and wifi/pass) reads as a list of one, converted on
// the next change. Every passphrase is registered with the log redactor as
// soon as it is read or saved; nothing here ever prints one.

import type { Store } from '../core/store.ts';
import type { Redactor } from '../log/redact.ts';
import { utf8Length } from '../util/utf8.ts';
import { stringify } from '../util/json.ts';

export const KNOWN_MAX = 8;
export const SSID_MAX_BYTES = 32;
export const PASS_MIN = 8;
export const PASS_MAX = 63;

// Regular expressions are module constants: XS compiles a literal each time it is evaluated.
const CONTROL = /[\u0000-\u001f\u007f]/;
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

export interface KnownNetwork {
  ssid: string;
  /** '' for an open network. */
  pass: string;
}

/** Why a network name cannot be saved, or null. */
export function ssidProblem(ssid: unknown): string | null {
  if (typeof ssid !== 'string' || utf8Length(ssid) < 1 || utf8Length(ssid) > SSID_MAX_BYTES) return `the network name must be 1 to ${SSID_MAX_BYTES} bytes`;
  if (CONTROL.test(ssid)) return 'the network name has a control character';
  return null;
}

/** Why a passphrase cannot be saved, or null ('' is an open network). */
export function passProblem(pass: unknown): string | null {
  if (typeof pass !== 'string') return 'the passphrase must be text';
  if (pass === '') return null;
  if (pass.length < PASS_MIN || pass.length > PASS_MAX || !PRINTABLE_ASCII.test(pass)) {
    return `a Wi-Fi passphrase has ${PASS_MIN} to ${PASS_MAX} printable ASCII characters (or none for an open network)`;
  }
  return null;
}

function parse(text: string | null): KnownNetwork[] | null {
  if (text === null) return null;
  try {
    const list = JSON.parse(text) as unknown;
    if (!Array.isArray(list)) return null;
    const out: KnownNetwork[] = [];
    for (const item of list) {
      const n = item as Partial<KnownNetwork> | null;
      if (n && ssidProblem(n.ssid) === null && passProblem(n.pass) === null && !out.some((o) => o.ssid === n.ssid)) out.push({ ssid: n.ssid!, pass: n.pass! });
    }
    return out.slice(0, KNOWN_MAX);
  } catch {
    return null;
  }
}

export class KnownNetworks {
  constructor(
    private readonly store: Store,
    private readonly redactor: Redactor,
  ) {
    for (const n of this.list()) redactor.add(n.pass);
  }

  /** Most recently joined (or saved) first. */
  list(): KnownNetwork[] {
    const saved = parse(this.store.strOrNull('known'));
    if (saved) return saved;
    const ssid = this.store.strOrNull('ssid');
    return ssid !== null && ssidProblem(ssid) === null ? [{ ssid, pass: this.store.str('pass', '') }] : [];
  }

  get(ssid: string): KnownNetwork | null {
    return this.list().find((n) => n.ssid === ssid) ?? null;
  }

  /** Throws the store's error (NVS full): the caller reports it, nothing changed. */
  private write(list: KnownNetwork[]): void {
    this.store.setMany([
      ['known', stringify(list)],
      // The single-network keys of older builds go in the same write.
      ['ssid', undefined],
      ['pass', undefined],
    ]);
  }

  /**
   * Adds a network or updates its passphrase, at the front of the list. A
   * ninth network pushes out the one joined longest ago; its name is returned.
   */
  save(ssid: string, pass: string): { added: boolean; dropped: string | null } {
    const list = this.list();
    const added = !list.some((n) => n.ssid === ssid);
    const next = [{ ssid, pass }, ...list.filter((n) => n.ssid !== ssid)];
    const dropped = next.length > KNOWN_MAX ? next[next.length - 1]!.ssid : null;
    this.write(next.slice(0, KNOWN_MAX));
    this.redactor.add(pass);
    return { added, dropped };
  }

  /** Moves a joined network to the front (the tie-break among equally strong networks). */
  joined(ssid: string): void {
    const list = this.list();
    if (list[0]?.ssid === ssid || !list.some((n) => n.ssid === ssid)) return;
    const n = list.find((x) => x.ssid === ssid)!;
    this.write([n, ...list.filter((x) => x.ssid !== ssid)]);
  }

  /** Removes a saved network; false when it was not known. */
  forget(ssid: string): boolean {
    const list = this.list();
    if (!list.some((n) => n.ssid === ssid)) return false;
    this.write(list.filter((n) => n.ssid !== ssid));
    return true;
  }

  /** Renames a saved network, keeping its passphrase and place. */
  rename(from: string, to: string): 'ok' | 'unknown' | 'taken' {
    const list = this.list();
    const i = list.findIndex((n) => n.ssid === from);
    if (i < 0) return 'unknown';
    if (from !== to && list.some((n) => n.ssid === to)) return 'taken';
    list[i] = { ssid: to, pass: list[i]!.pass };
    this.write(list);
    return 'ok';
  }
}
