// Boots the whole device: requests through the tunnel reach every subsystem's routes behind the token gate.
// The cloud relay on the in-memory HAL against the local relay
// (tools/cloud-relay.mjs) on the virtual clock: pairing, requests through
// the real tunnel with the device's own token injected, every canonical form
// of the denied routes refused with 403, token and apPass stripped, the
// relay's certificate always validated (tlsVerify off included), reconnect
// with backoff, the credential refused, CLOUDOFF, CLOUDLOOP, the stream and
// body limits, and the framing both sides speak.
import { describe, expect, it } from 'vitest';
import { boot } from '../../../src/main.ts';
import { FrameDecoder, F, frame, jsonFrame, MAX_PAYLOAD } from '../../../src/cloud/frames.ts';
import { BACKOFF_FIRST_MS, MAX_STREAMS, MAX_TRACKED, RELAY_HOST } from '../../../src/cloud/relay.ts';
import { TUNNEL_DENIED } from '../../../src/auth/tunnel-guard.ts';
import { jsonResponse } from '../../../src/net/http/errors.ts';
import { readFileSync } from 'node:fs';
import * as table from '../../../src/cloud/frame-table.ts';
import * as relayTool from '../../../tools/cloud-relay.mjs';
import { DEFAULT_ACCOUNT, Decoder, encodeFrame, type RelayResponse } from '../../../tools/cloud-relay.mjs';
import { serveRelay } from '../../support/cloud-net.ts';
import { cloudState, cmd, header, owner, pair, setup, until, type Rig } from '../../support/cloud-rig.ts';
import { rebootMemHal } from '../../support/memhal.ts';
import { fakeProvider } from '../../support/provider-fake.ts';

describe('pairing', () => {
  it('prints a code, links the device when the owner claims it, keeps the credential secret and survives a reboot', async () => {
    const rig = setup();
    const out = await cmd(rig, 'CLOUDPAIR');
    expect(out).toMatch(/^code=[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4} expiresIn=600s$/m);
    expect(await cmd(rig, 'CLOUD?')).toMatch(/state=pairing paired=no/);
    const code = /code=(\S+)/.exec(out)![1]!;
    expect(rig.relay.claim('another-account', 'WRONG-CODE')).toMatchObject({ ok: false });
    const claimed = rig.relay.claim(DEFAULT_ACCOUNT, code);
    expect(claimed.ok).toBe(true);
    const id = (claimed as { deviceId: string }).deviceId;
    await until(rig, () => cloudState(rig) === 'online');
    expect(await cmd(rig, 'CLOUD?')).toContain(`state=online paired=yes device=${id} relay=${RELAY_HOST}:443 verify=always`);
    const cred = rig.mem.nvs.get('cloud', 'cred') as string;
    expect(cred.length).toBeGreaterThan(30);
    // The credential never reaches the log, the state or the console.
    const log = (await owner(rig, id, 'GET', '/api/log')).text;
    expect(log).not.toContain(cred);
    expect(JSON.stringify(rig.device.ctx.status.snapshot())).not.toContain(cred);
    expect(await cmd(rig, 'CLOUD?')).not.toContain(cred);
    expect(await cmd(rig, 'CLOUDPAIR')).toMatch(/ERR already paired/);

    // A reboot goes online again with HELLO and the stored credential.
    rig.device.stop();
    rig.mem = rebootMemHal(rig.mem);
    rig.relay = serveRelay(rig.relay, rig.mem.net);
    rig.device = boot(rig.mem.hal);
    await until(rig, () => cloudState(rig) === 'online');
    expect((await owner(rig, id, 'GET', '/api/state')).status).toBe(200);
  });

  it('an unclaimed code expires: the device stops pairing and says why', async () => {
    const rig = setup({ pairMs: 60_000 });
    await cmd(rig, 'CLOUDPAIR');
    await rig.mem.clock.advance(61_000);
    expect(cloudState(rig)).toBe('off');
    expect(await cmd(rig, 'CLOUD?')).toMatch(/lastError=.*pair-expired/);
  });
});

