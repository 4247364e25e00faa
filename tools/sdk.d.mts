// Types of tools/sdk.mjs for the tests and the bench.
export interface SdkState {
  ok: boolean;
  tools: boolean;
  source: 'MODDABLE' | 'archive' | null;
  moddable: string | null;
  bin?: string;
  archive?: string;
  version?: string | null;
  reason: string | null;
}
export declare const SDK_VERSION: string;
export declare const SDK_XS_VERSION: string;
export declare const SDK_ARCHIVE: string;
export declare const LOCAL_SDK: string;
export declare const SDK_TOOLS: string[];
export declare function searchStarts(root?: string): string[];
export declare function findArchive(env?: Record<string, string | undefined>, root?: string): string | null;
export declare function sdkVersion(moddable: string): string | null;
export declare function locateSdk(env?: Record<string, string | undefined>, root?: string): SdkState;
export declare function sdkEnv(sdk: { moddable: string | null; bin?: string }, env?: Record<string, string | undefined>): Record<string, string | undefined>;
export declare function ensureSdk(options?: { xsOnly?: boolean; log?: (line: string) => void; env?: Record<string, string | undefined> }): SdkState;
