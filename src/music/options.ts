// What the music subsystem needs from others, each as the narrow interface it
// calls: the SD card, and the speaker (src/audio/): its music port the player
// plays through, and its test tone (MEDIATEST).

import type { Card } from '../storage/index.ts';
import type { AudioOut } from '../hal/index.ts';

/** The speaker's test tone through its mixer (src/audio/), at the effects' gain. */
export interface ToneOut {
  speaker: { streamRate(): number; readonly music: AudioOut };
  /** The tone's voice, or null when the mixer has no room. */
  tone(hz: number, ms: number): { played(): Promise<void>; readonly taken: number; readonly peak: number } | null;
}

export interface MusicOptions {
  /** The SD card's tier: the folder is read only while a card is live; an upload needs a supported card; a new card is cleared of cut uploads. */
  card: Pick<Card, 'live' | 'probe' | 'onChange'>;
  audio: ToneOut;
}