describe('the tunnel', () => {
  it('replays requests with the device\'s own token: a token sent by the relay side is ignored; another account is refused by the relay', async () => {
    const rig = setup();
    const id = await pair(rig);
    const token = rig.device.ctx.token.reveal();
    const r = await owner(rig, id, 'GET', '/api/state', { headers: [['X-Device-Token', 'not-the-token'], ['Accept', 'application/json']] });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({ cloud: { state: 'online', paired: true } });
    expect(r.text).not.toContain(token);
    // POST with a form body reaches its route (the body is carried in BODY frames).
    const orch = await owner(rig, id, 'POST', '/api/orch', { headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: 'midFail=0' });
    expect(orch.status).toBe(200);
    expect(JSON.parse(orch.text)).toMatchObject({ midFail: false });
    expect((await owner(rig, id, 'GET', '/api/state', { account: 'someone-else' })).status).toBe(403);
    // Unknown routes answer 404 (the injected token passed the gate).
    expect((await owner(rig, id, 'GET', '/api/nothing-here')).status).toBe(404);
    // An answer's head, body and end leave in one write (small writes in a row would wait on TCP's delayed ACK).
    const link = rig.relay.links[rig.relay.links.length - 1]!;
    const before = link.inbox.length;
    await owner(rig, id, 'GET', '/api/state');
    expect(link.inbox.length - before).toBe(1);
    expect(new Decoder().feed(link.inbox[link.inbox.length - 1]!).map((f) => f.type)).toEqual([F.RES, F.BODY, F.END]);
    expect(rig.device.ctx.status.snapshot()).toBeTruthy();
  });

  it('refuses every canonical form of the denied routes with 403, and none of them runs', async () => {
    const rig = setup();
    const id = await pair(rig);
    const token = rig.device.ctx.token.reveal();
    const forms = (p: string): string[] => [
      p,
      p + '/',
      p + '?x=1',
      p + '/?t=abc',
      p.toUpperCase(),
      p.replace('/api/', '/ApI/'),
      p.replace('/api/', '//api//'),
      p.replace('/api/', '/api/./'),
      p.replace('/api/', '/api/files/../'),
      p.replace('/api/', '/api%2F'),
      p.replace('/api/', '/api%252F'),
      p.replace(/o/g, '%6F'),
      p.replace(/o/g, '%256f'),
      p + '%3Fq=1',
      p + '%2F',
    ];
    for (const denied of TUNNEL_DENIED) {
      for (const target of forms(denied)) {
        for (const method of ['GET', 'POST']) {
          const r = await owner(rig, id, method, target, { body: method === 'POST' ? 'code=ABCDEFGH' : '' });
          expect(r.status, `${method} ${target}`).toBe(403);
          expect(r.text).not.toContain(token);
        }
      }
    }
    // The token was never rotated, and no code was minted through the tunnel.
    expect(rig.device.ctx.token.reveal()).toBe(token);
    expect(await cmd(rig, 'CLOUD?')).toMatch(new RegExp(`denied=${TUNNEL_DENIED.length * 15 * 2}\\b`));
  });

  it('strips token and apPass values from JSON answers, and withholds an answer whose header carries the token', async () => {
    const rig = setup({ wifi: false });
    const id = await pair(rig);
    const token = rig.device.ctx.token.reveal();
    // Unprovisioned, GET / hands the token out on the LAN (a redirect to /?t=): never through the tunnel.
    const handout = await owner(rig, id, 'GET', '/');
    expect(handout.status).toBe(403);
    expect(JSON.stringify(handout.headers) + handout.text).not.toContain(token);
    // A JSON document carrying token and apPass keys loses them at any depth.
    rig.device.files.store.save(null, 'notes', 'data.json', new TextEncoder().encode(JSON.stringify({ token: 'abc', keep: 1, nested: { apPass: 'p4ss', list: [{ Token: 'x', y: 2 }] } })));
    const r = await owner(rig, id, 'GET', '/api/files/dl?project=notes&name=data.json');
    expect(r.status).toBe(200);
    expect(header(r, 'content-type')).toMatch(/application\/json/);
    expect(JSON.parse(r.text)).toEqual({ keep: 1, nested: { list: [{ y: 2 }] } });
    // A text file streams through as it is.
    rig.device.files.store.save(null, 'notes', 'a.txt', new TextEncoder().encode('x'.repeat(20_000)));
    const t = await owner(rig, id, 'GET', '/api/files/dl?project=notes&name=a.txt');
    expect(t.status).toBe(200);
    expect(t.body.length).toBe(20_000);
  });

  it('the relay sends no more than the four requests the device serves at once (the rest wait their turn); the device answers a fifth sent anyway 503; bodies over 64 KB are refused', async () => {
    const rig = setup();
    const id = await pair(rig);
    const clock = rig.mem.clock;
    let running = 0;
    let most = 0;
    rig.device.ctx.router.add({
      method: 'GET',
      path: '/api/test-slow',
      handler: () => {
        most = Math.max(most, ++running);
        return new Promise((r) =>
          clock.setTimeout(() => {
            running--;
            r(jsonResponse({ slow: true }));
          }, 1000),
        );
      },
    });
    const results: RelayResponse[] = [];
    for (let i = 0; i <= MAX_STREAMS; i++) void rig.relay.request(DEFAULT_ACCOUNT, id, { method: 'GET', target: '/api/test-slow' }).then((r) => results.push(r));
    await until(rig, () => results.length === MAX_STREAMS + 1, 10_000);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(most).toBe(MAX_STREAMS);
    // A relay that sends a fifth anyway (written straight onto the device's connection) gets 503 for it.
    const link = rig.relay.links[rig.relay.links.length - 1]!;
    const from = link.inbox.length;
    for (let i = 0; i <= MAX_STREAMS; i++) link.send(Buffer.concat([encodeFrame(F.REQ, 1001 + 2 * i, { method: 'GET', target: '/api/test-slow', headers: [], length: 0 }), encodeFrame(F.END, 1001 + 2 * i)]));
    await until(rig, () => {
      const d = new Decoder();
      return link.inbox.slice(from).flatMap((c) => d.feed(c)).filter((f) => f.type === F.END).length === MAX_STREAMS + 1;
    });
    const d = new Decoder();
    const statuses = link.inbox
      .slice(from)
      .flatMap((c) => d.feed(c))
      .filter((f) => f.type === F.RES)
      .map((f) => (JSON.parse(f.payload.toString('utf8')) as { status: number }).status);
    expect(statuses.sort()).toEqual([200, 200, 200, 200, 503]);
    // A relay that opens streams and never ends them: the device tracks 8 at most and resets the rest.
    const from2 = link.inbox.length;
    for (let i = 0; i < 12; i++) link.send(encodeFrame(F.REQ, 3001 + 2 * i, { method: 'GET', target: '/api/state', headers: [], length: 5 }));
    await until(rig, () => {
      const d2 = new Decoder();
      return link.inbox.slice(from2).flatMap((c) => d2.feed(c)).filter((f) => f.type === F.RESET).length >= 12 - MAX_TRACKED;
    });
    const d3 = new Decoder();
    const resets = link.inbox.slice(from2).flatMap((c) => d3.feed(c)).filter((f) => f.type === F.RESET);
    expect(resets.map((f) => JSON.parse(f.payload.toString('utf8')).reason)).toEqual(Array(12 - MAX_TRACKED).fill('too many open streams'));
    link.send(Buffer.concat(Array.from({ length: 12 }, (_, i) => encodeFrame(F.RESET, 3001 + 2 * i, { reason: 'gave up' }))));
    const big = await owner(rig, id, 'POST', '/api/orch', { headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: 'directive=' + 'x'.repeat(70_000) });
    expect(big.status).toBe(413);
    // The stream slots are free again.
    expect((await owner(rig, id, 'GET', '/api/state')).status).toBe(200);
    expect(rig.device.ctx.status.snapshot()).toMatchObject({ cloud: { state: 'online' } });
  });
});

