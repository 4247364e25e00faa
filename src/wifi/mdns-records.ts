// The device's mDNS records and which of them answer a question: the host
// name's address, and for each service its PTR, SRV and TXT records and the
// service type's entry in the type enumeration (RFC 6763 §9). What is
// unique (the host's A, each instance's SRV and TXT, probed before use) and
// what is shared (the PTRs) decides the cache-flush bit (RFC 6762 §10.2),
// the response delay (§6) and what is probed (§8.1).

import {
  CLASS_ANY,
  CLASS_IN,
  joinLabels,
  nsecRdata,
  sameName,
  sameWireName,
  srvRdata,
  txtRdata,
  wireName,
  TYPE_A,
  TYPE_ANY,
  TYPE_NSEC,
  TYPE_PTR,
  TYPE_SRV,
  TYPE_TXT,
  type DnsQuestion,
  type DnsRecord,
} from '../net/dns-message.ts';

/** RFC 6762 §10: records with the host name as their name or in their data. */
export const HOST_TTL_S = 120;
/** RFC 6762 §10: every other record, 75 minutes. */
export const OTHER_TTL_S = 4500;
/** RFC 6763 §9. */
export const SERVICE_TYPES = '_services._dns-sd._udp.local';

/** A service the device advertises: type '_http', protocol 'tcp' (RFC 6763 §7), its port and TXT pairs in order. */
export interface MdnsService {
  type: string;
  protocol: 'tcp' | 'udp';
  port: number;
  /** Key/value pairs (RFC 6763 §6.3: key=value strings); never secrets. */
  txt: ReadonlyArray<readonly [string, string]>;
}

/** The names the device claims: its host label (host.local) and its service instance label. */
export interface MdnsNames {
  host: string;
  instance: string;
}

export interface OwnRecord extends DnsRecord {
  /** Probed and defended: announced and answered with the cache-flush bit. */
  unique: boolean;
}

export function hostName(names: MdnsNames): string {
  return `${names.host}.local`;
}

export function serviceName(s: MdnsService): string {
  return `${s.type}._${s.protocol}.local`;
}

export function instanceName(names: MdnsNames, s: MdnsService): string {
  return `${joinLabels([names.instance])}.${serviceName(s)}`;
}

/** Every record the device answers for, with the address it has on the station's network. */
export function recordSet(names: MdnsNames, services: readonly MdnsService[], address: Uint8Array): OwnRecord[] {
  const host = hostName(names);
  const rec = (name: string, type: number, ttl: number, rdata: Uint8Array, unique: boolean): OwnRecord => ({ name, type, cls: CLASS_IN, flush: unique, ttl, rdata, unique });
  const out: OwnRecord[] = [rec(host, TYPE_A, HOST_TTL_S, address, true)];
  for (const s of services) {
    const instance = instanceName(names, s);
    out.push(rec(serviceName(s), TYPE_PTR, OTHER_TTL_S, wireOf(instance), false));
    out.push(rec(instance, TYPE_SRV, HOST_TTL_S, srvRdata(s.port, host), true));
    out.push(rec(instance, TYPE_TXT, OTHER_TTL_S, txtRdata(s.txt), true));
    out.push(rec(SERVICE_TYPES, TYPE_PTR, OTHER_TTL_S, wireOf(serviceName(s)), false));
  }
  return out;
}

/** PTR data is a name: its uncompressed wire form (src/net/dns-message.ts keeps data so). */
const wireOf = wireName;

/** The names whose records are all unique (probed): the host and each instance. */
export function uniqueNames(records: readonly OwnRecord[]): string[] {
  const out: string[] = [];
  for (const r of records) if (r.unique && !out.some((n) => sameName(n, r.name))) out.push(r.name);
  return out;
}

/** The unique records of one name, sorted as RFC 6762 §8.2 compares them. */
export function recordsNamed(records: readonly OwnRecord[], name: string): OwnRecord[] {
  return records.filter((r) => r.unique && sameName(r.name, name));
}

/** Whether the record answers the question (RFC 6762 §6: name, type unless ANY, class unless ANY). */
export function answers(r: DnsRecord, q: DnsQuestion): boolean {
  return sameName(r.name, q.name) && (q.type === TYPE_ANY || q.type === r.type) && (q.cls === CLASS_ANY || q.cls === r.cls);
}

/**
 * RFC 6762 §6.1: the nonexistence of every type a unique name lacks, as the
 * restricted NSEC (the types that do exist, in block 0), with the TTL its
 * records have.
 */
export function nsecFor(records: readonly OwnRecord[], name: string): OwnRecord {
  const own = recordsNamed(records, name);
  const types = own.map((r) => r.type).sort((a, b) => a - b);
  const ttl = Math.min(...own.map((r) => r.ttl));
  return { name: own[0]!.name, type: TYPE_NSEC, cls: CLASS_IN, flush: true, ttl, rdata: nsecRdata(own[0]!.name, types), unique: true };
}

/** What a question gets: the records it asks for, or (for a unique name with none of that type) its NSEC. */
export function answersTo(records: readonly OwnRecord[], q: DnsQuestion): OwnRecord[] {
  const found = records.filter((r) => answers(r, q));
  if (found.length || q.type === TYPE_NSEC) return found;
  const unique = uniqueNames(records).find((n) => sameName(n, q.name));
  return unique && (q.cls === CLASS_IN || q.cls === CLASS_ANY) ? [nsecFor(records, unique)] : [];
}

/**
 * The additional records (RFC 6763 §12): a service PTR brings its SRV and
 * TXT, an SRV the address of its target, and each unique name answered its
 * NSEC (RFC 6762 §6.1: there is no AAAA); nothing already in the answers.
 */
export function additionalsFor(records: readonly OwnRecord[], answered: readonly OwnRecord[]): OwnRecord[] {
  const out: OwnRecord[] = [];
  const add = (r: OwnRecord): void => {
    if (!answered.includes(r) && !out.includes(r)) out.push(r);
  };
  for (const a of answered) {
    if (a.type !== TYPE_PTR || sameName(a.name, SERVICE_TYPES)) continue;
    for (const r of records) if ((r.type === TYPE_SRV || r.type === TYPE_TXT) && sameWireName(wireName(r.name), a.rdata)) add(r);
  }
  if ([...answered, ...out].some((r) => r.type === TYPE_SRV)) add(records.find((r) => r.type === TYPE_A)!);
  const named: string[] = [];
  for (const r of [...answered, ...out]) if (r.unique && r.type !== TYPE_NSEC && !named.some((n) => sameName(n, r.name))) named.push(r.name);
  for (const n of named) if (!answered.some((a) => a.type === TYPE_NSEC && sameName(a.name, n))) out.push(nsecFor(records, n));
  return out;
}
