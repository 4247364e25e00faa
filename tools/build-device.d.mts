// Types of tools/build-device.mjs for the tests.
import type { CaRoot } from './ca-store.mjs';
import type { CompiledService } from './gatt-json.mjs';
export declare const DEVICE_TYPES: string[];
export declare const SDK_PLATFORM: string;
/** hosts/esp32/sdk-modules.json: SDK module specifier to the SDK manifest that maps it. */
export declare const SDK_MODULES: Record<string, string>;
export declare const XTENSA_CC: string;
export declare const ESP_IDF_VERSION: string;
export declare function checkIdf(env?: Record<string, string | undefined>): { ok: boolean; reason: string | null };
export interface XslFigures {
  instances: number | null;
  keys: number | null;
  colors: number | null;
  holes: number | null;
  /** mc.xs.c's mxHeapCount: the preloaded heap, in slots. */
  heapSlots: number | null;
  aliases: number | null;
  keysCount: number | null;
  /** The creation sizes the makefile passed xsl (-c). */
  creation: {
    chunk: { initial: number | null; incremental: number | null };
    heap: { initial: number | null; incremental: number | null };
    stack: number | null;
    keys: { initial: number | null; incremental: number | null; name: number | null; symbol: number | null };
    parser: { buffer: number | null; table: number | null };
    static: number | null;
  };
}
export declare function xslFigures(xslOutput: string, mcXsC: string, makefile: string): XslFigures;
export declare function typecheckStage(sdk: import('./sdk.mjs').SdkState): { ok: boolean; cached: boolean; output: string };
export declare function sdkOut(board: string, outRoot?: string): string;
export declare function makefileDir(board: string, outRoot?: string): string;
export declare function bundleDevice(
  board: string,
  options?: { outRoot?: string; version?: string },
): Promise<{ outDir: string; build: { version: string; buildId: string; testBuild: boolean }; caRoots: CaRoot[]; gatt: CompiledService[] }>;
export declare function mcconfigArgs(board: string, options?: { flash?: boolean; port?: string; make?: boolean; outRoot?: string }): string[];
