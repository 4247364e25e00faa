// The device's mDNS responder (RFC 6762) for its DNS-SD records (RFC 6763,
// src/wifi/mdns-records.ts), on one multicast socket (224.0.0.251:5353) the
// HAL opens on the station's network. Each rule below names its section:
//
// - Probing (§8.1): after a random 0-250 ms, three probes 250 ms apart: "QU"
//   questions of type ANY for each unique name (the host, the service
//   instance), the records it proposes in the Authority Section. A response
//   holding another record of a name being probed is a conflict; fifteen
//   conflicts within ten seconds and each further probe waits five seconds.
// - Simultaneous probes (§8.2): another host's probe for the same name is
//   compared record by record (class, type, then data as bytes, both lists
//   sorted; equal so far, the longer list wins); the loser waits one second
//   and probes again.
// - Announcing (§8.3): 250 ms after the third probe, every record, unique
//   ones with the cache-flush bit (§10.2), three times with the interval
//   doubling from one second.
// - Answering (§6): records match on name (ASCII case aside, §16), type
//   unless ANY and class unless ANY; a unique name asked for a type it lacks
//   gets the restricted NSEC (§6.1); PTRs bring the SRV, TXT and address
//   (RFC 6763 §12). An answer holding only unique records goes at once, one
//   holding a shared PTR after 20-120 ms (400-500 ms when the query is
//   truncated); a record multicast less than a second ago (250 ms when
//   answering a probe) is not multicast again; a "QU" question gets a
//   unicast answer unless the record was last multicast over a quarter of its
//   TTL ago (§5.4); a known answer with at least half the TTL is not repeated
//   (§7.1); a query from a port other than 5353 is a legacy one (§6.7): a
//   unicast reply repeating its ID and questions, TTLs at most 10 s, no
//   cache-flush bit. Multicast responses carry ID 0 and no questions
//   (§18.1, §6), QR and AA set (§18.2, §18.4).
// - Conflicts after the claim (§9): a response holding a record with a
//   unique record's name, type and class but other data sends that name back
//   to probing; a probe that meets an owner renames it: the host
//   desk-ab12-2, -3, ..., the instance "desk-ab12 (2)", "(3)", ...
// - Goodbye (§10.1): stop(true) sends every record with TTL 0.
// - Ignored (§11, §18.3, §18.11): responses from a port other than 5353,
//   messages with a nonzero opcode or response code, messages that do not
//   parse.

import type { Clock, Timer, UdpSocket } from '../hal/index.ts';
import {
  CLASS_IN,
  compareForTiebreak,
  decodeMessage,
  encodeMessage,
  FLAG_AA,
  FLAG_QR,
  FLAG_TC,
  lowerAscii,
  sameName,
  sameRecord,
  TYPE_ANY,
  TYPE_NSEC,
  type DnsMessage,
  type DnsQuestion,
  type DnsRecord,
} from '../net/dns-message.ts';
import { additionalsFor, answersTo, hostName, recordSet, recordsNamed, serviceName, uniqueNames, type MdnsNames, type MdnsService, type OwnRecord } from './mdns-records.ts';

export const MDNS_GROUP = '224.0.0.251';
export const MDNS_PORT = 5353;
export const PROBE_WAIT_MAX_MS = 250;
export const PROBE_INTERVAL_MS = 250;
export const PROBES = 3;
export const DEFER_MS = 1000;
export const CONFLICT_WINDOW_MS = 10_000;
export const CONFLICT_BURST = 15;
export const CONFLICT_BACKOFF_MS = 5000;
/** The gaps after the first and second announcements (§8.3: at least two, one second apart, the interval at least doubling). */
export const ANNOUNCE_GAPS_MS: readonly number[] = [1000, 2000];
export const SHARED_DELAY_MS: readonly [number, number] = [20, 120];
export const TRUNCATED_DELAY_MS: readonly [number, number] = [400, 500];
export const MULTICAST_GAP_MS = 1000;
export const PROBE_ANSWER_GAP_MS = 250;
export const LEGACY_TTL_MAX_S = 10;

