// The official MCP conformance suite (npm @modelcontextprotocol/conformance
// 0.1.16, a devDependency) against the real firmware's /mcp on the
// simulator: every server scenario the suite has for 2025-06-18 and for
// 2025-11-25 (its pending ones included: --suite all), run by the suite's
// own CLI in its own process, against a test build, whose /mcp carries the
// suite's fixtures through the normal registries (src/mcp/fixtures.ts).
//
// - The suite's clients send no device token, so they talk to /mcp through
//   a forwarder that adds X-Device-Token to each request and changes
//   nothing else (Host and Origin pass as the suite sent them: its DNS
//   rebinding scenario must reach the device with Host and Origin
//   evil.example.com and a valid token).
// - The suite needs Node 22's fs.globSync; on Node 20 its process loads
//   conformance/node20-bridge.mjs (docs/decisions.md).
// - A release image (the build without the test flag) serves none of the
//   fixtures, which the suite's scenarios would need.
// - The scenarios the device fails on purpose are in ONE file,
//   conformance/expected-failures.yml, each with the capability it tests
//   and why the device does not declare it; a listed scenario that passes,
//   or an unlisted one that fails, fails this test (so the list only
//   shrinks).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFirmware, ROOT } from '../../tools/build.mjs';
import { cleanup, startDevice, tempDir, type Device } from './harness.ts';

const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BRIDGE = join(ROOT, 'test/e2e/conformance/node20-bridge.mjs');
const EXPECTED = join(ROOT, 'test/e2e/conformance/expected-failures.yml');
const SUITE_VERSION = '0.1.16';

afterAll(cleanup);

interface Expected {
  scenario: string;
  capability: string;
  reason: string;
}

/** The expected-failures file: its `server:` list, each line `- <scenario> # <capability>: <reason>`. */
function readExpected(): { entries: Expected[]; malformed: string[] } {
  const entries: Expected[] = [];
  const malformed: string[] = [];
  let inServer = false;
  for (const line of readFileSync(EXPECTED, 'utf8').split('\n')) {
    if (/^\S/.test(line) && !line.startsWith('#')) inServer = line.trim() === 'server:';
    if (!inServer || !/^\s+-/.test(line)) continue;
    const m = /^\s+- ([a-z0-9-]+) # ([a-z][a-zA-Z.]*): (.{20,})$/.exec(line);
    if (m) entries.push({ scenario: m[1]!, capability: m[2]!, reason: m[3]! });
    else malformed.push(line);
  }
  return { entries, malformed };
}

/** A forwarder to the device that adds the token and leaves every other header (Host, Origin) as sent. */
function tokenForwarder(target: URL, token: string): Promise<Server> {
  const server = createServer((req, res) => {
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-device-token': token } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`forwarder: ${e.message}`);
    });
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Run {
  code: number | null;
  stdout: string;
  /** Scenario -> passed (no FAILURE and no WARNING check: the suite's own baseline rule). */
  results: Map<string, boolean>;
  failures: Map<string, string[]>;
}

/** Runs the suite's CLI on one spec version's server scenarios, as its own process. */
function runSuite(url: string, version: string): Promise<Run> {
  const out = tempDir(`mcp-conformance-${version}-`);
  const args = ['--import', BRIDGE, SUITE, 'server', '--url', url, '--suite', 'all', '--spec-version', version, '--expected-failures', EXPECTED, '-o', out];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { cwd: out, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
    // Bounded: the scenarios' own timeouts end well inside this.
    const timer = setTimeout(() => p.kill('SIGKILL'), 240_000);
    p.on('error', reject);
    p.on('exit', (code) => {
      clearTimeout(timer);
      const results = new Map<string, boolean>();
      const failures = new Map<string, string[]>();
      for (const dir of readdirSync(out)) {
        const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir);
        if (!m) continue;
        const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Array<{ status: string; name: string; errorMessage?: string }>;
        const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
        results.set(m[1]!, bad.length === 0);
        if (bad.length) failures.set(m[1]!, bad.map((c) => `${c.status} ${c.name}: ${c.errorMessage ?? ''}`));
      }
      resolve({ code, stdout, results, failures });
    });
  });
}

