// The LED ring: keeps the latest frame the firmware showed (count x RGB).

import type { Json, Service } from './service.ts';

export class LedRing implements Service {
  private frame: Uint8Array;
  shows = 0;

  constructor(readonly count: number) {
    this.frame = new Uint8Array(count * 3);
  }

  start(): void {
    this.frame = new Uint8Array(this.count * 3);
    this.shows = 0;
  }

  state(): Json {
    return { count: this.count, rgb: [...this.frame], shows: this.shows };
  }

  readonly ops = {
    'ring.show': (_args: Json, bin: Buffer) => {
      const next = new Uint8Array(this.count * 3);
      next.set(bin.subarray(0, next.length));
      this.frame = next;
      this.shows++;
    },
  };
}