export type ResponderState = 'probing' | 'announcing' | 'ready' | 'stopped';

export interface ResponderDeps {
  /** The socket on the group (the HAL's net.multicast(MDNS_GROUP, MDNS_PORT)). */
  open(): UdpSocket;
  clock: Clock;
  /** A uniform number in [0, 1). */
  random(): number;
  log: { info(message: string): void; warn(message: string): void };
  /** The names changed after a conflict (the sign-in links follow the host name). */
  renamed?(names: MdnsNames): void;
}

function recordKey(r: DnsRecord): string {
  let hex = '';
  for (let i = 0; i < r.rdata.length; i++) hex += (r.rdata[i]! + 0x100).toString(16).slice(1);
  return `${r.type} ${lowerAscii(r.name)} ${hex}`;
}

export class MdnsResponder {
  state: ResponderState = 'probing';
  readonly names: MdnsNames;
  private records: OwnRecord[];
  private readonly socket: UdpSocket;
  private phase: Timer | null = null;
  private readonly pending = new Set<Timer>();
  private probesSent = 0;
  private owned = false;
  private conflictsAt: number[] = [];
  private readonly lastMulticast = new Map<string, number>();
  private hostN = 1;
  private instanceN = 1;

  constructor(
    private readonly d: ResponderDeps,
    private readonly base: MdnsNames,
    private readonly services: readonly MdnsService[],
    private readonly address: Uint8Array,
  ) {
    this.names = { ...base };
    this.records = recordSet(this.names, services, address);
    this.socket = d.open();
    this.socket.onMessage = (bytes, from, port) => this.receive(bytes, from, port);
    this.probe(this.d.random() * PROBE_WAIT_MAX_MS);
  }

  /** What the state snapshot shows. */
  view(): { host: string; instance: string; services: string[]; state: ResponderState; renamed: number } {
    return {
      host: hostName(this.names),
      instance: this.names.instance,
      services: this.services.map((s) => serviceName(s).slice(0, -'.local'.length)),
      state: this.state,
      renamed: this.hostN + this.instanceN - 2,
    };
  }

  /** Ends it; with goodbye, once the names are claimed, every record goes out with TTL 0 first (§10.1). */
  stop(goodbye: boolean): void {
    if (this.state === 'stopped') return;
    if (goodbye && this.owned) this.send(this.response(this.records.map((r) => ({ ...r, ttl: 0 })), []), MDNS_GROUP, MDNS_PORT);
    this.phase?.cancel();
    for (const t of this.pending) t.cancel();
    this.pending.clear();
    this.state = 'stopped';
    this.socket.onMessage = null;
    this.socket.close();
  }

  private later(fn: () => void, ms: number): void {
    this.phase?.cancel();
    this.phase = this.d.clock.setTimeout(() => {
      this.phase = null;
      fn();
    }, ms);
  }

  private probe(delayMs: number): void {
    this.state = 'probing';
    this.owned = false;
    this.probesSent = 0;
    this.later(() => this.sendProbe(), delayMs);
  }

  private sendProbe(): void {
    const names = uniqueNames(this.records);
    const questions: DnsQuestion[] = names.map((name) => ({ name, type: TYPE_ANY, cls: CLASS_IN, unicast: true }));
    const authorities = this.records.filter((r) => r.unique).map((r) => ({ ...r, flush: false }));
    this.send({ id: 0, flags: 0, questions, answers: [], authorities, additionals: [] }, MDNS_GROUP, MDNS_PORT);
    this.probesSent++;
    if (this.probesSent < PROBES) this.later(() => this.sendProbe(), PROBE_INTERVAL_MS);
    else this.later(() => this.announce(0), PROBE_INTERVAL_MS);
  }

