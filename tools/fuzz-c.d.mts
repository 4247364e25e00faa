// Types of tools/fuzz-c.mjs for the tests.
export interface FuzzTarget {
  name: string;
  sources: string[];
  maxLen: number;
  seconds: number;
  covers: string;
}
export interface FuzzResult {
  name: string;
  replayed: number;
  runs: number;
  seconds: number;
  /** The crashing input's path, or null. */
  crash: string | null;
  kind: string | null;
  phase: 'replay' | 'fuzz';
  output: string;
}
export declare const TARGETS: FuzzTarget[];
export declare const CFLAGS: string[];
export declare function ensureClang(log?: (line: string) => void): void;
export declare function buildTarget(t: FuzzTarget): string;
export declare function fuzzTarget(t: FuzzTarget, options?: { seconds?: number; runs?: number; seed?: number; jobs?: number; keepCorpus?: boolean; log?: (line: string) => void }): FuzzResult;