describe('the MCP conformance suite against /mcp on the simulator', () => {
  let device: Device;
  let forwarder: Server;
  let url: string;
  let token: string;
  const expected = readExpected();

  beforeAll(async () => {
    device = await startDevice();
    token = (await device.command('WEBTOK?')).split('\n')[0]!;
    forwarder = await tokenForwarder(new URL(device.url!), token);
    url = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    forwarder?.closeAllConnections();
    await new Promise((r) => (forwarder ? forwarder.close(r) : r(null)));
  });

  it(`is the pinned suite, ${SUITE_VERSION}`, () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/conformance/package.json'), 'utf8')) as { version: string };
    expect(pkg.version).toBe(SUITE_VERSION);
    const ours = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(ours.devDependencies['@modelcontextprotocol/conformance']).toBe(SUITE_VERSION);
  });

  it('lists each expected failure once, with its reason, for a capability the device does not declare', async () => {
    expect(expected.malformed).toEqual([]);
    expect(expected.entries.length).toBeGreaterThan(0);
    expect(new Set(expected.entries.map((e) => e.scenario)).size).toBe(expected.entries.length);
    const res = await device.fetch('/mcp', {
      token,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } }),
    });
    const capabilities = ((await res.json()) as { result: { capabilities: Record<string, Record<string, unknown>> } }).result.capabilities;
    for (const e of expected.entries) {
      const [top, sub] = e.capability.split('.') as [string, string | undefined];
      const declared = sub === undefined ? top in capabilities : capabilities[top]?.[sub] === true;
      expect(declared, `${e.scenario} is expected to fail for want of ${e.capability}, which the device declares`).toBe(false);
    }
    // And what the scenarios test is declared: tools, resources, prompts.
    expect(capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
  });

  for (const version of ['2025-06-18', '2025-11-25']) {
    it(`passes every ${version} server scenario but the expected failures, which still fail`, async () => {
      const run = await runSuite(url, version);
      if (process.env.SHOW_SUITE) console.log(run.stdout);
      const listed = new Set(expected.entries.map((e) => e.scenario));
      expect(run.results.size, run.stdout.slice(-4000)).toBeGreaterThan(20);
      const unexpected = [...run.results].filter(([s, ok]) => !ok && !listed.has(s)).map(([s]) => `${s}: ${(run.failures.get(s) ?? []).join(' | ')}`);
      const stale = [...run.results].filter(([s, ok]) => ok && listed.has(s)).map(([s]) => s);
      expect(unexpected, 'scenarios that fail and are not in expected-failures.yml').toEqual([]);
      expect(stale, 'scenarios that pass now: remove them from expected-failures.yml').toEqual([]);
      // The suite's own verdict on the same baseline agrees.
      expect(run.code, run.stdout.slice(-2000)).toBe(0);
    }, 300_000);
  }
});

describe('a release image on the simulator', () => {
  it('carries none of the suite\'s fixtures: no fixture tool, resource or prompt is offered or answers', async () => {
    const image = await buildFirmware({ outDir: tempDir('mcp-release-'), testBuild: false, force: true });
    const device = await startDevice({ args: ['--image', image] });
    // A release image has no test console (WEBTOK?): sign in as an owner does, with the printed code.
    const code = new URL(device.signIn!).searchParams.get('c')!;
    const signIn = await device.fetch('/api/signin/exchange', { method: 'POST', body: new URLSearchParams({ code }) });
    const { token } = (await signIn.json()) as { token: string };
    let id = 0;
    const rpc = async (method: string, params: Record<string, unknown> = {}) => {
      const res = await device.fetch('/mcp', { token, method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
      return (await res.json()) as { result?: Record<string, Array<Record<string, string>>>; error?: { code: number; message: string } };
    };
    const health = await rpc('tools/call', { name: 'system.health', arguments: {} });
    expect(JSON.stringify(health.result)).toContain('release build');
    const tools = (await rpc('tools/list')).result!.tools!.map((t) => t.name!);
    expect(tools).toContain('docs.read');
    expect(tools.filter((n) => n.startsWith('test_') || n === 'json_schema_2020_12_tool')).toEqual([]);
    expect((await rpc('tools/call', { name: 'test_simple_text', arguments: {} })).error).toEqual({ code: -32602, message: 'Unknown tool: test_simple_text' });
    const resources = (await rpc('resources/list')).result!.resources!.map((r) => r.uri!);
    expect(resources.some((u) => u.startsWith('docs://'))).toBe(true);
    expect(resources.filter((u) => u.startsWith('test://'))).toEqual([]);
    expect((await rpc('resources/read', { uri: 'test://static-text' })).error).toMatchObject({ code: -32002 });
    expect((await rpc('prompts/list')).result!.prompts!.map((p) => p.name)).toEqual(['research', 'summarize', 'compare']);
    await device.stop();
  }, 120_000);
});