  private announce(n: number): void {
    if (n === 0) {
      this.owned = true;
      this.state = 'announcing';
      this.d.log.info(`claimed ${hostName(this.names)} and "${this.names.instance}" (${this.view().services.join(', ')})`);
    }
    this.multicast(this.records, []);
    const gap = ANNOUNCE_GAPS_MS[n];
    if (gap === undefined) {
      this.state = 'ready';
      return;
    }
    this.later(() => this.announce(n + 1), gap);
  }

  private receive(bytes: Uint8Array, from: string, port: number): void {
    if (this.state === 'stopped') return;
    const m = decodeMessage(bytes);
    if (!m || (m.flags & 0x7800) !== 0 || (m.flags & 0x000f) !== 0) return;
    if (m.flags & FLAG_QR) {
      if (port === MDNS_PORT) this.heardResponse(m);
    } else if (!this.owned) this.heardWhileProbing(m);
    else this.answer(m, from, port);
  }

  /** §8.1 and §9: another host's records for a name of ours. */
  private heardResponse(m: DnsMessage): void {
    const theirs = [...m.answers, ...m.authorities, ...m.additionals].filter((r) => r.ttl > 0 && r.cls === CLASS_IN);
    const conflicted = uniqueNames(this.records).filter((name) => {
      const ours = recordsNamed(this.records, name);
      return theirs.some((t) => {
        if (!sameName(t.name, name) || ours.some((o) => sameRecord(o, t))) return false;
        // While probing, any other record of the name means it is in use; once owned, only another value of a type we hold (§9).
        return !this.owned || ours.some((o) => o.type === t.type);
      });
    });
    if (!conflicted.length) return;
    if (this.owned) {
      this.d.log.warn(`another host answers for ${conflicted.join(', ')}: probing again (RFC 6762 §9)`);
      this.probe(0);
      return;
    }
    this.rename(conflicted);
  }

  /** §8.2: a probe for a name we are probing, compared with ours. */
  private heardWhileProbing(m: DnsMessage): void {
    if (!m.authorities.length) return;
    for (const name of uniqueNames(this.records)) {
      if (!m.questions.some((q) => sameName(q.name, name))) continue;
      const theirs = m.authorities.filter((r) => sameName(r.name, name)).sort(compareForTiebreak);
      if (!theirs.length) continue;
      const ours = recordsNamed(this.records, name).sort(compareForTiebreak);
      if (tiebreak(ours, theirs) < 0) {
        this.d.log.info(`a simultaneous probe for ${name} wins the tiebreak: probing again in 1 s (RFC 6762 §8.2)`);
        this.probesSent = 0;
        this.later(() => this.sendProbe(), DEFER_MS);
        return;
      }
    }
  }

  private rename(conflicted: string[]): void {
    const now = this.d.clock.monoMs();
    this.conflictsAt = this.conflictsAt.filter((t) => now - t < CONFLICT_WINDOW_MS);
    this.conflictsAt.push(now);
    const host = hostName(this.names);
    if (conflicted.some((n) => sameName(n, host))) this.names.host = `${this.base.host}-${++this.hostN}`;
    if (conflicted.some((n) => !sameName(n, host))) this.names.instance = `${this.base.instance} (${++this.instanceN})`;
    this.records = recordSet(this.names, this.services, this.address);
    this.lastMulticast.clear();
    this.d.log.warn(`${conflicted.join(', ')} in use on the network: trying ${hostName(this.names)} and "${this.names.instance}" (RFC 6762 §9)`);
    this.d.renamed?.({ ...this.names });
    this.probe(this.conflictsAt.length >= CONFLICT_BURST ? CONFLICT_BACKOFF_MS : this.d.random() * PROBE_WAIT_MAX_MS);
  }

