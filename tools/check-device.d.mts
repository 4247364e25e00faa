// Types of tools/check-device.mjs for the tests.
export declare const PORTABLE_C: string[];
export declare const BENCH_C: string[];
export declare const WARN: string[];
export declare const CROSS: Array<{ name: string; cc: string; flags: string[]; pkg: string }>;
export declare function compile(cc: string, flags: string[], file: string, out: string): { ok: boolean; output: string };
export declare function checkDevice(log?: (line: string) => void): string[];
export declare function ensureDebianTools(tools: Array<{ cmd: string; pkg: string; check?: string }>, log?: (line: string) => void): void;
