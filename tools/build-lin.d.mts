// Types of tools/build-lin.mjs for the tests and the bench.
export declare const LIN_BOARD: string;
export declare const LIN_OUT: string;
export declare const RUNNER: string;
export declare function bundleLin(board?: string, options?: { version?: string }): Promise<{ outDir: string; bytes: number }>;
export declare function linMakefileDir(board?: string): string;
export declare function findLibrary(board?: string): string | null;
export declare function buildLin(board?: string, options?: { log?: (line: string) => void }): Promise<{ library: string; runner: string; output: string }>;
