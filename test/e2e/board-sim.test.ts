// The simulated board (hosts/sim/board) against the real runtime, with the
// probe firmware (test/e2e/fixtures/board-probe.ts) as the device's app:
// NVS, SD, flash/OTA/rollback, crashes, watchdog, TCP/TLS, console over stdio
// and pty, display snapshots. Every board runs on a temporary device folder.

import { execFileSync } from 'node:child_process';
import { copyFileSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { connect as netConnect, createServer, type Server, type Socket } from 'node:net';
import { createSocket } from 'node:dgram';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { ReadStream } from 'node:tty';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlJson } from '../../hosts/sim/board/control-client.ts';
import { encodeFrame, FrameDecoder } from '../../hosts/sim/board/frames.ts';
import type { BoardRun} from './fixtures/board-harness.ts';
import { buildProbe, cleanup, startBoard, tempDir } from './fixtures/board-harness.ts';

let images: Record<string, string>;
const servers: Array<Server | TlsServer> = [];

beforeAll(async () => {
  images = await buildProbe(tempDir('board-img-'), {
    probe: {},
    v9: { version: 'v9.9.9' },
    crash: { version: 'v6.6.6', defines: { PROBE_CRASH_AT_BOOT: 'true' } },
  });
});

afterAll(async () => {
  for (const s of servers) s.close();
  await cleanup();
});

const hexOf = (s: string): { $hex: string } => ({ $hex: Buffer.from(s).toString('hex') });

function listen<T extends Server | TlsServer>(server: T): Promise<number> {
  servers.push(server);
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
}

describe('frame codec', () => {
  it('decodes frames split at every kind of boundary, including a multi-megabyte one', () => {
    const frames = [
      { kind: 1, id: 1, json: '{"op":"a"}', bin: Buffer.alloc(0) },
      { kind: 3, id: 2, json: '{"op":"b","s":"é"}', bin: Buffer.from([1, 2, 3]) },
      { kind: 1, id: 3, json: '{}', bin: Buffer.alloc(5 * 1024 * 1024, 9) },
      { kind: 3, id: 4, json: '', bin: Buffer.from('x') },
    ];
    const wire = Buffer.concat(frames.flatMap((f) => encodeFrame(f.kind, f.id, f.json, f.bin)));
    // byte-sized reads only around the small frames (the big one would take seconds that way)
    const bigAt = Buffer.concat(frames.slice(0, 2).flatMap((f) => encodeFrame(f.kind, f.id, f.json, f.bin))).length;
    for (const cut of [1, 3, 4, 13, 100, 4093, 65536, wire.length]) {
      const d = new FrameDecoder();
      const out = [];
      const step = (at: number): number => (cut < 100 && at >= bigAt + 20 && at < wire.length - 40 ? 65536 : cut);
      for (let at = 0; at < wire.length; ) {
        const n = Math.min(step(at), wire.length - at);
        out.push(...d.push(wire.subarray(at, at + n)));
        at += n;
      }
      expect(out.map((f) => [f.kind, f.id, f.json, f.bin.length])).toEqual(frames.map((f) => [f.kind, f.id, f.json, f.bin.length]));
      expect(out[2]!.bin.every((x) => x === 9)).toBe(true);
      expect(d.pending).toBe(0);
    }
    expect(() => new FrameDecoder().push(Buffer.from([1, 0, 0, 0, 1]))).toThrow(/malformed/);
  });
});

