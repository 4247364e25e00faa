#!/usr/bin/env node
// Fuzzing the C that parses outside input (issue 38 item 4): libFuzzer targets
// in test/fuzz/c/<target>/fuzz.c, built with clang -fsanitize=fuzzer,address,undefined
// (clang and its compiler-rt from Debian, installed with apt-get when missing,
// as check:device does for its compilers), each with its seed corpus
// (test/fuzz/c/<target>/seeds/) and its kept crashing inputs
// (test/fuzz/c/<target>/regressions/, replayed on every run before fuzzing).
//
//   node tools/fuzz-c.mjs                 every target for its share of the
//                                         bounded run (about 50 s in all: what
//                                         test/unit/fuzz-c.test.ts runs in npm test)
//   node tools/fuzz-c.mjs --seconds 3600  each target for an hour (the release run,
//                                         docs/device.md), its corpus kept in
//                                         build/fuzz/<target>/corpus between runs
//   node tools/fuzz-c.mjs --runs 100000 mp3 sdpath    a number of inputs instead
//   --seed N (default 38; 0: libFuzzer picks), --jobs N (parallel fuzzing
//   processes per target, for the long run), --keep-corpus (the bounded run starts
//   from the seeds alone unless given)
//
// A crash (a sanitizer report, an abort from a harness check, a timeout or an
// out-of-memory) fails the run and prints the input's path (build/fuzz/<target>/
// crash-*) and how to keep it: fix the C, then copy the file into the target's
// regressions/ folder, so that every later run replays it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureDebianTools } from './check-device.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FUZZ = join(ROOT, 'test/fuzz/c');
const OUT = join(ROOT, 'build/fuzz');

/**
 * The targets: the C each links besides its harness, the longest input tried,
 * and its seconds in the bounded run (the MP3 decoder, the largest and slowest
 * per input, gets the most).
 */
export const TARGETS = [
  { name: 'mp3', sources: [], maxLen: 8192, seconds: 22, covers: 'modules/mp3 (minimp3 through mp3mono.c)' },
  { name: 'utf8', sources: ['modules/utf8/utf8.c'], maxLen: 4096, seconds: 12, covers: 'modules/utf8/utf8.c' },
  { name: 'sdpath', sources: ['hosts/esp32/native/sdpath.c'], maxLen: 600, seconds: 8, covers: 'hosts/esp32/native/sdpath.c' },
  { name: 'glue', sources: ['hosts/esp32/native/otastate.c', 'hosts/esp32/native/resetreason.c', 'hosts/esp32/native/panel.c'], maxLen: 2048, seconds: 8, covers: 'hosts/esp32/native/otastate.c, resetreason.c, panel.c' },
];

export const CFLAGS = ['-std=c99', '-Wall', '-Wextra', '-Werror', '-g', '-O1', '-fsanitize=fuzzer,address,undefined', '-fno-sanitize-recover=all', '-fno-omit-frame-pointer'];

/** clang with libFuzzer's runtime (Debian: clang, libclang-rt-dev). */
export function ensureClang(log = (l) => console.log(l)) {
  const probe = "printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' | clang -fsanitize=fuzzer,address,undefined -x c - -o /dev/null";
  ensureDebianTools([{ cmd: 'clang', pkg: 'clang' }, { cmd: 'clang', check: probe, pkg: 'libclang-rt-dev' }], log);
}

function files(dir) {
  return existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.') && f !== 'README.md').sort().map((f) => join(dir, f)) : [];
}

/** Builds a target's fuzzer (again when a source is newer than it); returns its path. */
export function buildTarget(t) {
  const dir = join(OUT, t.name);
  mkdirSync(dir, { recursive: true });
  const bin = join(dir, 'fuzz');
  const harness = join(FUZZ, t.name, 'fuzz.c');
  // The harness and what it links or includes (mp3's harness includes mp3mono.c and minimp3).
  const inputs = [harness, ...t.sources.map((s) => join(ROOT, s)), join(ROOT, 'modules/mp3/mp3mono.c'), join(ROOT, 'modules/mp3/minimp3/minimp3.h')];
  const built = existsSync(bin) ? statSync(bin).mtimeMs : 0;
  if (built && inputs.every((f) => !existsSync(f) || statSync(f).mtimeMs < built)) return bin;
  const r = spawnSync('clang', [...CFLAGS, '-o', bin, harness, ...t.sources.map((s) => join(ROOT, s)), '-lm'], { encoding: 'utf8' });
  if (r.status !== 0 || r.stderr.trim()) throw new Error(`fuzz-c: building ${t.name} failed:\n${r.stderr}`);
  return bin;
}

