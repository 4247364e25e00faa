// Types of tools/sdk-patches.mjs for the tests.
export interface SdkPatch {
  id: string;
  file: string;
  before: string;
  after: string;
}
export declare const SDK_PATCHES: SdkPatch[];
export declare const SDK_PATCHES_ID: string;
export declare function missingPatches(moddable: string): SdkPatch[];
export declare function applySdkPatches(moddable: string, log?: (line: string) => void): void;
