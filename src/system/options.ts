// What the system subsystem needs from others, each as the narrow interface
// it calls (the ECMA-419 manner), passed in as one options object: the device
// timeline, the owner's local time (which the system makes itself: index.ts),
// the SD card, the device actions (settings, the LED, device.control's
// applier), the chat's roles (a late need), the music player's and the
// speaker's self-test probes, and the battery model.

import type { ConfigKey, DeviceAction } from '../contracts/index.ts';
import type { ApplyOptions, ApplyResult } from '../device/index.ts';
import type { BatteryReading } from '../hal/index.ts';
import type { Role } from '../memory/index.ts';
import type { Card } from '../storage/index.ts';
import type { LocalTime } from './local-time.ts';
import type { Timeline } from '../timeline/index.ts';

/** The device actions as the system reads and applies them (src/device/actions.ts). */
export interface SystemActions {
  config(key: ConfigKey): unknown;
  /** Shows the current LED state on the ring again (the self-test's ring item). */
  showLed(): void;
  apply(action: DeviceAction, options?: ApplyOptions): ApplyResult;
}

/** The battery model as system.health reads it (src/power: the update gate's one source). */
export interface BatteryView {
  reading(): BatteryReading;
}

/** The music player's MP3 decoder check (src/music/player.ts), for the speaker's self-test item. */
export interface MusicProbe {
  decodeCheck(): { samples: number } | null;
}

/** The speaker and the microphone as the self-test uses them (src/audio/). */
export interface AudioProbe {
  speaker: { streamRate(): number };
  /** The test tone through the mixer, at the effects' gain; null when the mixer is full. */
  tone(hz: number, ms: number): unknown;
  recorder: { open(onSamples: (pcm: Int16Array) => void): { ok: true; close: () => void } | { ok: false; reason: string } };
}

export interface SystemOptions {
  /** Device timeline rows (restarts, updates, mode switches, storage changes). */
  timeline: Timeline;
  /** The owner's time zone: GET and POST /api/timezone. */
  time: LocalTime;
  /** The SD card's tier (the danger zone's Format Card, system.health). */
  card: Pick<Card, 'get' | 'probe'>;
  actions: SystemActions;
  /** The people registry's roles (src/chat/): who may apply which device action through device.control. */
  people: { roleOf(person: string | null): Role };
  music: MusicProbe;
  audio: AudioProbe;
  /** The battery model (src/power/). */
  power: BatteryView;
}
