// minimp3's own conformance vectors (test/fixtures/minimp3, from its
// repository's vectors/: each .bit an MP3 stream, the .pcm beside it minimp3's
// reference output) through the decoder as the firmware builds it
// (modules/mp3/mp3mono.c: Layer III only, no SIMD, the scratch patch), by the
// C harness modules/mp3/test/vectors.c, built here with AddressSanitizer and
// UndefinedBehaviorSanitizer (any memory or UB error aborts the run).
//
// minimp3's criterion (its minimp3_test.c): PSNR = 10 log10(32767^2 / MSE)
// of at least 96 dB over the samples both have, the reference allowed to be
// one or two frames (1152 or 2304 samples) shorter than the stream, as some
// of the ISO vectors are. Held two ways:
//   - minimp3's own loop over the whole file (its sync, interleaved output):
//     every ISO vector, the free-format one included;
//   - the firmware's path: split as the music player splits (src/music/
//     formats.ts), frame by frame through mp3mono_frame, mono out, against the
//     reference mixed down as (L + R) >> 1: every ISO vector but the
//     free-format one, which the player does not take (its header has no
//     bitrate: frameHeader refuses it, and so does mp3mono).
// minimp3's "nonstandard" vectors test what its minimp3_ex.h file loader
// does (ID3v1 and APE tags cut, the VBR tag frame dropped, encoder delay
// trimmed): the firmware does not use that loader, so there they must decode
// without a sanitizer error and, where the player's path yields as many
// samples as the reference holds, meet the same 96 dB.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const VECTORS = join(ROOT, 'test/fixtures/minimp3');
const MIN_PSNR = 96;
/** ISO/IEC 11172-4 streams among the vectors; he_free is free format. */
const ISO = ['compl', 'he_32khz', 'he_48khz', 'he_free', 'he_mode', 'hecommon', 'si', 'si_block', 'si_huff', 'sin1k0db'];

interface Result {
  name: string;
  ref: boolean;
  refSamples: number;
  stream: { samples: number; perChannel: number; channels: number; hz: number; maxdiff: number; psnr: number };
  frames: { frames: number; refused: number; silent: number; samples: number; maxdiff: number; psnr: number };
}

let dir = '';
let results: Result[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mp3-vectors-'));
  const bin = join(dir, 'vectors');
  execFileSync(process.env['CC'] || 'cc', ['-std=c99', '-Wall', '-Wextra', '-Werror', '-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', '-o', bin, join(ROOT, 'modules/mp3/test/vectors.c'), '-lm'], { stdio: 'pipe' });
  const bits = readdirSync(VECTORS).filter((f) => f.endsWith('.bit')).sort().map((f) => join(VECTORS, f));
  const out = execFileSync(bin, bits, { encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1' } });
  results = out.trim().split('\n').map((l) => JSON.parse(l) as Result);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const short = (r: Result): string => r.name.replace(/^.*\/l3-|\.bit$/g, '');
const lengthOk = (ref: number, got: number): boolean => ref === got || ref + 1152 === got || ref + 2304 === got;

describe("minimp3's conformance vectors, decoded by the firmware's build of it", () => {
  it('every vector was decoded under the sanitizers (45 files: 23 streams, 22 references)', () => {
    expect(results.length).toBe(readdirSync(VECTORS).filter((f) => f.endsWith('.bit')).length);
    expect(results.map(short)).toEqual(expect.arrayContaining(ISO));
  });

  for (const v of ISO) {
    it(`${v}: minimp3's own loop meets its criterion (PSNR >= 96 dB)`, () => {
      const r = results.find((x) => short(x) === v)!;
      expect(r.ref).toBe(true);
      expect(lengthOk(r.refSamples, r.stream.samples), `${r.refSamples} reference samples, ${r.stream.samples} decoded`).toBe(true);
      expect(r.stream.psnr).toBeGreaterThanOrEqual(MIN_PSNR);
    });
    if (v === 'he_free') {
      it('he_free: the player path takes no free-format frame (no bitrate in the header)', () => {
        const r = results.find((x) => short(x) === v)!;
        expect(r.frames.frames).toBe(0);
      });
      continue;
    }
    it(`${v}: frame by frame to mono, as the player decodes, meets the same criterion`, () => {
      const r = results.find((x) => short(x) === v)!;
      expect(r.frames.refused).toBe(0);
      // Every sample minimp3's own loop gives, per channel: the framing loses nothing.
      expect(r.frames.samples).toBe(r.stream.perChannel);
      expect(r.frames.psnr).toBeGreaterThanOrEqual(MIN_PSNR);
      console.log(`vector ${v}: ${r.stream.hz} Hz, ${r.frames.frames} frames, mono PSNR ${r.frames.psnr} dB (largest difference ${r.frames.maxdiff} LSB); minimp3's loop ${r.stream.psnr} dB`);
    });
  }

  it("the nonstandard vectors (minimp3_ex's tag and VBR handling): no sanitizer error, and 96 dB where the player path yields the reference's length", () => {
    const nonstandard = results.filter((r) => !ISO.includes(short(r)));
    expect(nonstandard.length).toBe(13);
    const compared = nonstandard.filter((r) => r.ref && r.refSamples > 0 && (r.frames.samples === r.refSamples || r.frames.samples * 2 === r.refSamples));
    // id3v2 (a tag before the frame: mono, so as many samples) and vbrtag-oob-read (a VBR tag cut short: stereo).
    expect(compared.map(short).sort()).toEqual(['nonstandard-id3v2', 'nonstandard-vbrtag-oob-read']);
    for (const r of compared) expect(r.frames.psnr, short(r)).toBeGreaterThanOrEqual(MIN_PSNR);
  });
});
