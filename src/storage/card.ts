// The SD card's tier, judged in one place: no card, an unsupported card
// (under 1 GB: zero quota, saves refused), or a present card whose file
// quota is its capacity minus 512 MB (a card that does not report its size
// keeps a 512 MB default quota). Other subsystems ask here, not the HAL.

import type { SdCard, SdInfo } from '../hal/index.ts';

/** How often the card is probed (a card-detect read on the device). */
export const CARD_PROBE_MS = 10_000;

export const MIN_CARD_BYTES = 1024 ** 3;
export const RESERVED_BYTES = 512 * 1024 ** 2;
export const DEFAULT_QUOTA = 512 * 1024 ** 2;

export type CardTier = 'none' | 'unsupported' | 'present';

export interface CardState {
  tier: CardTier;
  /** Bytes the file store may use (0 without a usable card). */
  quota: number;
  totalBytes: number | null;
  freeBytes: number | null;
}

export function judgeCard(info: SdInfo): CardState {
  if (!info.present) return { tier: 'none', quota: 0, totalBytes: null, freeBytes: null };
  if (info.totalBytes === null) return { tier: 'present', quota: DEFAULT_QUOTA, totalBytes: null, freeBytes: info.freeBytes };
  if (info.totalBytes < MIN_CARD_BYTES) return { tier: 'unsupported', quota: 0, totalBytes: info.totalBytes, freeBytes: info.freeBytes };
  return { tier: 'present', quota: info.totalBytes - RESERVED_BYTES, totalBytes: info.totalBytes, freeBytes: info.freeBytes };
}

/** Tracks the card; probe() re-reads it (GET /api/sdprobe, boot, a failed write). */
export class Card {
  private state: CardState;
  private listeners: Array<(state: CardState, previous: CardState) => void> = [];

  constructor(private readonly sd: SdCard) {
    this.state = judgeCard(sd.probe());
  }

  get(): CardState {
    return this.state;
  }

  /** A card that bulk data may live on. */
  live(): boolean {
    return this.state.tier === 'present';
  }

  probe(): CardState {
    const previous = this.state;
    this.state = judgeCard(this.sd.probe());
    if (previous.tier !== this.state.tier) for (const l of this.listeners) l(this.state, previous);
    return this.state;
  }

  /** Called when the tier changes (a card inserted later upgrades memory and the episodic log). */
  onChange(listener: (state: CardState, previous: CardState) => void): void {
    this.listeners.push(listener);
  }

  /** The sd= status value: none, unsupported or ok. */
  statusWord(): string {
    return this.state.tier === 'present' ? 'ok' : this.state.tier;
  }
}
