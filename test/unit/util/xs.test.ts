// The UTF-8, cap, compare, encoding and turn code run on the simulator's real
// XS engine must give exactly what they give on Node. This matters because XS
// differs from V8 where it hurts: strings are UTF-8 inside, and unless XS is
// built with mxCESU8 a string is a sequence of code points ('😀'.length is 1),
// and String.fromCharCode.apply with thousands of arguments overflows its
// stack. Skipped when build/sim/xsim has not been built (npm run build).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as utf8 from '../../../src/util/utf8.ts';
import * as cap from '../../../src/util/cap.ts';
import * as ct from '../../../src/util/ct.ts';
import * as enc from '../../../src/util/encoding.ts';
import * as turn from '../../../src/turn/parse.ts';
import * as actions from '../../../src/contracts/device-actions.ts';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const XSIM = join(ROOT, 'build/sim/xsim');

const STRINGS = [
  '',
  'plain ascii',
  'aé€😀',
  'x\ud800y', // lone high surrogate
  '\udc00', // lone low surrogate
  '👩‍💻 and 👍🏽',
  'mixed €😀é'.repeat(700), // long: more than one decode chunk, straddles the caps
  't'.repeat(9000),
];
const CAPS = [0, 1, 3, 4, 5, 15, 39, 160, 1200, 4095];

/** Deterministic bytes, heavy in UTF-8 lead and continuation bytes. */
function bytes(seed: number, n: number): number[] {
  let a = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    const r = a >>> 24;
    out.push(r < 96 ? 0x41 + (r % 26) : r < 160 ? 0x80 + (r % 64) : 0xc0 + (r % 64));
  }
  return out;
}
const BYTES = Array.from({ length: 40 }, (_, i) => bytes(i + 1, 1 + ((i * 37) % 300)));
const TURNS = [
  JSON.stringify({
    reply: 'Done 😀',
    memory: '€'.repeat(500),
    ask: '',
    device: [{ led: { mode: 'pulse', color: { r: 1, g: null, b: 3 } } }, 5],
    mem_write: [{ content: '  café 😀  ', importance: 2, ttl: 'Weeks' }, { content: '' }],
    mem_query: [' q ', '', 'é'.repeat(3000)],
    session_ops: [{ op: 'Spawn', provider: 'OpenAI', name: '😀'.repeat(10), attach: ['p/a', 1, 'x'.repeat(80)] }, { op: 'dance' }],
    scratchpad: { active: '😀'.repeat(70), short: ['a', '', 'é'.repeat(100)], long: 'x' },
    spawn: [{ task: 'old' }],
    await: [' t1 '],
  }),
  '{"reply":1,"memory":"","ask":""}',
  '[1]',
];
const ACTIONS = [
  { config: { apiKeyA: 'sk-secret' } },
  { config: { devName: 'Büro 😀', sfxVol: '40' } },
  { tts: { text: '€'.repeat(400) } },
  { orch_model: { provider: 'Mistral', model: 'm'.repeat(38) + 'é' } },
];

/** The computation, as source text: the same on both engines. */
const PROGRAM = `
const hex = (b) => enc.toHex(b);
const out = {};
out.encode = STRINGS.map((s) => hex(utf8.encode(s)));
out.length = STRINGS.map((s) => utf8.utf8Length(s));
out.roundTrip = STRINGS.map((s) => hex(utf8.encode(utf8.decode(utf8.encode(s)))));
out.decode = BYTES.map((b) => hex(utf8.encode(utf8.decode(Uint8Array.from(b)))));
out.cap = STRINGS.map((s) => CAPS.map((n) => hex(utf8.encode(cap.capBytes(s, n)))));
out.ct = [ct.ctEqual('a😀b', 'a😀b'), ct.ctEqual('a😀b', 'a😀c'), ct.ctEqual('\\ud800', '\\ud801'), ct.ctEqual('abc', 'abcd')];
out.b64 = BYTES.map((b) => [enc.toBase64(Uint8Array.from(b)), enc.toBase64Url(Uint8Array.from(b))]);
out.b64back = out.b64.map(([s, u]) => [hex(enc.fromBase64(s)), hex(enc.fromBase64Url(u))]);
out.hexBack = BYTES.map((b) => hex(enc.fromHex(hex(Uint8Array.from(b)))));
out.turns = TURNS.map((t) => JSON.stringify(turn.parseTurn(t), (k, v) => (k === 'detail' ? typeof v : v)));
out.actions = ACTIONS.map((a) => JSON.stringify(actions.validateAction(a)));
`;

function runOnNode(): unknown {
  const f = new Function('utf8', 'cap', 'ct', 'enc', 'turn', 'actions', 'STRINGS', 'CAPS', 'BYTES', 'TURNS', 'ACTIONS', PROGRAM + 'return out;');
  return f(utf8, cap, ct, enc, turn, actions, STRINGS, CAPS, BYTES, TURNS, ACTIONS);
}

async function runOnXs(): Promise<unknown> {
  const source = `
import * as utf8 from './src/util/utf8.ts';
import * as cap from './src/util/cap.ts';
import * as ct from './src/util/ct.ts';
import * as enc from './src/util/encoding.ts';
import * as turn from './src/turn/parse.ts';
import * as actions from './src/contracts/device-actions.ts';
const STRINGS = ${JSON.stringify(STRINGS)};
const CAPS = ${JSON.stringify(CAPS)};
const BYTES = ${JSON.stringify(BYTES)};
const TURNS = ${JSON.stringify(TURNS)};
const ACTIONS = ${JSON.stringify(ACTIONS)};
${PROGRAM}
__sim.print(JSON.stringify(out));
`;
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'iife',
    target: 'es2022',
    charset: 'utf8',
    write: false,
    logLevel: 'silent',
  });
  const dir = mkdtempSync(join(tmpdir(), 'util-xs-'));
  try {
    const script = join(dir, 'util.js');
    writeFileSync(script, result.outputFiles[0]!.text);
    const stdout = execFileSync(XSIM, ['--standalone', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
    return JSON.parse(stdout.trim().split('\n').pop()!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!existsSync(XSIM))('util and turn on the XS engine', () => {
  it('give the same results as on Node', async () => {
    const node = runOnNode() as Record<string, unknown>;
    const xs = (await runOnXs()) as Record<string, unknown>;
    for (const k of Object.keys(node)) expect(xs[k], k).toEqual(node[k]);
  }, 60_000);

  it('the Node side matches the platform encoder (the reference the XS side is held to)', () => {
    const node = runOnNode() as { encode: string[]; decode: string[] };
    const te = new TextEncoder();
    const td = new TextDecoder('utf-8', { ignoreBOM: true });
    expect(node.encode).toEqual(STRINGS.map((s) => Buffer.from(te.encode(s)).toString('hex')));
    expect(node.decode).toEqual(BYTES.map((b) => Buffer.from(te.encode(td.decode(Uint8Array.from(b)))).toString('hex')));
  });
});
