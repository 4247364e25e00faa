// Memory recall on LoCoMo (Maharana et al., ACL 2024), measured on the
// device's own path: the firmware on XS in the simulator, driven through /mcp
// by the official MCP client. For each conversation a fresh device gets every
// turn through memory.write as "<speaker>: <text>", then each question of
// categories 1-4 is asked through memory.search (n_results 10); the result
// lines are mapped back to the turns they hold. Per question, recall@k is the
// share of its evidence turns among the first k lines; the figure is the mean
// over the questions that have evidence. Per category and per conversation
// too, and the cost of a write and of a search as the client sees them.
//
// The data set (CC BY-NC 4.0: used to measure, never shipped) is not in the
// repository: findLocomo() looks for shared/datasets/locomo/locomo-dev.json
// where tools/sdk.mjs looks for the SDK archive (above the checkout, its git
// common folder and a local origin), or DESK_LOCOMO names the file.
//
//   node bench/locomo.mjs [--embedding provider/model/dims] [--sides both|meaning|words] [--config key=value ...]
//                         [--sd-size BYTES] [--conversations N]
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { searchStarts } from '../tools/sdk.mjs';
import { boardWith } from './turn.mjs';

const LOCOMO = join('shared', 'datasets', 'locomo', 'locomo-dev.json');
export const CATEGORIES = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

/** The data set's path, or null. */
export function findLocomo(env = process.env) {
  if (env.DESK_LOCOMO) return existsSync(env.DESK_LOCOMO) ? resolve(env.DESK_LOCOMO) : null;
  for (const start of searchStarts()) {
    for (let dir = start; ; dir = dirname(dir)) {
      const candidate = join(dir, LOCOMO);
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}

const squash = (s) => s.replace(/\s+/g, ' ').trim();

/** The conversations: turns as the device stores them, and the questions of categories 1-4. */
export function loadLocomo(path) {
  return JSON.parse(readFileSync(path, 'utf8')).map((sample) => {
    const c = sample.conversation;
    const turns = [];
    for (let n = 1; c[`session_${n}`]; n++) for (const t of c[`session_${n}`]) turns.push({ dia: t.dia_id, content: squash(`${t.speaker}: ${t.text}`) });
    const dias = new Set(turns.map((t) => t.dia));
    const questions = sample.qa
      .filter((q) => q.category >= 1 && q.category <= 4)
      .map((q) => ({ question: q.question, category: q.category, evidence: [...new Set((q.evidence ?? []).map((e) => String(e).trim()))].filter((e) => dias.has(e)) }));
    return { id: sample.sample_id, turns, questions };
  });
}

const HIT = /^- \[\d\d%\] (.*)$/;

/** The turns a memory.search answer holds, in its order (a line stands for every turn with that content). */
export function hitsOf(text, byContent) {
  const out = [];
  for (const line of text.split('\n')) {
    const m = HIT.exec(line);
    if (m) out.push(byContent.get(m[1]) ?? []);
  }
  return out;
}

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

async function oneConversation(conv, { embedding, config, sides, sdSize }, log) {
  const board = boardWith(sdSize === undefined ? [] : ['--sd-size', String(sdSize)]);
  let client = null;
  try {
    const http = (await board.waitFor(/^HTTP: (http:\/\/127\.0\.0\.1:\d+)\//m, 0, 60_000))[1];
    const token = /^([0-9a-f]{24})\r?$/m.exec(await board.command('WEBTOK?'))[1];
    client = new Client({ name: 'locomo-bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', http), { requestInit: { headers: { 'X-Device-Token': token } } }));
    const call = async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      const text = r.content?.[0]?.text ?? '';
      if (r.isError) throw new Error(`${name}: ${text}`);
      return text;
    };
    if (embedding) {
      await call('memory.config', { action: 'update', embedding, confirm: true });
      const view = await call('memory.config', { action: 'view' });
      if (!view.includes(`embedding: ${embedding}`)) throw new Error(`the device did not take the embedding ${embedding}: ${view}`);
    }
    if (config) await call('memory.config', { action: 'update', ...config });
    if (sides && !/^OK/m.test(await board.command(`MEMSIDES ${sides}`))) throw new Error('MEMSIDES refused');
    const writeMs = [];
    for (const t of conv.turns) {
      const t0 = performance.now();
      await call('memory.write', { content: t.content });
      writeMs.push(performance.now() - t0);
    }
    const byContent = new Map();
    for (const t of conv.turns) byContent.set(t.content, [...(byContent.get(t.content) ?? []), t.dia]);
    const searchMs = [];
    const results = [];
    for (const q of conv.questions) {
      if (!q.evidence.length) continue;
      const t0 = performance.now();
      const text = await call('memory.search', { query: q.question, n_results: 10 });
      searchMs.push(performance.now() - t0);
      const lines = hitsOf(text, byContent);
      const recall = (k) => {
        const found = new Set(lines.slice(0, k).flat());
        return q.evidence.filter((e) => found.has(e)).length / q.evidence.length;
      };
      results.push({ conversation: conv.id, category: q.category, r5: recall(5), r10: recall(10) });
    }
    log(`locomo: ${conv.id}: ${conv.turns.length} turns, ${results.length} questions, recall@10 ${(100 * mean(results.map((r) => r.r10))).toFixed(1)}`);
    return { results, writeMs, searchMs };
  } finally {
    await client?.close().catch(() => {});
    await board.stop();
  }
}

/**
 * Recall over the conversations (all by default): { overall, categories,
 * conversations, writeMs, searchMs } with recall in percent.
 */
export async function locomoRecall({ path = findLocomo(), embedding = null, config = null, sides = null, sdSize, conversations = Infinity, log = () => {} } = {}) {
  if (!path) throw new Error('LoCoMo not found (DESK_LOCOMO, or shared/datasets/locomo/locomo-dev.json above the checkout)');
  const convs = loadLocomo(path).slice(0, conversations);
  const all = [];
  const writeMs = [];
  const searchMs = [];
  for (const conv of convs) {
    const r = await oneConversation(conv, { embedding, config, sides, sdSize }, log);
    all.push(...r.results);
    writeMs.push(...r.writeMs);
    searchMs.push(...r.searchMs);
  }
  const figure = (rs) => ({ n: rs.length, r5: 100 * mean(rs.map((r) => r.r5)), r10: 100 * mean(rs.map((r) => r.r10)) });
  return {
    overall: figure(all),
    categories: Object.fromEntries(Object.keys(CATEGORIES).map((c) => [CATEGORIES[c], figure(all.filter((r) => r.category === Number(c)))])),
    conversations: Object.fromEntries(convs.map((c) => [c.id, figure(all.filter((r) => r.conversation === c.id))])),
    writeMs: { p50: pct(writeMs, 0.5), p95: pct(writeMs, 0.95) },
    searchMs: { p50: pct(searchMs, 0.5), p95: pct(searchMs, 0.95) },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { embedding: { type: 'string' }, sides: { type: 'string' }, 'sd-size': { type: 'string' }, conversations: { type: 'string' }, config: { type: 'string', multiple: true, default: [] } } });
  const config = values.config.length ? Object.fromEntries(values.config.map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)])) : null;
  const r = await locomoRecall({ embedding: values.embedding ?? null, config, sides: values.sides ?? null, ...(values['sd-size'] ? { sdSize: Number(values['sd-size']) } : {}), conversations: values.conversations ? Number(values.conversations) : Infinity, log: (l) => console.error(l) });
  console.log(JSON.stringify(r, null, 2));
}