describe('reconnects lose no request the relay accepted (protocol v2)', () => {
  /** A route whose handler counts its runs and answers after ms. */
  function slowRoute(rig: Rig, method: string, path: string, ms: number): { runs: () => number } {
    let runs = 0;
    rig.device.ctx.router.add({
      method,
      path,
      bodyLimit: 1024,
      handler: () => {
        runs++;
        const n = runs;
        return new Promise((r) => rig.mem.clock.setTimeout(() => r(jsonResponse({ run: n })), ms));
      },
    });
    return { runs: () => runs };
  }

  function ask(rig: Rig, id: string, method: string, target: string): { got: () => RelayResponse | null } {
    let got: RelayResponse | null = null;
    void rig.relay.request(DEFAULT_ACCOUNT, id, { method, target, ...(method === 'POST' ? { headers: [['Content-Type', 'application/json']], body: new TextEncoder().encode('{}') } : {}) }).then((r) => (got = r));
    return { got: () => got };
  }

  it('a device paired in its first seconds keeps that one connection (the boot-time start opened a second, which made the relay drop the first and its requests)', async () => {
    const rig = setup();
    const id = await pair(rig);
    slowRoute(rig, 'GET', '/api/test-get', 4000);
    const a = ask(rig, id, 'GET', '/api/test-get');
    await rig.mem.clock.advance(5000);
    await until(rig, () => a.got() !== null);
    expect(a.got()!.status).toBe(200);
    expect(rig.relay.stats.connections).toBe(1);
    expect(rig.relay.stats.replays).toBe(0);
  });

  it('a request whose link is cut while its handler runs is answered on the next connection, and runs once', async () => {
    const rig = setup();
    const id = await pair(rig);
    const post = slowRoute(rig, 'POST', '/api/test-once', 3000);
    const get = slowRoute(rig, 'GET', '/api/test-get', 3000);
    const a = ask(rig, id, 'POST', '/api/test-once');
    const b = ask(rig, id, 'GET', '/api/test-get');
    await until(rig, () => post.runs() === 1 && get.runs() === 1);
    rig.relay.cut(id);
    await until(rig, () => cloudState(rig) === 'waiting');
    await until(rig, () => a.got() !== null && b.got() !== null, 60_000);
    expect([a.got()!.status, b.got()!.status], a.got()!.body.toString() + b.got()!.body.toString()).toEqual([200, 200]);
    expect(JSON.parse(a.got()!.body.toString('utf8'))).toEqual({ run: 1 });
    expect([post.runs(), get.runs()]).toEqual([1, 1]);
    expect(rig.relay.stats.replays).toBe(2);
    // DONE let the device forget both.
    await until(rig, () => /remembered=0 /.test(rig.mem.serial.output) || true);
    expect(await cmd(rig, 'CLOUD?')).toMatch(/inFlight=0 remembered=0 /);
  });

  it('an answer lost with a link that died unseen is sent again from the device\'s keeping when the relay replays it: the handler does not run twice', async () => {
    const rig = setup();
    const id = await pair(rig);
    const post = slowRoute(rig, 'POST', '/api/test-once', 1000);
    const a = ask(rig, id, 'POST', '/api/test-once');
    await until(rig, () => post.runs() === 1);
    // The link dies where the relay cannot see: the device's answer goes nowhere.
    rig.relay.darken(id);
    await rig.mem.clock.advance(1500);
    expect(post.runs()).toBe(1);
    // The device's side of the link is reset; it comes back, and the relay replaces the dead link with the new one.
    rig.relay.links[rig.relay.links.length - 1]!.peer!.close('ECONN: reset by the network');
    await until(rig, () => a.got() !== null, 30_000);
    expect(a.got()!.status).toBe(200);
    expect(JSON.parse(a.got()!.body.toString('utf8'))).toEqual({ run: 1 });
    expect(post.runs()).toBe(1);
    // A request the relay accepted while the link was dark went nowhere: it too is replayed, and runs once.
    const b = ask(rig, id, 'POST', '/api/test-once');
    await until(rig, () => b.got() !== null, 10_000);
    expect(JSON.parse(b.got()!.body.toString('utf8'))).toEqual({ run: 2 });
  });

  it('requests for a device that just went offline wait for it; after 30 s offline they are refused at once', async () => {
    const rig = setup();
    const id = await pair(rig);
    rig.mem.net.online = false;
    rig.relay.cut(id);
    const waiting = ask(rig, id, 'GET', '/api/state');
    await rig.mem.clock.advance(5000);
    expect(waiting.got()).toBeNull();
    rig.mem.net.online = true;
    await until(rig, () => waiting.got() !== null, 30_000);
    expect(waiting.got()!.status).toBe(200);
    // Offline for longer than the grace: 502 at once.
    rig.mem.net.online = false;
    rig.relay.cut(id);
    await rig.mem.clock.advance(31_000);
    const late = ask(rig, id, 'GET', '/api/state');
    await until(rig, () => late.got() !== null);
    expect(late.got()!.status).toBe(502);
  });

  it('after a reboot, a request that may run twice is replayed; one that may not is answered 502 (the old boot may have done it)', async () => {
    const rig = setup();
    const id = await pair(rig);
    slowRoute(rig, 'POST', '/api/test-once', 5000);
    slowRoute(rig, 'GET', '/api/test-get', 5000);
    const a = ask(rig, id, 'POST', '/api/test-once');
    const b = ask(rig, id, 'GET', '/api/test-get');
    await rig.mem.clock.advance(100);
    rig.device.stop();
    rig.mem = rebootMemHal(rig.mem);
    rig.relay = serveRelay(rig.relay, rig.mem.net);
    rig.device = boot(rig.mem.hal);
    const get = slowRoute(rig, 'GET', '/api/test-get', 10);
    slowRoute(rig, 'POST', '/api/test-once', 10);
    await until(rig, () => a.got() !== null && b.got() !== null, 30_000);
    expect(a.got()!.status).toBe(502);
    expect(a.got()!.body.toString('utf8')).toMatch(/restarted/);
    expect(b.got()!.status).toBe(200);
    expect(get.runs()).toBe(1);
  });
});

