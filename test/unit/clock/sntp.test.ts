// The SNTP packets (src/clock/sntp.ts): the request, and every check on a
// reply, against answers a real server gave (chronyd 4.3 from Debian 12,
// recorded in test/fixtures/ntp/: its answer to this client's request, and
// its answer while it had no time source itself), against the simulator's
// time server, and fuzzed: no datagram from the network can throw or set
// the clock unless it echoes the request's nonce.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MIN_VALID_WALL_MS, ntpToUnixMs, readSntpReply, sntpRequest, writeNtpTime, type SntpRequest } from '../../../src/clock/sntp.ts';
import { ntpAnswer } from '../../../hosts/sim/board/timeserver.ts';

interface Recorded {
  server: string;
  request: string;
  reply: string;
  sentMono: number;
  receivedMono: number;
  hostWallAtReceive: number;
}

const fixture = (name: string): Recorded => JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/ntp', name), 'utf8')) as Recorded;
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'hex'));

/** The request as the client made it for the recording (its nonce is bytes 40-47). */
function recordedRequest(r: Recorded): SntpRequest {
  const packet = hex(r.request);
  return { packet, nonce: packet.slice(40, 48), sentMono: r.sentMono };
}

const fill = (seed: number[]) => (b: Uint8Array) => b.set(seed.slice(0, b.length));
const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);

