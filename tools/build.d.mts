// Types for tools/build.mjs, for the TypeScript that imports it (tests, bench).
export const ROOT: string;
export const XS_TARGET: { target: string; supported: Record<string, boolean> };
export function firmwareVersion(): string;
export function gitBuildId(): string;
export function makeImage(bundle: Buffer, header: Record<string, unknown>): Buffer;
export interface SimXs {
  tag: 'sdk' | 'xsnap';
  dir: string;
  label: string;
  fetch: boolean;
}
export function simXs(env?: Record<string, string | undefined>, log?: (line: string) => void): SimXs;
export function buildRuntime(options?: { quiet?: boolean }): SimXs;
export function buildFirmware(options?: {
  outDir?: string;
  version?: string;
  defines?: Record<string, string>;
  force?: boolean;
  entry?: string;
  testBuild?: boolean;
}): Promise<string>;
export function buildBoard(options?: { force?: boolean }): Promise<string>;
export function buildAll(options?: { quiet?: boolean; force?: boolean }): Promise<void>;