  /** §6: the records a query asks for, each sent the way its question and the rules say. */
  private answer(m: DnsMessage, from: string, port: number): void {
    const answered: OwnRecord[] = [];
    const unicastAsked = new Set<OwnRecord>();
    for (const q of m.questions) {
      for (const r of answersTo(this.records, q)) {
        // §7.1: a known answer with at least half the TTL is not repeated.
        if (m.answers.some((k) => sameRecord(k, r) && k.ttl >= r.ttl / 2)) continue;
        const same = answered.find((a) => sameRecord(a, r));
        const record = same ?? r;
        if (!same) answered.push(r);
        if (q.unicast) unicastAsked.add(record);
      }
    }
    if (!answered.length) return;
    if (port !== MDNS_PORT) return this.legacy(m, answered, from, port);
    const recent = (r: OwnRecord, ms: number): boolean => this.d.clock.monoMs() - (this.lastMulticast.get(recordKey(r)) ?? -Infinity) < ms;
    // §5.4: unicast unless the record was last multicast over a quarter of its TTL ago.
    const unicast = answered.filter((r) => unicastAsked.has(r) && recent(r, (r.ttl * 1000) / 4));
    if (unicast.length) this.send({ ...this.response(unicast, additionalsFor(this.records, unicast)), id: m.id }, from, port);
    const gap = m.authorities.length ? PROBE_ANSWER_GAP_MS : MULTICAST_GAP_MS;
    const multicast = answered.filter((r) => !unicast.includes(r) && !recent(r, gap));
    if (!multicast.length) return;
    if (multicast.every((r) => r.unique)) return this.multicast(multicast, additionalsFor(this.records, multicast));
    const [lo, hi] = m.flags & FLAG_TC ? TRUNCATED_DELAY_MS : SHARED_DELAY_MS;
    const t = this.d.clock.setTimeout(() => {
      this.pending.delete(t);
      // Probing again since (a conflict): nothing is answered until the names are claimed anew.
      if (!this.owned) return;
      const still = multicast.filter((r) => (this.records.includes(r) || r.type === TYPE_NSEC) && !recent(r, MULTICAST_GAP_MS));
      if (still.length) this.multicast(still, additionalsFor(this.records, still));
    }, lo + this.d.random() * (hi - lo));
    this.pending.add(t);
  }

  /** §6.7: a conventional unicast reply to a resolver that is not an mDNS querier. */
  private legacy(m: DnsMessage, answered: OwnRecord[], from: string, port: number): void {
    const cap = (r: OwnRecord): DnsRecord => ({ ...r, flush: false, ttl: Math.min(r.ttl, LEGACY_TTL_MAX_S) });
    const additionals = additionalsFor(this.records, answered).map(cap);
    const questions = m.questions.map((q) => ({ ...q, unicast: false }));
    this.send({ id: m.id, flags: FLAG_QR | FLAG_AA, questions, answers: answered.map(cap), authorities: [], additionals }, from, port);
  }

  private response(answers: DnsRecord[], additionals: DnsRecord[]): DnsMessage {
    return { id: 0, flags: FLAG_QR | FLAG_AA, questions: [], answers, authorities: [], additionals };
  }

  private multicast(answers: OwnRecord[], additionals: OwnRecord[]): void {
    const now = this.d.clock.monoMs();
    for (const r of answers) this.lastMulticast.set(recordKey(r), now);
    this.send(this.response(answers, additionals), MDNS_GROUP, MDNS_PORT);
  }

  private send(m: DnsMessage, address: string, port: number): void {
    try {
      this.socket.send(encodeMessage(m), address, port);
    } catch (e) {
      // a datagram the network refuses is lost, as any datagram may be
      this.d.log.warn(`send to ${address}:${port} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** §8.2: ours against theirs, both sorted; negative when theirs is lexicographically later (we lose). */
export function tiebreak(ours: readonly DnsRecord[], theirs: readonly DnsRecord[]): number {
  const n = Math.min(ours.length, theirs.length);
  for (let i = 0; i < n; i++) {
    const c = compareForTiebreak(ours[i]!, theirs[i]!);
    if (c !== 0) return c;
  }
  return ours.length - theirs.length;
}
