// The globals the simulator runtime (hosts/sim/runtime) installs before the
// bundle runs. See docs/sim-protocol.md.

interface SimHeap {
  /** chunks + slots in use now (includes garbage: gc() first for live sizes). */
  now: number;
  /** High-water of chunks plus high-water of slots since start or resetPeak(). */
  peak: number;
  chunks: number;
  slots: number;
  /** --heap-max. */
  limit: number;
  /** What XS has taken from the system (what --heap-max limits). */
  reserved: number;
  /** Property names in use (the device's XS has 16-bit key ids). */
  keys: number;
  /** XS stack slots in use now, their high-water since start or resetPeak()/resetStackPeak(), and the stack's size (slots). */
  stack: number;
  stackPeak: number;
  stackSize: number;
}

interface SimApi {
  call(json: string, bin?: ArrayBuffer | ArrayBufferView): [string, ArrayBuffer | undefined];
  send(json: string, bin?: ArrayBuffer | ArrayBufferView): void;
  onEvent: ((json: string, bin: ArrayBuffer | undefined) => void) | null;
  setTimer(ms: number, repeat: boolean, fn: () => void): number;
  clearTimer(id: number): void;
  monoMs(): number;
  wallMs(): number;
  heap(): SimHeap;
  resetPeak(): void;
  resetStackPeak(): void;
  gc(): void;
  print(text: string): void;
  exit(code: number): never;
  argv: string[];
  /** The booting image's assets region, mapped read-only (xsim --assets; absent without one). */
  readonly assets?: ArrayBuffer;
}

declare const __sim: SimApi;
declare const __native:
  | (import('../../../modules/vecdot/vecdot.ts').NativeVecdot &
      import('../../../modules/lexical/lexical.ts').NativeLexical &
      import('../../../modules/sha256/sha256.ts').NativeSha256 &
      import('../../../modules/utf8/utf8.ts').NativeUtf8 &
      Partial<import('../../../modules/mp3/mp3.ts').NativeMp3>)
  | undefined;