describe('board with the probe firmware (panel-35, stdio console)', () => {
  let b: BoardRun;

  beforeAll(async () => {
    const dir = tempDir('board-a-');
    b = await startBoard(dir, ['--image', images['probe']!, '--watchdog-ms', '1500', '--sd-size', String(64 * 1024 * 1024)]);
    await b.request('wait', { for: 'ready', timeoutMs: 10_000 });
  });

  it('boots from slot 0 with reason power-on and prints the console and notifier lines', async () => {
    const info = await b.cmd({ cmd: 'info' });
    expect(info).toMatchObject({ ok: true, reason: 'power-on', slot: 0, board: { type: 'panel-35', display: { width: 480, height: 320 } }, build: { version: 'v0.1.0', testBuild: true } });
    await b.waitStdout(/^Console: stdio$/m);
    await b.waitStdout(/^HTTP: off \(Notifier mode\)$/m);
    const st = await b.request('status');
    expect(st).toMatchObject({ state: 'running', bootCount: 1, runningSlot: 0, resetReason: 'power-on', failedBoots: 0 });
  });

  it('NVS: round trip of strings, integers and blobs; ESP-IDF limits; setMany all or nothing', async () => {
    expect((await b.call('nvs.set', 'app', 'name', 'déjà vu')).ok).toBe(true);
    await b.call('nvs.set', 'app', 'count', -42);
    await b.call('nvs.set', 'app', 'blob', { $hex: '00ff10' });
    expect((await b.call('nvs.get', 'app', 'name')).result).toBe('déjà vu');
    expect((await b.call('nvs.get', 'app', 'count')).result).toBe(-42);
    expect((await b.call('nvs.get', 'app', 'blob')).result).toEqual({ $hex: '00ff10' });
    expect((await b.call('nvs.get', 'app', 'missing')).result).toBeNull();
    expect((await b.call('nvs.keys', 'app')).result).toEqual(['blob', 'count', 'name']);

    const limits: Array<[string, unknown[]]> = [
      ['key of 16 bytes', ['app', 'k'.repeat(16), 1]],
      ['empty key', ['app', '', 1]],
      ['namespace of 16 bytes', ['n'.repeat(16), 'k', 1]],
      ['string of 4001 bytes', ['app', 'k', 'x'.repeat(4001)]],
      ['integer past i32', ['app', 'k', 2 ** 31]],
      ['fraction', ['app', 'k', 1.5]],
      ['blob over 64 KB', ['app', 'k', { $hex: '00'.repeat(65537) }]],
    ];
    for (const [what, args] of limits) {
      const r = await b.call('nvs.set', ...args);
      expect(r, what).toMatchObject({ ok: false, code: 'EINVAL' });
    }
    expect((await b.call('nvs.set', 'app', 'k'.repeat(15), 'x'.repeat(4000))).ok).toBe(true);
    // one bad entry: nothing of the batch is written
    const bad = await b.call('nvs.setMany', 'app', [['a1', 'one'], ['a2', 2 ** 40]]);
    expect(bad).toMatchObject({ ok: false, code: 'EINVAL' });
    expect((await b.call('nvs.get', 'app', 'a1')).result).toBeNull();
    await b.call('nvs.setMany', 'app', [['a1', 'one'], ['name', null]]);
    expect((await b.call('nvs.get', 'app', 'a1')).result).toBe('one');
    expect((await b.call('nvs.get', 'app', 'name')).result).toBeNull();
    await b.call('nvs.delete', 'app', 'a1');
    expect((await b.call('nvs.get', 'app', 'a1')).result).toBeNull();
    // the 24 KB partition fills up (ESP-IDF's entry accounting)
    let full: ControlJson | null = null;
    for (let i = 0; i < 12 && !full; i++) {
      const r = await b.call('nvs.set', 'big', `b${i}`, { $hex: '11'.repeat(4000) });
      if (!r.ok) full = r;
    }
    expect(full).toMatchObject({ ok: false, code: 'ENOSPC' });
    await b.call('nvs.erase', 'big');
    expect((await b.call('nvs.keys', 'big')).result).toEqual([]);
    const onDisk = JSON.parse(readFileSync(join(b.dir, 'nvs.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(onDisk['app']!['count']).toEqual({ t: 'i', v: -42 });
    expect(onDisk['big']).toBeUndefined();
  });

  it('SD: files and folders, path rules, ENOSPC at capacity, ENOCARD when pulled', async () => {
    const probe = (await b.call('sd.probe')).result as ControlJson;
    expect(probe).toMatchObject({ present: true, totalBytes: 64 * 1024 * 1024 });
    expect((await b.call('sd.mkdir', '/a/b/c')).ok).toBe(true);
    expect((await b.cmd({ cmd: 'fopen', h: 'f', path: '/a/b/c/x.txt', mode: 'w' })).ok).toBe(true);
    expect(await b.cmd({ cmd: 'fwrite', h: 'f', text: 'hello ' })).toMatchObject({ size: 6 });
    expect(await b.cmd({ cmd: 'fwrite', h: 'f', text: 'card' })).toMatchObject({ size: 10 });
    await b.cmd({ cmd: 'fclose', h: 'f' });
    expect(readFileSync(join(b.dir, 'sd/a/b/c/x.txt'), 'utf8')).toBe('hello card');
    expect((await b.call('sd.read', '/a/b/c/x.txt', 6, 100)).result).toEqual(hexOf('card'));
    expect((await b.call('sd.stat', '/a/b/c/x.txt')).result).toMatchObject({ size: 10, isDir: false });
    expect((await b.call('sd.stat', '/nope')).result).toBeNull();
    expect((await b.call('sd.list', '/a/b/c')).result).toEqual([{ name: 'x.txt', isDir: false, size: 10 }]);
    expect((await b.call('sd.rename', '/a/b/c/x.txt', '/a/y.txt')).ok).toBe(true);
    expect((await b.call('sd.list', '/a')).result).toEqual([{ name: 'b', isDir: true, size: 0 }, { name: 'y.txt', isDir: false, size: 10 }]);
    expect(await b.call('sd.read', '/a/b/c/x.txt', 0, 1)).toMatchObject({ ok: false, code: 'ENOENT' });
    expect(await b.call('sd.read', '/a/../etc/passwd', 0, 1)).toMatchObject({ ok: false, code: 'EINVAL' });
    expect(await b.call('sd.read', 'relative', 0, 1)).toMatchObject({ ok: false, code: 'EINVAL' });
    expect(await b.call('sd.list', '/a/y.txt')).toMatchObject({ ok: false, code: 'ENOTDIR' });
    expect(await b.call('sd.remove', '/a/b')).toMatchObject({ ok: false, code: 'ENOTEMPTY' });
    expect((await b.call('sd.remove', '/a/b/c')).ok).toBe(true);
    expect((await b.call('sd.remove', '/does/not/exist')).ok).toBe(true);

    // capacity: a little room left, then the card is full
    const used = ((await b.request('status')).sd as ControlJson)['usedBytes'] as number;
    await b.request('sd.size', { bytes: used + 1000 });
    await b.cmd({ cmd: 'fopen', h: 'g', path: '/full.bin', mode: 'w' });
    expect((await b.cmd({ cmd: 'fwrite', h: 'g', hex: '00'.repeat(900) })).ok).toBe(true);
    expect(await b.cmd({ cmd: 'fwrite', h: 'g', hex: '00'.repeat(200) })).toMatchObject({ ok: false, code: 'ENOSPC' });
    await b.cmd({ cmd: 'fclose', h: 'g' });
    expect((await b.call('sd.probe')).result).toMatchObject({ freeBytes: 100 });
    await b.request('sd.size', { bytes: 64 * 1024 * 1024 });

    // a 5 MB frame each way through the pipe
    expect(await b.cmd({ cmd: 'bigio', path: '/big.bin', bytes: 5 * 1024 * 1024 })).toMatchObject({ ok: true, same: true });
    expect(readFileSync(join(b.dir, 'sd/big.bin')).length).toBe(5 * 1024 * 1024);
    await b.call('sd.remove', '/big.bin');

    await b.request('sd.remove');
    expect((await b.call('sd.probe')).result).toEqual({ present: false, totalBytes: null, freeBytes: null });
    expect(await b.call('sd.stat', '/a')).toMatchObject({ ok: false, code: 'ENOCARD' });
    expect(await b.call('sd.mkdir', '/z')).toMatchObject({ ok: false, code: 'ENOCARD' });
    await b.request('sd.insert');
    expect((await b.call('sd.stat', '/a')).result).toMatchObject({ isDir: true });
  });

  it('TCP: the firmware listens; a real client connects, sends, reads the echo, closes', async () => {
    const { port } = (await b.cmd({ cmd: 'listen', port: 0, mode: 'echo' })) as { port: number };
    expect(port).toBeGreaterThan(0);
    const client: Socket = netConnect({ host: '127.0.0.1', port });
    const echoed = await new Promise<string>((resolve, reject) => {
      let got = '';
      client.on('data', (d) => {
        got += d.toString();
        if (got.length >= 11) resolve(got);
      });
      client.on('error', reject);
      client.write('hello board');
    });
    expect(echoed).toBe('hello board');
    client.end();
    const closed = await b.request<{ line: string }>('wait', { for: 'log', match: 'probe:closed', timeoutMs: 5000 });
    expect(closed.line).toMatch(/"total":11/);
  });

  it('TCP throughput through the board on loopback (both directions)', async () => {
    const size = 32 * 1024 * 1024;
    const { port } = (await b.cmd({ cmd: 'listen', port: 0, mode: 'sink' })) as { port: number };
    const chunk = Buffer.alloc(256 * 1024, 7);
    const t0 = performance.now();
    const client = netConnect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => {
      let sent = 0;
      const pump = (): void => {
        while (sent < size) {
          sent += chunk.length;
          if (!client.write(chunk)) return void client.once('drain', pump);
        }
        client.end(resolve);
      };
      client.once('connect', pump);
    });
    const hit = await b.request<{ line: string }>('wait', { for: 'log', match: `"total":${size}`, timeoutMs: 20_000 });
    const inMs = performance.now() - t0;
    expect(hit.line).toContain('probe:closed');

    let received = 0;
    const sink = createServer((s) => s.on('data', (d: Buffer) => (received += d.length)));
    const sinkPort = await listen(sink);
    const t1 = performance.now();
    const out = await b.cmd({ cmd: 'send', host: '127.0.0.1', port: sinkPort, bytes: size }, 20_000);
    const outMs = performance.now() - t1;
    expect(out).toMatchObject({ ok: true, sent: size, error: null });
    await expect.poll(() => received, { timeout: 5000 }).toBe(size);
    console.log(`board TCP: in ${((size / inMs) * 1000 / 1e6).toFixed(0)} MB/s, out ${((size / outMs) * 1000 / 1e6).toFixed(0)} MB/s (32 MB each way)`);
  });

  it('TLS client: trusted server connects, untrusted fails ETLS, verify=false connects, refused is ECONN, silence is ETIMEDOUT', async () => {
    const dir = tempDir('board-tls-');
    const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    ssl('ecparam', '-genkey', '-name', 'prime256v1', '-noout', '-out', 'ca.key');
    ssl('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=Board Test CA', '-days', '2', '-out', 'ca.pem');
    ssl('ecparam', '-genkey', '-name', 'prime256v1', '-noout', '-out', 'srv.key');
    ssl('req', '-new', '-key', 'srv.key', '-subj', '/CN=api.sim.test', '-out', 'srv.csr');
    writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:api.sim.test\n');
    ssl('x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'ext.cnf', '-out', 'srv.pem');
    ssl('req', '-x509', '-new', '-key', 'srv.key', '-subj', '/CN=api.sim.test', '-addext', 'subjectAltName=DNS:api.sim.test', '-days', '2', '-out', 'self.pem');
    const read = (f: string): string => readFileSync(join(dir, f), 'utf8');
    const ca = read('ca.pem');
    const pong = (s: Socket): void => {
      s.once('data', () => s.end('pong'));
      s.on('error', () => {});
    };
    const trusted = await listen(createTlsServer({ key: read('srv.key'), cert: read('srv.pem') }, pong));
    const untrusted = await listen(createTlsServer({ key: read('srv.key'), cert: read('self.pem') }, pong));
    const silentServer = createServer(() => {});
    const silent = await listen(silentServer);
    await b.request('net.route', { host: 'api.sim.test', port: 443, to: `127.0.0.1:${trusted}` });
    await b.request('net.route', { host: 'evil.sim.test', port: 443, to: `127.0.0.1:${untrusted}` });

    const tls = (serverName: string, verify = true): ControlJson => ({ serverName, verify, caBundle: ca });
    const good = await b.cmd({ cmd: 'connect', options: { host: 'api.sim.test', port: 443, tls: tls('api.sim.test') }, send: 'ping' });
    expect(good).toMatchObject({ ok: true, connected: true, data: 'pong', error: null });
    const selfSigned = await b.cmd({ cmd: 'connect', options: { host: 'evil.sim.test', port: 443, tls: tls('api.sim.test') }, send: 'ping' });
    expect(selfSigned).toMatchObject({ connected: false });
    expect(String(selfSigned['error'])).toMatch(/^ETLS: /);
    const wrongName = await b.cmd({ cmd: 'connect', options: { host: 'api.sim.test', port: 443, tls: tls('other.sim.test') }, send: 'ping' });
    expect(String(wrongName['error'])).toMatch(/^ETLS: /);
    const noCheck = await b.cmd({ cmd: 'connect', options: { host: 'evil.sim.test', port: 443, tls: tls('api.sim.test', false) }, send: 'ping' });
    expect(noCheck).toMatchObject({ connected: true, data: 'pong', error: null });
    const closedPort = (await listen(createServer())) as number;
    servers.pop()!.close();
    await new Promise((r) => setTimeout(r, 20));
    const refused = await b.cmd({ cmd: 'connect', options: { host: '127.0.0.1', port: closedPort } });
    expect(String(refused['error'])).toMatch(/^ECONN: /);
    const timeout = await b.cmd({ cmd: 'connect', options: { host: '127.0.0.1', port: silent, tls: tls('api.sim.test'), timeoutMs: 300 } });
    expect(String(timeout['error'])).toMatch(/^ETIMEDOUT: /);
  });

  it('display: drawn tiles become a PNG snapshot of the logical size', async () => {
    await b.cmd({ cmd: 'fill', color: 0x001f, rect: [10, 20, 30, 40, 0xf800] });
    const snap = await b.request<{ path: string }>('display.snapshot', {});
    const png = readFileSync(snap.path);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([480, 320]);
    // decode (one IDAT, filter 0) and look at two pixels
    const idat = png.indexOf('IDAT');
    const raw = inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
    const px = (x: number, y: number): number[] => [...raw.subarray(y * (480 * 3 + 1) + 1 + x * 3, y * (480 * 3 + 1) + 1 + x * 3 + 3)];
    expect(px(0, 0)).toEqual([0, 0, 255]);
    expect(px(15, 25)).toEqual([255, 0, 0]);
    expect((await b.request('status')).display).toMatchObject({ brightness: 200 });
  });

  it('touch, battery, heap pressure, Wi-Fi and a sync call round trip', async () => {
    await b.request('touch', { kind: 'down', x: 100, y: 50 });
    const t = await b.request<{ line: string }>('wait', { for: 'log', match: 'probe:touch', timeoutMs: 5000 });
    expect(JSON.parse(t.line.slice('probe:touch '.length))).toMatchObject({ kind: 'down', x: 100, y: 50 });
    await b.request('battery.set', { levelPct: 12, charging: true });
    expect((await b.call('battery.read')).result).toMatchObject({ present: true, levelPct: 12, charging: true });
    const before = ((await b.cmd({ cmd: 'heap' })).heap as ControlJson)['freeInternal'] as number;
    await b.request('heap.pressure', { bytes: 100_000 });
    const heap = (await b.cmd({ cmd: 'heap' })).heap as ControlJson;
    expect(heap['freeInternal']).toBe(before - 100_000);
    expect(heap['minFreeInternal']).toBeLessThanOrEqual(heap['freeInternal'] as number);
    await b.request('heap.pressure', { bytes: 0 });
    await b.call('wifi.stationConnect', 'SimNet', 'wrong');
    await b.request('wait', { for: 'log', match: '"state":"failed"', timeoutMs: 3000 });
    await b.call('wifi.stationConnect', 'SimNet', 'simnet-pass');
    await b.request('wait', { for: 'log', match: '"state":"connected"', timeoutMs: 3000 });
    expect((await b.call('wifi.scan')).result).toEqual([{ ssid: 'SimNet', rssi: -52, secure: true, channel: 6 }]);
    const bench = await b.cmd({ cmd: 'bench', n: 2000 });
    console.log(`board: sync call round trip ${(bench['usPerCall'] as number).toFixed(1)} µs`);
    expect(bench['usPerCall']).toBeLessThan(2000);
  });

  it('console over stdio: typed bytes reach the firmware, serial output reaches stdout', async () => {
    b.proc.stdin!.write(JSON.stringify({ id: 7777, cmd: 'serial', text: 'pong-over-stdio\n' }) + '\n');
    await b.waitStdout(/^pong-over-stdio$/m, 5000);
  });

  it('crashes reboot with reason panic and count failed boots; orderly reboot is software', async () => {
    await b.cmd({ cmd: 'exit', code: 70 });
    const e1 = await b.request('wait', { for: 'exit', timeoutMs: 5000 });
    expect(e1).toMatchObject({ code: 70, outcome: 'crash' });
    await b.request('wait', { for: 'boot', after: e1['boot'] as number, timeoutMs: 5000 });
    expect((await b.cmd({ cmd: 'info' })).reason).toBe('panic');
    await b.cmd({ cmd: 'throw' });
    const e2 = await b.request('wait', { for: 'exit', timeoutMs: 5000 });
    expect(e2).toMatchObject({ code: 70, outcome: 'crash' });
    await b.request('wait', { for: 'boot', after: e2['boot'] as number, timeoutMs: 5000 });
    expect((await b.request('status')).failedBoots).toBe(2);
    await b.request('runtime.kill', { signal: 'SIGSEGV' });
    const e3 = await b.request('wait', { for: 'exit', after: (e2['boot'] as number), timeoutMs: 5000 });
    expect(e3).toMatchObject({ signal: 'SIGSEGV', outcome: 'crash' });
    await b.request('wait', { for: 'boot', after: e3['boot'] as number, timeoutMs: 5000 });
    expect((await b.request('status')).failedBoots).toBe(3);
    await b.cmd({ cmd: 'reboot' });
    const e4 = await b.request('wait', { for: 'exit', after: e3['boot'] as number, timeoutMs: 5000 });
    expect(e4).toMatchObject({ code: 64, outcome: 'reboot' });
    await b.request('wait', { for: 'boot', after: e4['boot'] as number, timeoutMs: 5000 });
    expect(await b.cmd({ cmd: 'info' })).toMatchObject({ reason: 'software' });
    expect((await b.request('status')).failedBoots).toBe(0);
    await b.cmd({ cmd: 'sleep', ms: 100 });
    const e5 = await b.request('wait', { for: 'exit', after: e4['boot'] as number, timeoutMs: 5000 });
    expect(e5).toMatchObject({ code: 65, outcome: 'deep-sleep' });
    await b.request('wait', { for: 'boot', after: e5['boot'] as number, timeoutMs: 5000 });
    expect(await b.cmd({ cmd: 'info' })).toMatchObject({ reason: 'deep-sleep' });
  });

  it('power cut: unsynced card data is lost, synced data stays; the boot says power-on', async () => {
    await b.cmd({ cmd: 'fopen', h: 'p', path: '/journal.log', mode: 'w' });
    await b.cmd({ cmd: 'fwrite', h: 'p', text: 'kept;' });
    await b.cmd({ cmd: 'fsync', h: 'p' });
    await b.cmd({ cmd: 'fwrite', h: 'p', text: 'lost;' });
    expect(readFileSync(join(b.dir, 'sd/journal.log'), 'utf8')).toBe('kept;lost;');
    const before = (await b.request('status')).bootCount as number;
    await b.request('power.cut');
    await b.request('wait', { for: 'boot', after: before, timeoutMs: 5000 });
    expect(readFileSync(join(b.dir, 'sd/journal.log'), 'utf8')).toBe('kept;');
    expect(await b.cmd({ cmd: 'info' })).toMatchObject({ reason: 'power-on' });
  });

  it('watchdog: after the first feed, a stuck loop is reset with reason watchdog', async () => {
    const before = (await b.request('status')).bootCount as number;
    await b.cmd({ cmd: 'feed' });
    await b.cmd({ cmd: 'hang' });
    const e = await b.request('wait', { for: 'exit', timeoutMs: 5000 });
    expect(e).toMatchObject({ outcome: 'watchdog', signal: 'SIGKILL' });
    await b.request('wait', { for: 'boot', after: before, timeoutMs: 5000 });
    expect(await b.cmd({ cmd: 'info' })).toMatchObject({ reason: 'watchdog' });
  });

  it('SIGTERM stops the board cleanly and leaves the device folder', async () => {
    expect(await b.stop()).toBe(0);
    for (const f of ['flash.bin', 'nvs.json', 'device.json', 'device.log', 'run/slot0.js', 'sd/journal.log']) {
      expect(() => readFileSync(join(b.dir, f))).not.toThrow();
    }
  });
});

describe('board on a ring-tft with a pty console', () => {
  let b: BoardRun;

  beforeAll(async () => {
    b = await startBoard(tempDir('board-b-'), ['--image', images['probe']!, '--board', 'ring-tft', '--console', 'pty'], { stdin: 'ignore' });
    await b.request('wait', { for: 'ready', timeoutMs: 10_000 });
  });

  it('prints the pty path; opening it resets the device (external); the console carries bytes both ways', async () => {
    const path = (await b.waitStdout(/^Console: (\/dev\/\S+)$/m))[1]!;
    expect((await b.request('status')).ptyPath).toBe(path);
    const before = (await b.request('status')).bootCount as number;
    const fd = openSync(path, 'r+');
    const tty = new ReadStream(fd);
    let got = '';
    tty.on('data', (d: Buffer) => (got += d.toString()));
    try {
      await b.request('wait', { for: 'boot', after: before, timeoutMs: 5000 });
      await b.request('wait', { for: 'ready', timeoutMs: 5000 });
      expect(await b.cmd({ cmd: 'info' })).toMatchObject({ reason: 'external', board: { type: 'ring-tft', ringLeds: 24 } });
      writeSync(fd, JSON.stringify({ id: 4242, cmd: 'serial', text: 'hello-pty\n' }) + '\n');
      await expect.poll(() => got, { timeout: 5000 }).toContain('hello-pty');
    } finally {
      tty.destroy();
    }
  });

  it('ring frames and a 240x240 display', async () => {
    const rgb = Array.from({ length: 72 }, (_, i) => i);
    expect(await b.cmd({ cmd: 'ring', rgb })).toMatchObject({ count: 24 });
    expect((await b.request('ring.state')).rgb).toEqual(rgb);
    await b.cmd({ cmd: 'fill', color: 0x07e0 });
    const snap = await b.request<{ width: number; height: number; path: string }>('display.snapshot', { path: 'shot.png' });
    expect([snap.width, snap.height]).toEqual([240, 240]);
    expect(readFileSync(snap.path).readUInt32BE(16)).toBe(240);
    expect(await b.request('touch', { kind: 'down', x: 1, y: 1 }).catch((e: { code: string }) => e.code)).toBe('ENOTSUP');
  });

  it('BLE: a simulated central reads, is refused a bonded-only characteristic until it pairs, writes, gets a notification', async () => {
    await b.cmd({ cmd: 'ble' });
    const { central } = await b.request<{ central: ControlJson }>('ble.connect', { address: 'C0:FF:EE:00:00:01' });
    expect(central).toMatchObject({ address: 'c0:ff:ee:00:00:01', bonded: false });
    await b.request('wait', { for: 'log', match: 'probe:ble {"ev":"connect"', timeoutMs: 5000 });
    expect(await b.request('ble.read', { uuid: 'aa01' })).toEqual({ hex: Buffer.from('hello').toString('hex') });
    expect(await b.request('ble.read', { uuid: 'aa02' }).catch((e: { code: string }) => e.code)).toBe('ETLS');
    expect((await b.request('ble.pair')).central).toMatchObject({ bonded: true });
    await b.request('wait', { for: 'log', match: '"ev":"bond"', timeoutMs: 5000 });
    expect(await b.request('ble.read', { uuid: 'aa02' })).toEqual({ hex: Buffer.from('secret').toString('hex') });
    await b.request('ble.write', { uuid: 'aa02', hex: '0102' });
    expect(await b.request('ble.write', { uuid: 'aa01', hex: '00' }).catch((e: { code: string }) => e.code)).toBe('ENOTSUP');
    await expect.poll(async () => (await b.request('ble.notifications')).notifications, { timeout: 3000 }).toEqual([{ uuid: 'aa01', hex: '0102' }]);
    expect((await b.call('ble.bonds')).result).toEqual(['c0:ff:ee:00:00:01']);
    const device = JSON.parse(readFileSync(join(b.dir, 'device.json'), 'utf8')) as { ble: { bonds: string[] } };
    expect(device.ble.bonds).toEqual(['c0:ff:ee:00:00:01']);
    await b.request('ble.disconnect');
    await b.request('wait', { for: 'log', match: '"ev":"disconnect"', timeoutMs: 5000 });
  });

  it('audio is played at the sample rate into a WAV file; the microphone hears the fed WAV; UDP echoes', async () => {
    const started = performance.now();
    expect(await b.cmd({ cmd: 'audio', rate: 16000, channels: 2, frames: 3200 })).toMatchObject({ queued: 3200 });
    await b.request('wait', { for: 'log', match: 'probe:audio', timeoutMs: 5000 });
    expect(performance.now() - started).toBeGreaterThan(150); // 200 ms of sound
    const file = (await b.request('status')).audio as { file: string };
    const wav = readFileSync(file.file);
    expect([wav.toString('latin1', 0, 4), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt32LE(40)]).toEqual(['RIFF', 2, 16000, 3200 * 4]);

    const feed = join(tempDir('board-mic-'), 'in.wav');
    const pcm = Buffer.alloc(16000 * 2);
    for (let i = 0; i < 16000; i++) pcm.writeInt16LE(1000, i * 2);
    const head = Buffer.alloc(44);
    head.write('RIFF', 0, 'latin1');
    head.writeUInt32LE(36 + pcm.length, 4);
    head.write('WAVEfmt ', 8, 'latin1');
    head.writeUInt32LE(16, 16);
    head.writeUInt16LE(1, 20);
    head.writeUInt16LE(1, 22);
    head.writeUInt32LE(16000, 24);
    head.writeUInt32LE(32000, 28);
    head.writeUInt16LE(2, 32);
    head.writeUInt16LE(16, 34);
    head.write('data', 36, 'latin1');
    head.writeUInt32LE(pcm.length, 40);
    writeFileSync(feed, Buffer.concat([head, pcm]));
    await b.request('mic.feed', { wav: feed });
    const heard = await b.cmd({ cmd: 'mic', rate: 16000, samples: 3200 }); // 200 ms of sound, however long it takes
    expect(heard).toMatchObject({ ok: true, peak: 1000, first: [1000, 1000, 1000, 1000] });
    expect(heard['count']).toBeGreaterThan(1600);
    expect(heard['count']).toBeLessThan(16000);

    const { port } = (await b.cmd({ cmd: 'udp' })) as { port: number };
    const sock = createSocket('udp4');
    const echo = await new Promise<string>((resolve) => {
      sock.on('message', (m) => resolve(m.toString()));
      sock.send('ping-udp', port, '127.0.0.1');
    });
    sock.close();
    expect(echo).toBe('ping-udp');
  });
});

describe('board: OTA, rollback, NVS under SIGKILL, Orchestrator lines', () => {
  let dir: string;
  let b: BoardRun;

  beforeAll(async () => {
    dir = tempDir('board-c-');
    b = await startBoard(dir, ['--image', images['probe']!, '--board', 'panel-28', '--mode', '1']);
    await b.request('wait', { for: 'ready', timeoutMs: 10_000 });
  });

  it('Orchestrator mode prints the HTTP and sign-in lines of the real port; GET works', async () => {
    const m = await b.waitStdout(/^HTTP: http:\/\/127\.0\.0\.1:(\d+)\/$/m);
    await b.waitStdout(new RegExp(`^Sign-in: http://127\\.0\\.0\\.1:${m[1]}/\\?c=PROBE1$`, 'm'));
    expect((await b.request('status')).httpPort).toBe(Number(m[1]));
    const body = await new Promise<string>((resolve, reject) => {
      const s = netConnect({ host: '127.0.0.1', port: Number(m[1]) }, () => s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      let t = '';
      s.on('data', (d) => (t += d.toString()));
      s.on('end', () => resolve(t));
      s.on('error', reject);
    });
    expect(body).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*probe$/);
  });

  it('NVS under SIGKILL of the runtime in a write loop: every key holds an old or a new value', async () => {
    for (let round = 0; round < 3; round++) {
      const before = (await b.request('status')).bootCount as number;
      await b.cmd({ cmd: 'nvsLoop', keys: 8 });
      await new Promise((r) => setTimeout(r, 60 + round * 40));
      await b.request('runtime.kill', { signal: 'SIGKILL' });
      await b.request('wait', { for: 'boot', after: before, timeoutMs: 5000 });
      await b.request('wait', { for: 'ready', timeoutMs: 5000 });
      checkLoopKeys(dir);
    }
  });

  it('flash: write the other slot from the card, setBoot, reboot boots it pending-verify; markValid; EBUSY on the running slot', async () => {
    copyFileSync(images['v9']!, join(dir, 'sd/update.img'));
    const ota = await b.cmd({ cmd: 'ota', path: '/update.img' });
    expect(ota).toMatchObject({ ok: true, slot: 1 });
    expect(await b.cmd({ cmd: 'info' })).toMatchObject({ slot: 0, boot: 1, states: ['undefined', 'new'] });
    const before = (await b.request('status')).bootCount as number;
    await b.cmd({ cmd: 'reboot' });
    await b.request('wait', { for: 'boot', after: before, timeoutMs: 5000 });
    const info = await b.cmd({ cmd: 'info' });
    expect(info).toMatchObject({ slot: 1, reason: 'software', build: { version: 'v9.9.9' }, states: ['undefined', 'pending-verify'] });
    expect(await b.call('flash.beginWrite', 0)).toMatchObject({ ok: false, code: 'EBUSY' }); // not yet confirmed
    expect((await b.cmd({ cmd: 'markValid' })).states).toEqual(['undefined', 'valid']);
    expect(await b.call('flash.beginWrite', 1)).toMatchObject({ ok: false, code: 'EBUSY' }); // the running slot
    const otadata = readFileSync(join(dir, 'flash.bin')).subarray(0xf000, 0xf000 + 0x2000);
    expect(otadata.readUInt32LE(0)).toBe(2); // sector 0: seq 2 selects ota_1
    expect(otadata.readUInt32LE(24)).toBe(2); // ESP_OTA_IMG_VALID
    expect(otadata.readUInt32LE(28)).toBe(0x55f63774); // crc32_le(UINT32_MAX, seq)
    const again = (await b.request('status')).bootCount as number;
    await b.request('reboot');
    await b.request('wait', { for: 'boot', after: again, timeoutMs: 5000 });
    expect(await b.cmd({ cmd: 'info' })).toMatchObject({ slot: 1, reason: 'external', build: { version: 'v9.9.9' } });
  });

  it('rollback: an image that crashes before confirming itself is aborted and the other slot boots', async () => {
    copyFileSync(images['crash']!, join(dir, 'sd/bad.img'));
    expect(await b.cmd({ cmd: 'ota', path: '/bad.img' })).toMatchObject({ ok: true, slot: 0 });
    const before = (await b.request('status')).bootCount as number;
    await b.cmd({ cmd: 'reboot' });
    const crashed = await b.request('wait', { for: 'exit', after: before, timeoutMs: 5000 });
    expect(crashed).toMatchObject({ code: 70, outcome: 'crash' });
    await b.request('wait', { for: 'boot', after: crashed['boot'] as number, timeoutMs: 5000 });
    await b.request('wait', { for: 'ready', timeoutMs: 5000 });
    expect(await b.cmd({ cmd: 'info' })).toMatchObject({ slot: 1, reason: 'panic', build: { version: 'v9.9.9' }, states: ['aborted', 'valid'] });
    expect(readFileSync(join(dir, 'device.log'), 'utf8')).toMatch(/bootloader: slot 0 was pending-verify: marked aborted/);
  });

  it('SIGKILL of the board itself in an NVS write loop; a new board on the folder boots what the flash holds', async () => {
    await b.cmd({ cmd: 'nvsLoop', keys: 8 });
    await new Promise((r) => setTimeout(r, 80));
    b.proc.kill('SIGKILL');
    await b.exited;
    checkLoopKeys(dir);
    const next = await startBoard(dir, ['--image', images['probe']!]);
    await next.request('wait', { for: 'ready', timeoutMs: 10_000 });
    // same image file as flashed last: no reflash, slot 1 (v9.9.9) keeps running
    expect(await next.cmd({ cmd: 'info' })).toMatchObject({ slot: 1, reason: 'power-on', build: { version: 'v9.9.9' }, board: { type: 'panel-28' } });
    checkLoopKeys(dir);
    await next.stop();
  });
});

/** nvs.json parses, and the probe's loop keys are each an old or a new whole value. */
function checkLoopKeys(dir: string): void {
  const data = JSON.parse(readFileSync(join(dir, 'nvs.json'), 'utf8')) as Record<string, Record<string, { t: string; v: unknown }>>;
  const loop = data['loop'];
  if (!loop) return;
  const counters = new Set<string>();
  for (let k = 0; k < 8; k++) {
    const e = loop[`m${k}`]!;
    expect(e.t).toBe('s');
    const m = /^v(\d+)-(x*)$/.exec(e.v as string);
    expect(m, `m${k} = ${String(e.v)}`).not.toBeNull();
    expect(m![2]!.length).toBe(k * 50);
    counters.add(m![1]!);
  }
  expect(counters.size).toBe(1); // setMany is all or nothing
  if (loop['single']) expect(Number.isInteger(loop['single'].v)).toBe(true);
  if (loop['blob']) {
    const blob = Buffer.from(loop['blob'].v as string, 'base64');
    expect(blob.length).toBe(300);
    expect(new Set(blob).size).toBe(1);
  }
}
