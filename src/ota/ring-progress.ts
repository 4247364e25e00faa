// Install progress on the LED ring (spec: "ring shows progress" while
// downloading), for boards that have one: the share of LEDs lit follows the
// percentage. The UI subsystem may take this over with its own animation.

import type { LedRing } from '../hal/index.ts';

const COLOR = [0, 40, 160] as const;

export function showRingProgress(ring: LedRing, count: number, pct: number): void {
  if (count <= 0) return;
  const lit = Math.round((Math.max(0, Math.min(100, pct)) * count) / 100);
  const rgb = new Uint8Array(count * 3);
  for (let i = 0; i < lit; i++) rgb.set(COLOR, i * 3);
  ring.show(rgb);
}