describe('the relay\'s certificate', () => {
  it('is always validated: with tlsVerify off, a relay with an untrusted certificate is refused (while other HTTPS is not checked)', async () => {
    const rig = setup({ trusted: false, tlsVerify: false });
    const out = await cmd(rig, 'CLOUDPAIR');
    expect(out).toMatch(/^ERR .*certificate/m);
    const attempt = rig.mem.net.attempts.find((a) => a.host === RELAY_HOST)!;
    expect(attempt.tls).toMatchObject({ serverName: RELAY_HOST, verify: true });
    expect(attempt.tls!.caBundle).toContain('BEGIN CERTIFICATE');
    expect(cloudState(rig)).toBe('off');
    // The switch really is off for everything else: an untrusted server is reached.
    fakeProvider(rig.mem.net, 'self-made.example', 443, () => ({ status: 200, body: { ok: true } }), { trusted: false });
    let got: unknown = null;
    void rig.device.ctx.client.request({ method: 'GET', url: 'https://self-made.example/' }).then((r) => (got = r));
    await until(rig, () => got !== null);
    expect(got).toMatchObject({ ok: true });
  });
});

describe('staying online', () => {
  it('reconnects with a growing backoff, resets it once online, and keeps the link alive with pings', async () => {
    const rig = setup();
    const id = await pair(rig);
    const framesBefore = rig.relay.stats.frames;
    await rig.mem.clock.advance(35_000);
    expect(rig.relay.stats.frames).toBeGreaterThan(framesBefore); // a PING went up and was answered
    expect(cloudState(rig)).toBe('online');
    // The network goes down and the link is cut: the device waits, then retries, each wait longer.
    rig.mem.net.online = false;
    rig.relay.cut();
    await until(rig, () => cloudState(rig) === 'waiting');
    const retryIn = async (): Promise<number> => Number(/retryIn=(\d+)s/.exec(await cmd(rig, 'CLOUD?'))?.[1]);
    const first = await retryIn();
    expect(first).toBeLessThanOrEqual(Math.ceil((BACKOFF_FIRST_MS * 1.25) / 1000));
    for (let i = 0; i < 2; i++) {
      const before = rig.mem.net.attempts.length;
      await until(rig, () => rig.mem.net.attempts.length > before);
      await until(rig, () => cloudState(rig) === 'waiting');
    }
    expect(await retryIn()).toBeGreaterThan(first);
    // Back online: HELLO with the stored credential, and the owner reaches it again.
    rig.mem.net.online = true;
    await until(rig, () => cloudState(rig) === 'online', 60_000);
    expect((await owner(rig, id, 'GET', '/api/state')).status).toBe(200);
    expect(await cmd(rig, 'CLOUD?')).toMatch(/reconnects=3 /);
  });

  it('forgets a credential the relay no longer accepts', async () => {
    const rig = setup();
    const id = await pair(rig);
    rig.relay.revoke(id);
    await until(rig, () => cloudState(rig) === 'off', 30_000);
    expect(rig.mem.nvs.get('cloud', 'cred')).toBeUndefined();
    expect(await cmd(rig, 'CLOUD?')).toMatch(/paired=no .*\n.*lastError=the relay refused this device \(unknown-device\): pair again/);
  });
});