/** The libFuzzer report's figures and the crashing input it wrote, if any. */
function report(output) {
  const n = (key) => Number(new RegExp(`stat::${key}:\\s+(\\d+)`).exec(output)?.[1] ?? NaN);
  const crash = /(?:Test unit written to|artifact_prefix.*?; Test unit written to) (\S+)/.exec(output)?.[1] ?? null;
  const kind = /SUMMARY: (\w+Sanitizer: [^\n]+|libFuzzer: [^\n]+)/.exec(output)?.[1] ?? /ERROR: (libFuzzer: [^\n]+)/.exec(output)?.[1] ?? null;
  return { runs: n('number_of_executed_units'), crash, kind };
}

/**
 * Replays a target's seeds and kept regressions once each, then fuzzes it for
 * `seconds` (or `runs` inputs). Returns what happened; never throws for a crash.
 */
export function fuzzTarget(t, { seconds = t.seconds, runs = 0, seed = 38, jobs = 1, keepCorpus = false, log = () => undefined } = {}) {
  const bin = buildTarget(t);
  const dir = join(OUT, t.name);
  const seeds = join(FUZZ, t.name, 'seeds');
  const kept = files(join(FUZZ, t.name, 'regressions'));
  // 1. the kept crashing inputs and the seeds, each run once, in the order given
  const replay = spawnSync(bin, ['-runs=1', ...kept, ...files(seeds)], { encoding: 'utf8', cwd: dir, maxBuffer: 64 << 20 });
  if (replay.status !== 0) {
    const input = [...replay.stderr.matchAll(/Running: (\S+)/g)].pop()?.[1] ?? null;
    return { name: t.name, replayed: kept.length, runs: 0, seconds: 0, crash: input, kind: report(replay.stderr).kind, phase: 'replay', output: replay.stderr };
  }
  // 2. fuzzing from the seeds (and, when kept, the corpus of earlier runs)
  const corpus = join(dir, 'corpus');
  if (!keepCorpus) rmSync(corpus, { recursive: true, force: true });
  mkdirSync(corpus, { recursive: true });
  for (const f of files(seeds)) if (!existsSync(join(corpus, `seed-${relative(seeds, f)}`))) copyFileSync(f, join(corpus, `seed-${relative(seeds, f)}`));
  const args = [
    `-max_len=${t.maxLen}`, `-seed=${seed}`, '-timeout=10', '-rss_limit_mb=2048', '-print_final_stats=1',
    `-artifact_prefix=${dir}/`, runs ? `-runs=${runs}` : `-max_total_time=${seconds}`,
    ...(jobs > 1 ? [`-jobs=${jobs}`, `-workers=${jobs}`] : []),
    corpus,
  ];
  log(`fuzz-c: ${t.name} (${t.covers}): ${kept.length} kept input(s) and ${files(seeds).length} seed(s) replayed; fuzzing ${runs ? `${runs} inputs` : `${seconds} s`}`);
  const t0 = Date.now();
  const r = spawnSync(bin, args, { encoding: 'utf8', cwd: dir, maxBuffer: 256 << 20 });
  const took = Math.round((Date.now() - t0) / 100) / 10;
  const out = r.stderr + (jobs > 1 ? files(dir).filter((f) => /fuzz-\d+\.log$/.test(f)).map((f) => readFileSync(f, 'utf8')).join('\n') : '');
  const rep = report(out);
  return { name: t.name, replayed: kept.length, ...rep, seconds: took, crash: r.status === 0 ? null : (rep.crash ?? '(no input written)'), phase: 'fuzz', output: r.status === 0 ? '' : out };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { seconds: { type: 'string' }, runs: { type: 'string' }, seed: { type: 'string' }, jobs: { type: 'string' }, 'keep-corpus': { type: 'boolean' } },
  });
  const chosen = positionals.length ? TARGETS.filter((t) => positionals.includes(t.name)) : TARGETS;
  if (positionals.some((p) => !TARGETS.some((t) => t.name === p))) {
    console.error(`fuzz-c: targets are ${TARGETS.map((t) => t.name).join(', ')}`);
    process.exit(2);
  }
  try {
    ensureClang();
  } catch (e) {
    console.error(`fuzz-c: ${e.message}`);
    process.exit(1);
  }
  let failed = 0;
  for (const t of chosen) {
    const r = fuzzTarget(t, {
      seconds: values.seconds ? Number(values.seconds) : t.seconds,
      runs: values.runs ? Number(values.runs) : 0,
      seed: values.seed ? Number(values.seed) : 38,
      jobs: values.jobs ? Number(values.jobs) : 1,
      keepCorpus: values['keep-corpus'] || !!values.seconds,
      log: (l) => console.log(l),
    });
    if (r.crash) {
      failed++;
      console.error(`fuzz-c: ${t.name}: CRASH in ${r.phase} (${r.kind ?? 'see the output'}): input ${r.crash}\n${r.output.split('\n').slice(-60).join('\n')}\nfix the C, then keep the input: cp ${r.crash} test/fuzz/c/${t.name}/regressions/`);
    } else {
      console.log(`fuzz-c: ${t.name}: ${r.runs} inputs in ${r.seconds} s, no crash`);
    }
  }
  process.exit(failed ? 1 : 0);
}
