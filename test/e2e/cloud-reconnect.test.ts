// Tunnel reconnects lose nothing (issue 26, docs/cloud-relay.md "Reconnects"):
// the real firmware on the simulator, paired with the local relay
// (tools/cloud-relay.mjs) over TLS, answers several thousand owner requests
// through the relay while the tunnel is forced to reconnect again and again,
// the ways a tunnel goes: the relay cuts it (both sides see it close), and
// it dies where the relay cannot see while the device gives up on it (the
// device's next connection replaces it at the relay). Every request the
// relay accepted is answered 200, each with its own answer (JSON-RPC ids
// matched). Through reboots of the device, reads are replayed to the new
// boot (a request that may not run twice gets a 502 saying the device
// restarted: the unit tests hold that).
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNT, routeArgs, start as startRelay, type RelayServer } from '../../tools/cloud-relay.mjs';
import { cleanup, startDevice, type Device } from './harness.ts';

let relay: RelayServer;
let device: Device;
let id = '';

const agentless = { agent: false as const };

/** An owner's request through the relay (a fresh connection to the relay each time). */
function owner(method: string, target: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: relay.ownerPort, method, path: `/d/${id}${target}`, ...agentless, headers: { Authorization: `Bearer ${DEFAULT_ACCOUNT}`, ...(body ? { 'Content-Type': 'application/json' } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function until(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const online = async (): Promise<boolean> => /state=online/.test(await device.command('CLOUD?'));

beforeAll(async () => {
  relay = await startRelay();
  device = await startDevice({ args: routeArgs(relay.devicePort) });
  const out = await device.command('CLOUDPAIR', 20_000);
  const code = /code=(\S+)/.exec(out)![1]!;
  id = relay.relay.claim(DEFAULT_ACCOUNT, code).ok ? relay.relay.devices()[0]!.id : '';
  await until(online);
});

afterAll(async () => {
  await cleanup();
  await relay?.close();
});

describe('tunnel reconnects', () => {
  it('lose none of several thousand requests the relay accepted, through cuts and unseen deaths', async () => {
    const TOTAL = 3000;
    const WORKERS = 4;
    let next = 0;
    const wrong: string[] = [];
    let done = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const n = next++;
        if (n >= TOTAL) return;
        // Half reads, half JSON-RPC calls (POST: not to be run twice), each answer checked against its own request.
        if (n % 2) {
          const r = await owner('POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: n, method: 'ping' }));
          const ok = r.status === 200 && (JSON.parse(r.text) as { id: number }).id === n;
          if (!ok) wrong.push(`#${n} POST /mcp: ${r.status} ${r.text.slice(0, 160)}`);
        } else {
          const r = await owner('GET', '/api/state');
          if (r.status !== 200 || !r.text.includes('"cloud"')) wrong.push(`#${n} GET /api/state: ${r.status} ${r.text.slice(0, 160)}`);
        }
        done++;
      }
    };
    // The forced reconnects, one after another while the owners keep asking.
    const forced: string[] = [];
    const force = async (): Promise<void> => {
      const kinds = ['cut', 'unseen', 'cut', 'unseen', 'cut', 'unseen'];
      for (const [i, kind] of kinds.entries()) {
        await until(() => done >= ((i + 1) * TOTAL) / (kinds.length + 1) || done >= TOTAL, 60_000);
        if (done >= TOTAL) return;
        const connections = relay.relay.stats.connections;
        if (kind === 'cut') relay.relay.cut(id);
        else if (kind === 'unseen') {
          // The relay stops hearing the link; the device gives up on it after 90 s of silence (moved on by the clock).
          relay.relay.darken(id);
          await device.board.request('clock.warp', { ms: 95_000 });
        }
        forced.push(kind);
        await until(() => relay.relay.stats.connections > connections && relay.relay.devices()[0]!.online, 30_000);
      }
    };
    const replays0 = relay.relay.stats.replays;
    await Promise.all([force(), ...Array.from({ length: WORKERS }, worker)]);
    expect(wrong).toEqual([]);
    expect(done).toBe(TOTAL);
    expect(forced).toEqual(['cut', 'unseen', 'cut', 'unseen', 'cut', 'unseen']);
    const replays = relay.relay.stats.replays - replays0;
    console.log(`cloud reconnects: ${TOTAL} requests, ${forced.length} forced reconnects (${forced.join(', ')}), ${replays} replayed, 0 lost`);
    // Requests were in flight at the reconnects, and went again rather than failing.
    expect(replays).toBeGreaterThan(0);
  }, 180_000);

  it('lose no read through reboots of the device: what was in flight is replayed to the new boot', async () => {
    const TOTAL = 600;
    let next = 0;
    let done = 0;
    const wrong: string[] = [];
    const worker = async (): Promise<void> => {
      while (next < TOTAL) {
        const n = next++;
        const r = await owner('GET', '/api/state');
        if (r.status !== 200) wrong.push(`#${n}: ${r.status} ${r.text.slice(0, 160)}`);
        done++;
      }
    };
    const reboots = async (): Promise<void> => {
      for (const at of [200, 400]) {
        await until(() => done >= at, 60_000);
        const connections = relay.relay.stats.connections;
        await device.board.request('reboot', {});
        await until(() => relay.relay.stats.connections > connections && relay.relay.devices()[0]!.online, 30_000);
      }
    };
    await Promise.all([reboots(), ...Array.from({ length: 4 }, worker)]);
    expect(wrong).toEqual([]);
    expect(done).toBe(TOTAL);
  }, 180_000);
});
