// Types of bench/locomo.mjs for the tests.
export interface RecallFigure {
  n: number;
  r5: number;
  r10: number;
}
export interface RecallResult {
  overall: RecallFigure;
  categories: Record<string, RecallFigure>;
  conversations: Record<string, RecallFigure>;
  writeMs: { p50: number; p95: number };
  searchMs: { p50: number; p95: number };
}
export declare const CATEGORIES: Record<number, string>;
export declare function findLocomo(env?: Record<string, string | undefined>): string | null;
export declare function locomoRecall(o?: {
  path?: string | null;
  embedding?: string | null;
  config?: Record<string, number> | null;
  sides?: 'both' | 'meaning' | 'words' | null;
  sdSize?: number;
  conversations?: number;
  log?: (line: string) => void;
}): Promise<RecallResult>;
