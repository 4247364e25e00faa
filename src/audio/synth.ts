// Sound effects synthesized on the device as 16-bit mono PCM at the
// speaker's rate (no sample files): each effect is a short score of notes,
// each note a waveform under an envelope. A theme (config sfxTheme) picks the
// waveform, the octave and the envelope's softness:
//
//   classic  sine, as written (the default; an unknown theme plays classic)
//   soft     sine an octave lower, gentle attack and longer tails
//   retro    square waves, as written (8-bit game sounds)
//
// Slugs (SFX <slug>): boot, tap, ding, notify, success, error.
// A clip peaks at SFX_PEAK before the volume is applied.

export const MIX_RATE = 24000;
/** Full-scale peak of an effect before volume (about -2 dBFS). */
export const SFX_PEAK = 26000;

export const SFX_SLUGS = ['boot', 'tap', 'ding', 'notify', 'success', 'error'] as const;
export type SfxSlug = (typeof SFX_SLUGS)[number];
export const SFX_THEMES = ['classic', 'soft', 'retro'] as const;
export type SfxTheme = (typeof SFX_THEMES)[number];

type Shape = 'pluck' | 'flat';
/** [frequency Hz (0 = rest), milliseconds, envelope shape] */
type Note = readonly [number, number, Shape];

const C5 = 523.25;
const E5 = 659.25;
const G5 = 783.99;
const A5 = 880;
const B5 = 987.77;
const C6 = 1046.5;
const E6 = 1318.51;

const SCORES: Record<SfxSlug, readonly Note[]> = {
  boot: [[C5, 90, 'flat'], [E5, 90, 'flat'], [G5, 90, 'flat'], [C6, 220, 'pluck']],
  tap: [[1800, 30, 'pluck']],
  ding: [[A5, 400, 'pluck']],
  notify: [[E6, 120, 'pluck'], [B5, 200, 'pluck']],
  success: [[C5, 110, 'flat'], [G5, 110, 'flat'], [C6, 240, 'pluck']],
  error: [[220, 150, 'flat'], [0, 80, 'flat'], [220, 220, 'flat']],
};

export function isSlug(s: string): s is SfxSlug {
  return (SFX_SLUGS as readonly string[]).indexOf(s) >= 0;
}

/** The theme a setting names (anything unknown: classic). */
export function themeOf(setting: unknown): SfxTheme {
  return typeof setting === 'string' && (SFX_THEMES as readonly string[]).indexOf(setting.toLowerCase()) >= 0 ? (setting.toLowerCase() as SfxTheme) : 'classic';
}

/** The envelope 0-1 at sample i of n. */
function envelope(shape: Shape, i: number, n: number, attack: number, release: number): number {
  const a = i < attack ? i / attack : 1;
  if (shape === 'pluck') {
    const x = 1 - i / n;
    return a * x * x;
  }
  const r = n - i < release ? (n - i) / release : 1;
  return a * r;
}

/** One note's samples into out from at. */
function note(out: Int16Array, at: number, hz: number, n: number, shape: Shape, theme: SfxTheme): void {
  if (hz <= 0) return;
  const f = theme === 'soft' ? hz / 2 : hz;
  const attack = Math.max(1, Math.round((MIX_RATE * (theme === 'soft' ? 12 : 3)) / 1000));
  const release = Math.max(1, Math.round((MIX_RATE * (theme === 'soft' ? 40 : 8)) / 1000));
  const w = (2 * Math.PI * f) / MIX_RATE;
  // A square wave carries more energy at the same peak: keep it a little lower.
  const peak = theme === 'retro' ? SFX_PEAK * 0.7 : SFX_PEAK;
  for (let i = 0; i < n; i++) {
    const phase = Math.sin(w * i);
    const wave = theme === 'retro' ? (phase >= 0 ? 1 : -1) : phase;
    out[at + i] = Math.round(peak * envelope(shape, i, n, attack, release) * wave);
  }
}

/** The effect's PCM (mono, MIX_RATE) at full scale; the mixer applies the volume. */
export function sfxClip(slug: SfxSlug, theme: SfxTheme): Int16Array {
  const score = SCORES[slug];
  const stretch = theme === 'soft' ? 1.25 : 1;
  const lengths = score.map(([, ms]) => Math.round((MIX_RATE * ms * stretch) / 1000));
  let total = 0;
  for (const n of lengths) total += n;
  const out = new Int16Array(total);
  let at = 0;
  score.forEach(([hz, , shape], k) => {
    note(out, at, hz, lengths[k]!, shape, theme);
    at += lengths[k]!;
  });
  return out;
}

/** A plain sine tone (the self-test's) at SFX_PEAK, with short ramps so it does not click. */
export function toneClip(hz: number, ms: number): Int16Array {
  const n = Math.round((MIX_RATE * ms) / 1000);
  const out = new Int16Array(n);
  note(out, 0, hz, n, 'flat', 'classic');
  return out;
}

/** The largest absolute sample. */
export function peakOf(pcm: Int16Array): number {
  let p = 0;
  for (let i = 0; i < pcm.length; i++) {
    const v = pcm[i]! < 0 ? -pcm[i]! : pcm[i]!;
    if (v > p) p = v;
  }
  return p;
}

/** The root mean square of the samples. */
export function rmsOf(pcm: Int16Array): number {
  if (!pcm.length) return 0;
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!;
  return Math.round(Math.sqrt(sum / pcm.length));
}
