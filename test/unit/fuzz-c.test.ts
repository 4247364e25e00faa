// The C parsers of outside input, fuzzed under sanitizers (issue 38 item 4):
// each libFuzzer target of test/fuzz/c (tools/fuzz-c.mjs) is built with
// clang -fsanitize=fuzzer,address,undefined, replays its kept crashing inputs
// (test/fuzz/c/<target>/regressions/) and its seeds, then fuzzes for its share
// of about 50 seconds from a fixed seed. A crash fails the test with the
// input's path and the sanitizer's report; the release run is longer
// (docs/device.md, "Fuzzing the C parsers").
//
// clang comes from Debian (apt-get, as root) when missing, as check:device
// gets its compilers; where that is impossible the test fails saying how to
// install it, rather than skipping.
//
// Negative controls (that a harness can fail): a seed that breaks a check of
// its target must crash in the replay; checked here for the sdpath target
// with a deliberately wrong expectation built into a copy of its harness.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CFLAGS, ensureClang, fuzzTarget, TARGETS } from '../../tools/fuzz-c.mjs';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
let tmp = '';

beforeAll(() => {
  ensureClang(() => undefined);
  tmp = mkdtempSync(join(tmpdir(), 'fuzz-c-'));
}, 600_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the C parsers under libFuzzer with ASan and UBSan (bounded run)', () => {
  for (const t of TARGETS) {
    it(`${t.name}: ${t.covers}: kept inputs and seeds replay clean, then ${t.seconds} s of fuzzing find no crash`, () => {
      const r = fuzzTarget(t);
      if (r.crash) {
        expect.fail(`${t.name}: crash in the ${r.phase} (${r.kind ?? 'see below'}): input ${r.crash}\nfix the C, then keep the input: cp ${r.crash} test/fuzz/c/${t.name}/regressions/\n${r.output.split('\n').slice(-40).join('\n')}`);
      }
      console.log(`fuzz-c ${t.name}: ${r.replayed} kept input(s) replayed, ${r.runs} inputs in ${r.seconds} s, no crash`);
      // It really fuzzed: more inputs than the seeds (a harness that returns at once would also pass, so
      // its checks are held to failing below).
      expect(r.runs).toBeGreaterThan(1000);
    }, (t.seconds + 120) * 1000);
  }

  it('a harness check that fails crashes the run and names the input (negative control)', () => {
    // sdpath's harness with one check inverted: every mapped path then "fails".
    const harness = readFileSync(join(ROOT, 'test/fuzz/c/sdpath/fuzz.c'), 'utf8').replace('if (r >= outSize)\n\t\t\tabort();', 'if (r < outSize)\n\t\t\tabort();');
    expect(harness).toContain('if (r < outSize)');
    const src = join(tmp, 'broken.c');
    writeFileSync(src, harness.replaceAll('../../../../hosts/', `${ROOT}/hosts/`));
    const bin = join(tmp, 'broken');
    const b = spawnSync('clang', [...CFLAGS, '-o', bin, src, join(ROOT, 'hosts/esp32/native/sdpath.c')], { encoding: 'utf8' });
    expect(b.status, b.stderr).toBe(0);
    const seed = join(ROOT, 'test/fuzz/c/sdpath/seeds/plain.bin');
    const r = spawnSync(bin, ['-runs=1', seed], { encoding: 'utf8', cwd: tmp });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`Running: ${seed}`);
    expect(r.stderr).toMatch(/deadly signal|ABRT/);
  }, 120_000);
});