describe('SNTP request', () => {
  it('is 48 bytes: version 4, client mode, a random transmit timestamp and nothing else', () => {
    const req = sntpRequest(fill([1, 2, 3, 4, 5, 6, 7, 8]), 100);
    expect(req.packet).toHaveLength(48);
    expect(req.packet[0]).toBe(0x23);
    expect([...req.packet.subarray(1, 40)].every((b) => b === 0)).toBe(true);
    expect([...req.packet.subarray(40)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...req.nonce]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // A random source that gives zeros still makes a request servers answer.
    expect([...sntpRequest(() => {}, 0).nonce].some((b) => b !== 0)).toBe(true);
  });

  it('is the request chronyd answered (the recording was made with this code)', () => {
    const r = fixture('chrony-4.3-answer.json');
    expect(Buffer.from(sntpRequest(fill([...hex(r.request).subarray(40)]), 0).packet).toString('hex')).toBe(r.request);
  });
});

describe('SNTP reply', () => {
  it("takes chronyd's answer: the time it served, to within the round trip", () => {
    const r = fixture('chrony-4.3-answer.json');
    const got = readSntpReply(recordedRequest(r), hex(r.reply), r.receivedMono);
    expect(got).toMatchObject({ ok: true, stratum: 3 });
    if (!got.ok) return;
    // chronyd (run with -x) served this host's clock; the recording read the same clock at T4.
    expect(Math.abs(got.wallMs - r.hostWallAtReceive)).toBeLessThan(r.receivedMono - r.sentMono + 5);
    expect(got.roundTripMs).toBeGreaterThanOrEqual(0);
    expect(got.roundTripMs).toBeLessThanOrEqual(r.receivedMono - r.sentMono);
  });

  it("refuses chronyd's answer while it has no time source (leap 3, stratum 0, no kiss code): not a Kiss-o'-Death", () => {
    const r = fixture('chrony-4.3-unsynchronised.json');
    expect(readSntpReply(recordedRequest(r), hex(r.reply), r.receivedMono)).toEqual({ ok: false, kind: 'bad', reason: 'stratum 0: the server is not synchronized' });
  });

  it('computes the time at T4 from T3, the round trip and the hold time', () => {
    const req = sntpRequest(fill([9, 9, 9, 9, 9, 9, 9, 9]), 1000);
    const reply = ntpAnswer(req.packet, NOW)!;
    writeNtpTime(reply, 32, NOW - 50); // received 50 ms before it answered
    // Sent at mono 1000, back at 1250: 250 ms elapsed, 50 held, so 200 on the wire, 100 each way.
    const got = readSntpReply(req, reply, 1250);
    expect(got).toMatchObject({ ok: true, roundTripMs: 200, stratum: 2 });
    expect(got.ok && got.wallMs).toBeCloseTo(NOW + 100, 3);
  });

  it('reads times past 2036 (NTP era 1) and writes them back', () => {
    for (const t of [Date.UTC(2036, 1, 7, 6, 28, 15), Date.UTC(2036, 1, 7, 6, 28, 17), Date.UTC(2040, 0, 1), Date.UTC(2099, 11, 31, 23, 59, 59, 500)]) {
      const b = new Uint8Array(8);
      writeNtpTime(b, 0, t);
      expect(ntpToUnixMs(b, 0)).toBeCloseTo(t, 3);
    }
    const req = sntpRequest(fill([7, 7, 7, 7, 7, 7, 7, 7]), 0);
    const got = readSntpReply(req, ntpAnswer(req.packet, Date.UTC(2040, 5, 1))!, 0);
    expect(got.ok && got.wallMs).toBeCloseTo(Date.UTC(2040, 5, 1), 3);
  });

  it('ignores what does not answer this request: short, not server mode, another nonce', () => {
    const req = sntpRequest(fill([1, 1, 1, 1, 1, 1, 1, 1]), 0);
    const good = ntpAnswer(req.packet, NOW)!;
    expect(readSntpReply(req, good.subarray(0, 47), 0)).toMatchObject({ ok: false, kind: 'ignore' });
    const client = good.slice();
    client[0] = (client[0]! & ~7) | 3;
    expect(readSntpReply(req, client, 0)).toMatchObject({ ok: false, kind: 'ignore', reason: 'mode 3, not a server reply' });
    const other = good.slice();
    other[31] ^= 1;
    expect(readSntpReply(req, other, 0)).toEqual({ ok: false, kind: 'ignore', reason: 'not an answer to this request' });
    const v0 = good.slice();
    v0[0] = v0[0]! & ~0x38;
    expect(readSntpReply(req, v0, 0)).toMatchObject({ ok: false, kind: 'ignore', reason: 'version 0' });
  });

  it("refuses a Kiss-o'-Death with its code, an unsynchronized server, a time before 2025, and no transmit time", () => {
    const req = sntpRequest(fill([2, 2, 2, 2, 2, 2, 2, 2]), 0);
    expect(readSntpReply(req, ntpAnswer(req.packet, NOW, 'kod', 'RATE')!, 0)).toMatchObject({ ok: false, kind: 'kiss', code: 'RATE' });
    expect(readSntpReply(req, ntpAnswer(req.packet, NOW, 'unsynced')!, 0)).toMatchObject({ ok: false, kind: 'bad', reason: expect.stringMatching(/not synchronized/) });
    const leap3 = ntpAnswer(req.packet, NOW)!;
    leap3[0] |= 0xc0;
    expect(readSntpReply(req, leap3, 0)).toMatchObject({ ok: false, kind: 'bad', reason: expect.stringMatching(/leap indicator 3/) });
    expect(readSntpReply(req, ntpAnswer(req.packet, MIN_VALID_WALL_MS - 60_000)!, 0)).toMatchObject({ ok: false, kind: 'bad', reason: 'the time it gave is before 2025' });
    const noTx = ntpAnswer(req.packet, NOW)!;
    noTx.fill(0, 40, 48);
    expect(readSntpReply(req, noTx, 0)).toMatchObject({ ok: false, kind: 'bad', reason: 'no transmit timestamp' });
  });

  it('never throws on any datagram, and sets a time only for a reply carrying the nonce', () => {
    const req = sntpRequest(fill([0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4]), 0);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }), (bytes, t4) => {
        const r = readSntpReply(req, bytes, t4);
        if (r.ok) {
          expect([...bytes.subarray(24, 32)]).toEqual([...req.nonce]);
          expect(r.wallMs).toBeGreaterThanOrEqual(MIN_VALID_WALL_MS);
        }
      }),
      { numRuns: 3000 },
    );
    // Mutations of a good answer: any byte, any value.
    const good = ntpAnswer(req.packet, NOW)!;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(47), fc.nat(255)), { maxLength: 6 }), (edits) => {
        const b = good.slice();
        for (const [at, v] of edits) b[at] = v;
        const r = readSntpReply(req, b, 10);
        if (r.ok) expect(r.wallMs).toBeGreaterThanOrEqual(MIN_VALID_WALL_MS);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("the simulator's time server (the answer the board gives on port 123)", () => {
  it('answers a client request: server mode, the version asked, the nonce as originate, the time served', () => {
    const req = sntpRequest(fill([5, 4, 3, 2, 1, 0, 9, 8]), 0);
    const a = ntpAnswer(req.packet, NOW)!;
    expect(a[0]).toBe(0x24);
    expect(a[1]).toBe(2);
    expect([...a.subarray(24, 32)]).toEqual([...req.nonce]);
    expect(ntpToUnixMs(a, 40)).toBeCloseTo(NOW, 3);
    const v3 = req.packet.slice();
    v3[0] = 0x1b;
    expect(ntpAnswer(v3, NOW)![0]).toBe(0x1c);
  });

  it('drops what ntpd and chrony drop: short, not client mode, version 0 or above 4, and no transmit time', () => {
    const req = sntpRequest(fill([1, 1, 1, 1, 1, 1, 1, 1]), 0).packet;
    expect(ntpAnswer(req.subarray(0, 47), NOW)).toBeNull();
    expect(ntpAnswer(Uint8Array.from(req, (b, i) => (i === 0 ? 0x24 : b)), NOW)).toBeNull();
    expect(ntpAnswer(Uint8Array.from(req, (b, i) => (i === 0 ? 0x03 : b)), NOW)).toBeNull();
    expect(ntpAnswer(Uint8Array.from(req, (b, i) => (i === 0 ? 0x2b : b)), NOW)).toBeNull();
    expect(ntpAnswer(new Uint8Array(48).fill(0).map((_, i) => (i === 0 ? 0x23 : 0)), NOW)).toBeNull();
    expect(ntpAnswer(req, NOW, 'silent')).toBeNull();
  });
});
