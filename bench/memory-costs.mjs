// What long-term memory costs on the device's path (the firmware on XS in the
// simulator) with 6000 memories: one search through /mcp (memory.search,
// n_results 10) timed by the client, so HTTP and JSON-RPC are included (an
// upper bound of the device's share); one write; the bytes on the card; the
// live XS heap the memories hold (HEAP? after the reboot that loads them,
// beside HEAP? after an empty boot); and boot to HTTP-ready with 6000
// memories beside an empty store (the firmware's own log times). The memories
// are LoCoMo's turns (bench/locomo.mjs) when the data set is reachable, then
// MEMFILL's made-up filler up to 6000; the searches are LoCoMo's questions,
// else a fixed list.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { findLocomo, loadLocomo } from './locomo.mjs';
import { boardWith } from './turn.mjs';

const FINAL = /^(OK|ERR.*)\r?$/m;
const stat = (text) => Object.fromEntries([...text.matchAll(/(\w+)=([\w.-]+)/g)].map((m) => [m[1], Number(m[2])]));
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const QUERIES = ['where did I leave the spare key', 'when is the dentist appointment', 'what does my wife do', 'favourite food', 'plans for the weekend', 'birthday presents', 'the car needs', 'music we listened to'];

/** The firmware's log times (seconds since the runtime started) of the boot's HTTP-up line, per boot. */
function httpUpTimes(deviceDir) {
  const out = [];
  for (const l of readFileSync(join(deviceDir, 'device.log'), 'utf8').split('\n')) {
    const m = /^\[(\d+\.\d+)\] boot: Orchestrator mode: HTTP up/.exec(l);
    if (m) out.push(Number(m[1]) * 1000);
  }
  return out;
}

export async function memoryCosts({ memories = 6000, log = () => {} } = {}) {
  const board = boardWith([]);
  let client = null;
  const long = async (line, ms = 60_000) => {
    const from = board.out().length;
    board.write(line);
    const m = await board.waitFor(FINAL, from, ms);
    return board.out().slice(from, from + m.index + m[0].length);
  };
  const reboot = async () => {
    const from = board.out().length;
    board.write('REBOOT');
    return (await board.waitFor(/^HTTP: (http:\/\/127\.0\.0\.1:\d+)\//m, from, 120_000))[1];
  };
  try {
    await board.waitFor(/^HTTP: /m, 0, 60_000);
    // an empty store, booted as the full one will be (a reboot, the card already set up)
    const url = await reboot();
    const emptyHeap = stat(await long('HEAP?'));
    const token = /^([0-9a-f]{24})\r?$/m.exec(await board.command('WEBTOK?'))[1];
    const connect = async (base) => {
      await client?.close().catch(() => {});
      client = new Client({ name: 'memory-costs', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { 'X-Device-Token': token } } }));
    };
    await connect(url);
    const call = async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
      return r.content?.[0]?.text ?? '';
    };
    const path = findLocomo();
    const convs = path ? loadLocomo(path) : [];
    const texts = convs.flatMap((c) => c.turns.map((t) => t.content)).slice(0, memories);
    const questions = convs.flatMap((c) => c.questions.map((q) => q.question));
    log(`writing ${texts.length} LoCoMo turns through /mcp, then ${Math.max(0, memories - texts.length)} filler memories...`);
    const writeMs = [];
    for (const content of texts) {
      const t0 = performance.now();
      await call('memory.write', { content });
      writeMs.push(performance.now() - t0);
    }
    const stats0 = JSON.parse(await call('device.status', {}));
    const have = stats0?.memory?.vectors ?? texts.length;
    if (have < memories) {
      const fill = await long(`MEMFILL vec ${memories - have} 100`, 1_800_000);
      if (!/^OK/m.test(fill)) throw new Error(`MEMFILL: ${fill}`);
    }
    const base = await reboot();
    await connect(base);
    const fullHeap = stat(await long('HEAP?'));
    const status = await long('STATUS');
    const count = Number(/\bvec=(\d+)/.exec(status)?.[1] ?? NaN);
    const res = await fetch(new URL('/api/mem/stats', base), { headers: { 'X-Device-Token': token } });
    const stats = await res.json();
    const queries = questions.length ? questions.slice(0, 300) : Array.from({ length: 300 }, (_, i) => QUERIES[i % QUERIES.length]);
    const searchMs = [];
    for (const query of queries) {
      const t0 = performance.now();
      await call('memory.search', { query, n_results: 10 });
      searchMs.push(performance.now() - t0);
    }
    const ups = httpUpTimes(board.deviceDir);
    return {
      memories: count,
      searchMs: { p50: pct(searchMs, 0.5), p95: pct(searchMs, 0.95), n: searchMs.length },
      writeMs: writeMs.length ? { p50: pct(writeMs, 0.5), p95: pct(writeMs, 0.95), n: writeMs.length } : null,
      cardBytes: stats.vectorCardBytes,
      contentBytes: stats.contentBytes,
      heapBytes: fullHeap.xs - emptyHeap.xs,
      bootEmptyMs: ups[1],
      bootFullMs: ups.at(-1),
      data: path ? 'LoCoMo turns and filler' : 'filler only (LoCoMo not found)',
    };
  } finally {
    await client?.close().catch(() => {});
    await board.stop();
  }
}

if (process.argv[1] && process.argv[1].endsWith('memory-costs.mjs')) {
  console.log(JSON.stringify(await memoryCosts({ log: (l) => console.error(l) }), null, 2));
}
