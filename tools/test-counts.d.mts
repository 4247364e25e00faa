export interface TestCounts {
  total: number;
  /** The unit test files that load src/main.ts, themselves or through a rig. */
  booting: string[];
  mounting: number;
  /** The unit test files at the root of test/unit/. */
  root: string[];
}
export declare function runtimeImports(file: string, text?: string): string[];
export declare function testCounts(): TestCounts;
export declare function documented(doc?: string): { mounting: number; total: number; booting: number } | null;
