// The three power profiles (console PROFILE 0-2, config key profile): what
// each one changes. A table, so the ring engine, the battery monitor and the
// screen all read the same figures.
//
//   0 performance  the ring animates at 30 frames per second at full
//                  brightness; the battery is read every 5 s
//   1 balanced     (default) 20 frames per second, full brightness; every 15 s
//   2 saver        10 frames per second, the ring's brightness capped at 64
//                  of 255; every 60 s, and the screen should dim sooner
//                  (screenDimS, for the screen's owner)

export type ProfileId = 0 | 1 | 2;

export interface PowerProfile {
  id: ProfileId;
  name: 'performance' | 'balanced' | 'saver';
  /** The ring engine's frame rate. */
  ringFps: number;
  /** The highest ring brightness (0-255) whatever an action or ledBrightness asks. */
  ringMax: number;
  /** How often the battery monitor reads the gauge. */
  batteryPollMs: number;
  /** Idle seconds before the screen dims (0: never), a hint for the screen's owner. */
  screenDimS: number;
}

export const PROFILES: readonly PowerProfile[] = [
  { id: 0, name: 'performance', ringFps: 30, ringMax: 255, batteryPollMs: 5_000, screenDimS: 0 },
  { id: 1, name: 'balanced', ringFps: 20, ringMax: 255, batteryPollMs: 15_000, screenDimS: 120 },
  { id: 2, name: 'saver', ringFps: 10, ringMax: 64, batteryPollMs: 60_000, screenDimS: 30 },
];

export const DEFAULT_PROFILE: ProfileId = 1;

/** The profile for a stored value (anything else: the default). */
export function profileOf(value: unknown): PowerProfile {
  return typeof value === 'number' && (value === 0 || value === 1 || value === 2) ? PROFILES[value]! : PROFILES[DEFAULT_PROFILE]!;
}
