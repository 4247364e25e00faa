// What the music subsystem needs from others, each as the narrow interface it
// calls, passed in as one options object by main.ts: the player (made at boot
// over the speaker's music port, because the system's self-test holds it
// before music mounts), the SD card, and the speaker's test tone (MEDIATEST).

import type { Card } from '../storage/index.ts';
import type { MusicPlayer } from './player.ts';

/** The speaker's test tone through its mixer (src/audio/), at the effects' gain. */
export interface ToneOut {
  speaker: { streamRate(): number };
  /** The tone's voice, or null when the mixer has no room. */
  tone(hz: number, ms: number): { played(): Promise<void>; readonly taken: number; readonly peak: number } | null;
}

export interface MusicOptions {
  player: MusicPlayer;
  /** The SD card's tier: the folder is read only while a card is live; an upload needs a supported card; a new card is cleared of cut uploads. */
  card: Pick<Card, 'live' | 'probe' | 'onChange'>;
  audio: ToneOut;
}