describe('console', () => {
  it('CLOUDLOOP goes through the relay when online (the guard and stripping included), through the tunnel path alone otherwise', async () => {
    const rig = setup();
    const local = await cmd(rig, 'CLOUDLOOP /api/state');
    expect(local).toMatch(/^via=local status=200 bytes=\d+ type=application\/json secrets=none$/m);
    expect(await cmd(rig, 'CLOUDLOOP /api/%63onnect')).toMatch(/via=local status=403/);
    await pair(rig);
    const out = await cmd(rig, 'CLOUDLOOP');
    expect(out).toMatch(/^via=relay status=200 bytes=\d+ type=application\/json secrets=none$/m);
    expect(out).toMatch(/^body: \{/m);
    expect(await cmd(rig, 'CLOUDLOOP /API/SIGNIN/CODE/')).toMatch(/via=relay status=403/);
    expect(rig.relay.stats.loops).toBe(2);
    expect(await cmd(rig, 'CLOUDLOOP nope')).toMatch(/^ERR usage/m);
  });

  it('CLOUDOFF tells the relay to forget the device and forgets the credential; the routes do the same for the web page', async () => {
    const rig = setup();
    await pair(rig);
    expect(rig.relay.devices()).toHaveLength(1);
    expect(await cmd(rig, 'CLOUDOFF')).toMatch(/unpaired/);
    await until(rig, () => rig.relay.devices().length === 0);
    expect(rig.mem.nvs.get('cloud', 'cred')).toBeUndefined();
    expect(await cmd(rig, 'CLOUDOFF')).toMatch(/already off/);
    expect(await cmd(rig, 'CLOUD?')).toMatch(/state=off paired=no/);
  });
});

describe('framing', () => {
  it('the firmware and the relay read each other\'s frames, whole or cut anywhere; a bad length is an error', () => {
    const a = jsonFrame(F.REQ, 7, { method: 'GET', target: '/x' });
    const b = frame(F.BODY, 7, new Uint8Array([1, 2, 3]));
    const both = new Uint8Array([...a, ...b]);
    for (let cut = 0; cut <= both.length; cut++) {
      const d = new Decoder();
      const got = [...d.feed(both.subarray(0, cut)), ...d.feed(both.subarray(cut))];
      expect(got.map((f) => [f.type, f.stream, f.payload.length])).toEqual([
        [F.REQ, 7, a.length - 9],
        [F.BODY, 7, 3],
      ]);
    }
    const fd = new FrameDecoder();
    const relayFrames = Buffer.concat([encodeFrame(F.PAIRCODE, 0, { code: 'ABCD-EFGH', expiresInMs: 1 }), encodeFrame(F.END, 3)]);
    const out = [...fd.feed(relayFrames.subarray(0, 5)), ...fd.feed(relayFrames.subarray(5))];
    expect(out.map((f) => [f.type, f.stream])).toEqual([
      [F.PAIRCODE, 0],
      [F.END, 3],
    ]);
    const bad = new FrameDecoder();
    bad.feed(new Uint8Array([0, 1, 0, 0, 0x10, 0, 0, 0, 1]));
    expect(bad.error).toMatch(/bad frame length/);
    expect(() => frame(F.BODY, 1, new Uint8Array(MAX_PAYLOAD + 1))).toThrow();
  });
});

describe('the frame table', () => {
  it('has one source: the relay speaks the firmware\'s table (types, sizes, version) and keeps no copy of it', () => {
    expect(relayTool.FRAME_TABLE_MODULE).toBe('src/cloud/frame-table.ts');
    expect(relayTool.F).toEqual(table.F);
    expect(relayTool.PROTOCOL_VERSION).toBe(table.PROTOCOL_VERSION);
    expect(relayTool.PROTOCOL_VERSIONS).toContain(table.PROTOCOL_VERSION);
    expect(relayTool.MAX_PAYLOAD).toBe(table.MAX_PAYLOAD);
    const source = readFileSync(new URL('../../../tools/cloud-relay.mjs', import.meta.url), 'utf8');
    // A frame type written out in the relay (HELLO: 0x01 ...) would be a second table to drift.
    for (const name of Object.keys(table.F)) expect(source).not.toMatch(new RegExp(`\\b${name}\\s*:\\s*0x`));
    expect(encodeFrame(table.F.PING, 0, 'x')).toEqual(Buffer.from(frame(table.F.PING, 0, 'x')));
  });
});
